"""NoveltyBench (Zhang et al. 2025): how many *different* answers a model gives in k tries at
one open-ended prompt (``distinct_k``), and how useful those different answers are
(``utility_k``, the quality of the first answer of each class with the patience discount).

Beyond the five seed papers. Prompts: our starter set, or the paper's curated and WildChat
sets read from the user's copy of ``novelty-bench/novelty-bench`` (MIT). The partition into
classes comes from ``--partitioner``: ``judge`` (the paper's LLM-judge protocol through the
run's judge), or any creval entailment spec (``embedding``, ``embedding:0.9``, ``hf:...``,
``llm``) with the same greedy representative partition. Quality: ``--quality judge`` (a 1-10
rating by the run's judge, our rubric wording), ``reward`` (the paper's reward model through
transformers, mapped to 1-10 by its thresholds) or ``none``.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from creval._util.inputs import ITEM_DIGEST, item_digest
from creval.benchmarks.base import Benchmark, option, register_benchmark
from creval.benchmarks.noveltybench import declared
from creval.benchmarks.noveltybench.data import NoveltyPrompt, load_prompts
from creval.benchmarks.noveltybench.protocol import UNIT_PARTITIONERS, prompt_unit, templates
from creval.benchmarks.repeats import RepeatOptions, repeat_key, repeat_meta
from creval.errors import CrevalError
from creval.metrics.noveltybench import reward_to_rating
from creval.records import Record, Scores
from creval.records.references import DataSource, ItemValues, PaperData, Published, PublishedItems
from creval.runner.engine import Unit

if TYPE_CHECKING:
    from creval.reader import Run

Sampling = Literal["default", "paraphrase", "in-context", "system"]


class NoveltyOptions(RepeatOptions):
    subset: Literal["starter", "curated", "wildchat", "both"] | None = option(
        None, "Prompts: starter (ours, offline), or the paper's curated, wildchat or both "
        "(needs --data); default: starter without --data, both with it.")
    data: str | None = option(
        None, "The NoveltyBench data: a copy of novelty-bench/novelty-bench or its data/ folder "
        "(creval data fetch noveltybench), or a JSONL file of prompts.")
    k: int = option(10, "Answers asked per prompt (the paper: 10).", ge=2, le=50)
    sampling: Sampling = option(
        "default", "How the k answers are asked: default (k samples of the prompt), paraphrase "
        "(answer i to paraphrase i), in-context (ask again for a different answer in one "
        "conversation), system (a system prompt asking for unique answers).")
    max_tokens: int = option(512, "Maximum tokens per answer (the paper: 512).", ge=1)
    partitioner: str = option(
        "judge", "What decides that two answers are the same: judge (the run's judge, the "
        "paper's pairwise protocol) or an entailment spec (embedding, embedding:THRESHOLD, "
        "hf:NAME, llm).")
    quality: Literal["judge", "reward", "none"] = option(
        "judge", "Quality of each answer for utility: judge (the run's judge rates 1-10), "
        "reward (the paper's reward model through transformers, --reward-model, mapped to 1-10 "
        "by its thresholds) or none (no utility).")
    reward_model: str = option(
        "Skywork/Skywork-Reward-Gemma-2-27B-v0.2", "With --quality reward: the reward model "
        "(a hub name already cached, or a local folder).", kind="scoring")
    patience: float = option(0.8, "Patience discount of utility (the paper: 0.8).",
                             kind="scoring", gt=0.0, le=1.0)
    judge_prompt_file: str | None = option(
        None, "Your own same/different wording with {prompt}, {a} and {b}.")
    quality_prompt_file: str | None = option(
        None, "Your own rating wording with {prompt} and {answer}.")
    system_prompt_file: str | None = option(None, "Your own system prompt for --sampling system.")
    again_prompt_file: str | None = option(None, "Your own follow-up turn for --sampling in-context.")


@register_benchmark
class NoveltyBench(Benchmark[NoveltyOptions]):
    name = "noveltybench"
    battery_member = declared.BATTERY
    sweep_pairing = declared.SWEEP
    answer_text = declared.ANSWER_TEXT
    description = ("NoveltyBench: distinct answers in k tries per prompt and their utility "
                   "(beyond the seed papers).")
    Options = NoveltyOptions
    roles = ("target", "judge")
    #: ``--plan`` counts the judge's verdicts for the worst case: its stand-in answers all
    #: differ and its stand-in judge finds every pair different, so the greedy partition asks
    #: every pair (a real run, whose answers fall in fewer classes, asks fewer).
    plan_worst_case = ("every one of the k answers different, the judge asked k(k-1)/2 "
                       "same/different verdicts per prompt")

    def paper_data(self) -> PaperData | None:
        from creval.benchmarks.noveltybench.published import PAPER_DATA

        return PAPER_DATA

    def published_items(self) -> PublishedItems | None:
        from creval.benchmarks.noveltybench.published import published_items

        return published_items()

    def item_values(self, run: Run) -> ItemValues:
        from creval.benchmarks.noveltybench.published import run_values

        return run_values(run)

    def read_published_items(self, run: Run, published: Path | None) -> tuple[list[Published], str | None]:
        from creval.benchmarks.noveltybench.published import read_published

        return read_published(run, published)

    def published_generations(self, run: Run) -> list[tuple[str, str, dict[str, list[str]]]]:
        from creval.benchmarks.noveltybench.published import reference_generations

        return reference_generations(run)

    def data_sources(self) -> list[DataSource]:
        from creval.benchmarks.noveltybench.published import data_source

        return [data_source()]

    def plan_answer(self, options: NoveltyOptions, role: str) -> str | None:
        # a judge that finds every pair different (the most verdicts) and rates 5
        return "different 5" if role == "judge" else None

    def prompts(self, options: NoveltyOptions) -> dict[str, str]:
        return templates(options)

    def _items(self, options: NoveltyOptions) -> list[NoveltyPrompt]:
        _check_partitioner(options.partitioner)
        items = load_prompts(options.data, options.subset)
        return items[: options.limit] if options.limit else items

    def units(self, options: NoveltyOptions) -> list[Unit]:
        words = templates(options)
        units = []
        for item in self._items(options):
            meta = {"id": item.id, "subset": item.subset, "category": item.category,
                    "prompt": item.prompt,
                    ITEM_DIGEST: item_digest({"prompt": item.prompt})}
            units += [prompt_unit(repeat_key(f"prompt-{item.id}", r), item, options, words,
                                  repeat_meta(meta, r), repeat=r)
                      for r in range(options.repeats)]  # repeat r: another set of k answers
        return units

    def score(self, records: list[Record], options: NoveltyOptions) -> Scores:
        ok = [r for r in records if r.status == "ok" and r.output.get("generations")]
        empty = sum(r.status == "ok" for r in records) - len(ok)
        partitions, resources = _partitions(ok, options)
        rewards: list[list[float] | None] = [None] * len(ok)
        if options.quality == "reward":
            resources["reward_model"] = options.reward_model
            rewards = list(_rewards(ok, options.reward_model))
        from creval.benchmarks.noveltybench.repeats import by_prompt, set_noise

        sets = [_row(r, p, options, w) for r, p, w in zip(ok, partitions, rewards, strict=True)]
        rows = by_prompt(sets) if options.repeats > 1 else sets
        distinct = [float(row["distinct"]) for row in rows]
        utilities = [float(row["utility"]) for row in rows if row["utility"] is not None]
        unrated = sum(row["utility"] is None for row in rows) if options.quality == "judge" else 0
        unreadable = sum(int(r.output.get("unreadable_verdicts", 0)) for r in ok)
        unrated_answers = sum(x is None for r in ok for x in r.output.get("ratings") or [])
        headline: dict[str, float | int | None] = {
            "distinct_mean": mean_or_none(distinct),
            "distinct_paper_mean": mean_or_none([d - 1 for d in distinct]),
            "utility_mean": mean_or_none(utilities) if options.quality != "none" else None,
            "prompts": len(rows), "unrated_prompts": unrated, "unreadable_verdicts": unreadable,
            "unparsed": unreadable + unrated_answers,  # judge answers that did not parse
            "prompts_without_answers": empty,
        }
        if options.repeats > 1:
            headline["answer_sets"] = len(sets)
        scores = Scores(
            headline=headline,
            per_item={"distinct_mean": list(distinct),
                      "utility_mean": [row["utility"] for row in rows]},
            resources=resources, table=rows, notes=_notes(options, unrated, unreadable),
        ).with_extra(k=options.k, subset=options.subset, partitioner=options.partitioner,
                     quality=options.quality, per_category=_per_category(rows))
        return set_noise(scores, sets, options)


def _check_partitioner(spec: str) -> None:
    if spec in UNIT_PARTITIONERS:
        return
    from creval.nli import get_entailment

    try:
        get_entailment(spec)  # only parses the spec; models load on first use
    except CrevalError as exc:
        raise CrevalError(f"--partitioner {spec!r}: {exc} Use judge, or an entailment spec "
                          "(embedding, embedding:THRESHOLD, hf:NAME, llm).") from None


def mean_or_none(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _partitions(records: list[Record], options: NoveltyOptions) -> tuple[list[list[int]], dict[str, Any]]:
    """Each record's partition: the one its unit recorded (judge, llm), else the greedy
    entailment partition of its answers under the ``--partitioner`` spec."""
    if options.partitioner in UNIT_PARTITIONERS:
        out = []
        for r in records:
            if r.output.get("partitioner") != options.partitioner or "partition" not in r.output:
                raise CrevalError(
                    f"Record {r.key} holds no {options.partitioner} partition (its unit ran "
                    f"with another --partitioner). Run again into a new --out.")
            out.append([int(c) for c in r.output["partition"]])
        return out, {"partitioner": options.partitioner}
    import asyncio

    from creval.nli import CachingEntailment, partition_texts
    from creval.runner.remote_nli import entailment_on_executor

    nli = CachingEntailment(entailment_on_executor(options.partitioner))

    async def all_partitions() -> list[list[int]]:
        return [list((await partition_texts(_answers(r), nli, mode="strict")).class_ids)
                for r in records]

    partitions = asyncio.run(all_partitions())
    return partitions, {"partitioner": options.partitioner,
                        "entailment": nli.identity() if records else options.partitioner}


def _rewards(records: list[Record], name: str) -> list[list[float]]:
    """The reward model's raw reward of each answer (user: the prompt, assistant: the
    answer, through its chat template), as the paper's ``score.py``."""
    try:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
    except ImportError:
        raise CrevalError("--quality reward needs transformers and torch (pip install "
                          "'creval[hf]').") from None
    try:
        tokenizer = AutoTokenizer.from_pretrained(name)
        model = AutoModelForSequenceClassification.from_pretrained(name, num_labels=1).eval()
    except OSError as exc:
        raise CrevalError(f"--reward-model {name!r} could not be loaded ({str(exc)[:200]}). Pass "
                          "a cached hub name or a local folder.") from None
    out = []
    with torch.no_grad():
        for r in records:
            convs = [[{"role": "user", "content": str(r.unit.get("prompt", ""))},
                      {"role": "assistant", "content": a}] for a in _answers(r)]
            batch: Any = tokenizer.apply_chat_template(convs, tokenize=True, padding=True,
                                                  truncation=True, return_tensors="pt",
                                                  return_dict=True)
            out.append([float(x) for x in model(**batch).logits[:, 0].tolist()])
    return out


