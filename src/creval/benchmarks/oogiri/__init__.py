"""The Oogiri game's standard evaluation (seed 003, section 4): ``oogiri``.

One unit per test prompt: choice questions 2T1, 3T1, 4T1, 5T2 (accuracy, against the
computed random baseline) and a ranking question of five liked responses (top-1, NDCG,
Spearman). Data: our English starter set offline, or Oogiri-GO (``creval data fetch
oogiri``) split 95/5 by prompt from ``--split-seed``. The ``rewriter`` role (``--rewriter
SPEC``, falling back to ``--judge``, then the tested model) writes missing distractors; image prompts need a model that reads images and
are skipped, and counted, for text-only models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.benchmarks.common import load_prompt
from creval.benchmarks.oogiri import declared
from creval.benchmarks.oogiri.data import Loaded, load_prompts
from creval.benchmarks.oogiri.protocol import Settings, Templates, run_prompt
from creval.benchmarks.oogiri.questions import CHOICE_TYPES, pick_unrelated
from creval.errors import CrevalError
from creval.models.base import Completion, GenerateRequest
from creval.records import Scores
from creval.records.references import DataSource, PaperData
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record

QUESTION_KINDS = (*CHOICE_TYPES, "rank")


class OogiriOptions(BenchmarkOptions):
    source: str | None = option(
        None, "Oogiri-GO folder (en.jsonl, cn.jsonl, jp.jsonl, images/) or JSONL file; default: "
        "our English starter set.",
    )
    lang: Literal["en", "zh", "ja"] = option("en", "Language (Oogiri-GO file en/cn/jp).")
    types: str = option("T2T,I2T,IT2T", "Game types to use (comma-separated).")
    questions: str = option(",".join(QUESTION_KINDS), "Question kinds (2T1,3T1,4T1,5T2,rank).")
    split_seed: int = option(0, "Seed of the 95/5 prompt split of Oogiri-GO.")
    test_share: float = option(0.05, "Share of prompts in the test split.", gt=0.0, lt=1.0)
    images_dir: str | None = option(None, "Folder of the images (default: SOURCE/images).")
    temperature: float = option(0.0, "Sampling temperature of the answers.", ge=0.0)
    max_tokens: int = option(24, "Maximum tokens of an answer.", ge=1)
    rewriter_max_tokens: int = option(64, "Maximum tokens of a rewriter answer.", ge=1)
    constrain_answers: bool = option(
        False, "Constrain the tested model's answers to JSON letters (backends with structured "
        "output only; the report says how many were). Default: free answers, as in the paper.",
    )
    choice_prompt_file: str | None = option(None, "Your own choice prompt ({prompt}, {options}, {m}, {n}, {is_are}, {s}, {example}).")
    rank_prompt_file: str | None = option(None, "Your own ranking prompt ({prompt}, {options}, {example}).")
    relevance: Literal["grade", "likes"] = option(
        "grade", "NDCG relevance: grade (how many candidates have fewer likes) or raw likes.",
        kind="scoring",
    )


def _kinds(text: str, known: tuple[str, ...], flag: str) -> tuple[str, ...]:
    chosen = tuple(k.strip() for k in text.split(",") if k.strip())
    unknown = [k for k in chosen if k not in known]
    if unknown or not chosen:
        raise CrevalError(f"{flag}: unknown {', '.join(unknown) or '(empty)'}; choose from "
                          f"{', '.join(known)}.")
    return chosen


@register_benchmark
class Oogiri(Benchmark[OogiriOptions]):
    name = "oogiri"
    battery_member = declared.BATTERY
    description = "Oogiri game: pick the human joke among distractors (mTn) and rank jokes by likes."
    seed_paper = "003"
    Options = OogiriOptions
    roles = ("target",)

    def paper_data(self) -> PaperData | None:
        return PaperData("source")

    def data_sources(self) -> list[DataSource]:
        from creval.benchmarks.oogiri.fetch import HF_BASE_URL

        return [DataSource(
            "oogiri", "Oogiri-GO en/cn/jp.jsonl and images.zip (unpacked) from the Hugging Face hub",
            "creval.benchmarks.oogiri.fetch:fetch_oogiri", url=HF_BASE_URL,
            licence="as the hub dataset zhongshsh/CLoT-Oogiri-GO states it")]
    extra_roles = {"rewriter": "writes the distractors the data lacks: the literal answer (a "
                               "caption) and the 4T1/5T2 rewrite of the human response"}

    def _templates(self, o: OogiriOptions) -> Templates:
        suffix = "" if o.lang == "en" else f"_{o.lang}"  # the questions in the data's language
        choice, rank = f"oogiri_choice{suffix}", f"oogiri_rank{suffix}"
        return Templates(
            choice=(load_prompt(choice, o.choice_prompt_file), o.choice_prompt_file or choice),
            rank=(load_prompt(rank, o.rank_prompt_file), o.rank_prompt_file or rank),
            literal=(load_prompt("oogiri_literal"), "oogiri_literal"),
            rewrite=(load_prompt("oogiri_rewrite"), "oogiri_rewrite"),
        )

    def _load(self, o: OogiriOptions) -> Loaded:
        loaded = load_prompts(o.source, o.lang, seed=o.split_seed, test_share=o.test_share)
        types = _kinds(o.types, ("T2T", "I2T", "IT2T"), "--types")
        kept = [p for p in loaded.prompts if p.type in types]
        if not kept:
            raise CrevalError(f"No prompt of type {', '.join(types)} in {loaded.source}.")
        loaded.prompts = kept
        return loaded

    def prompts(self, options: OogiriOptions) -> dict[str, str]:
        t = self._templates(options)
        return {"prompt": t.choice[0], "rank_prompt": t.rank[0], "literal_prompt": t.literal[0],
                "rewrite_prompt": t.rewrite[0]}

    def units(self, options: OogiriOptions) -> list[Unit]:
        loaded = self._load(options)
        templates = self._templates(options)
        images = Path(options.images_dir) if options.images_dir else (
            Path(options.source) / "images" if options.source and Path(options.source).is_dir() else None
        )
        settings = Settings(
            lang=options.lang, questions=_kinds(options.questions, QUESTION_KINDS, "--questions"),
            seed=options.seed, temperature=options.temperature, max_tokens=options.max_tokens,
            rewriter_max_tokens=options.rewriter_max_tokens, images_dir=images,
            constrain=options.constrain_answers,
        )
        prompts = loaded.prompts[: options.limit] if options.limit else loaded.prompts
        units = []
        for prompt in prompts:
            unrelated = pick_unrelated(prompt, loaded.prompts, options.seed)

            async def run(ctx: UnitContext, prompt: Any = prompt, unrelated: str | None = unrelated) -> dict[str, Any]:
                async def target(request: GenerateRequest) -> list[Completion]:
                    return await ctx.generate(request, role="target")

                async def rewriter(request: GenerateRequest) -> list[Completion]:
                    return await ctx.generate(request, role="rewriter")

                return await run_prompt(
                    prompt, unrelated, settings, templates, target, rewriter,
                    target_images=ctx.capabilities("target").images,
                    rewriter_images=ctx.capabilities("rewriter").images,
                    target_structured=ctx.capabilities("target").structured_output,
                )

            meta = {"id": prompt.id, "type": prompt.type, "lang": options.lang}
            units.append(Unit(key=f"oogiri-{prompt.id}", run=run, meta=meta))
        return units

    def score(self, records: list[Record], options: OogiriOptions) -> Scores:
        from creval.benchmarks.oogiri.scoring import score_oogiri

        loaded = self._load(options)
        info = {"source": loaded.source, "excluded": loaded.excluded, "split": loaded.split}
        return score_oogiri(records, relevance=options.relevance, loaded=info,
                            constrain_requested=options.constrain_answers)

    def write_artifacts(self, scores: Scores, options: Any, out: Path) -> list[str]:
        split = scores.extra("split")
        if not split:
            return []
        (out / "split.json").write_text(json.dumps(split, indent=1, ensure_ascii=False), encoding="utf-8")
        return ["split.json"]