def _answers(record: Record) -> list[str]:
    return [str(a) for a in record.output.get("generations", [])]


def _row(record: Record, partition: list[int], options: NoveltyOptions,
         rewards: list[float] | None) -> dict[str, Any]:
    from creval.metrics.noveltybench import distinct_classes, founders, utility

    got = record.output.get("ratings") if rewards is None else [reward_to_rating(x) for x in rewards]
    ratings: list[Any] = list(got) if isinstance(got, list) else []
    first = founders(partition)
    value: float | None = None
    if options.quality != "none" and len(ratings) == len(first) and all(r is not None for r, f in zip(ratings, first, strict=True) if f):
        value = utility(partition, ratings, patience=options.patience)
    return {"id": record.unit.get("id", record.key), "key": record.key,
            "subset": record.unit.get("subset", ""), "category": record.unit.get("category", ""),
            **({"repeat": int(record.unit["repeat"])} if "repeat" in record.unit else {}),
            "k": len(partition), "distinct": distinct_classes(partition),
            "distinct_paper": distinct_classes(partition) - 1, "utility": value,
            "mean_rating": mean_or_none([float(x) for x in ratings if x is not None]),
            "partition": partition,
            "founder_ratings": [r for r, f in zip(ratings, first, strict=False) if f],
            **({} if rewards is None else {"rewards": rewards})}


def _per_category(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per category: the mean distinct and utility over its prompts, with their intervals."""
    from creval.metrics.intervals import mean_interval

    out: dict[str, dict[str, Any]] = {}
    for category in sorted({str(r["category"]) for r in rows}):
        mine = [r for r in rows if r["category"] == category]
        entry: dict[str, Any] = {"prompts": len(mine)}
        for name, values in (("distinct", [float(r["distinct"]) for r in mine]),
                             ("utility", [float(r["utility"]) for r in mine
                                          if r["utility"] is not None])):
            if values:
                iv = mean_interval(values)
                entry[name] = {"mean": iv.mean, "low": iv.low, "high": iv.high, "n": iv.n,
                               "reason": iv.reason}
        out[category or "(none)"] = entry
    return out


def _notes(options: NoveltyOptions, unrated: int, unreadable: int) -> list[str]:
    notes = [
        f"distinct_mean: the number of classes among the k={options.k} answers (1..k), "
        "averaged over prompts. distinct_paper_mean: the paper's stored per-prompt value, "
        "max(partition) = classes - 1, as in its scores.jsonl (the site adds the one back).",
        f"Partitioner: {options.partitioner} (greedy: each answer is compared with the first "
        "answer of each earlier class, as the paper's partition.py). The paper's published "
        "partitions were made by its similarity classifier, not by this partitioner.",
    ]
    if options.quality == "judge":
        notes.append(f"utility_mean: the judge's 1-10 rating of the first answer of each "
                     f"class, 0 for the others, averaged with weights {options.patience}^i "
                     "(the paper's score.py). The paper rates with a reward model "
                     "(Skywork-Reward-Gemma-2-27B) mapped to 1-10; a judge's ratings are not "
                     "the same scale.")
    if options.quality == "reward":
        notes.append(f"utility_mean: the reward model {options.reward_model}'s raw reward of "
                     "each answer mapped to 1-10 by the paper's thresholds (score.py), the first "
                     f"answer of each class counted, weights {options.patience}^i.")
    if unrated:
        notes.append(f"{unrated} prompt(s) have no utility: the judge's rating of a class's "
                     "first answer did not parse.")
    if unreadable:
        notes.append(f"{unreadable} same/different verdict(s) did not parse and counted as "
                     "different (as the paper's code counts a failed judge call).")
    return notes


__all__ = ["NoveltyBench", "NoveltyOptions", "mean_or_none"]
