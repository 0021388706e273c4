"""Slop score (EQ-Bench, Paech 2025, ``sam-paech/slop-score``): how much a model's long-form
writing leans on the words, trigrams and "not X, but Y" turns that language models overuse,
beside its lexical diversity, repetition, reading level, sentence and paragraph length and
dialogue, each measured as upstream's JavaScript defines it (:mod:`creval.metrics.slop`).

Beyond the seed papers. The model writes about 1,000 words on each prompt, asked as upstream's
``bench-model.mjs`` asks (its system and user wording, temperature 0.7): our starter set of
eight prompts offline, or upstream's 300 (150 creative, 150 essays) read from ``--data``, a
copy of ``sam-paech/slop-score`` (``creval data fetch slop``), which also holds the slop word
and trigram lists; without it those two rates are not measured. Scoring pools the answers
longer than 300 characters as upstream does (one text, answers joined by a blank line) and
also measures each answer alone (``per_item``, for paired tests).
"""

from __future__ import annotations

import statistics
from typing import Any, Literal

from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.benchmarks.common import format_prompt, load_prompt
from creval.benchmarks.slop.data import (
    SlopPrompt,
    human_profile,
    slop_lists,
    starter_prompts,
    upstream_prompts,
)
from creval.errors import CrevalError
from creval.metrics.slop import METRICS, leaderboard_text, slop_metrics, utf16_length
from creval.models.base import GenerateRequest
from creval.records import Record, Scores
from creval.records.references import DataSource
from creval.runner.engine import Unit, UnitContext

Subset = Literal["starter", "creative", "essay", "all"]


class SlopOptions(BenchmarkOptions):
    subset: Subset | None = option(
        None, "Prompts: starter (ours, offline), or upstream's creative (150), essay (150) or "
        "all (needs --data); default: starter without --data, all with it.")
    data: str | None = option(
        None, "A copy of sam-paech/slop-score or its data/ folder (creval data fetch slop): "
        "upstream's prompts and its slop word and trigram lists.")
    temperature: float = option(0.7, "Sampling temperature (upstream: 0.7).", ge=0.0)
    max_tokens: int = option(2048, "Maximum tokens per answer (upstream's cap: 8096).", ge=1)
    system_prompt_file: str | None = option(None, "Your own system prompt.")
    prompt_file: str | None = option(None, "Your own user prompt with {prompt}.")
    min_chars: int = option(300, "Pool only answers longer than this many characters (UTF-16 "
                            "code units, upstream: 300).", ge=0, kind="scoring")
    human_profile: str | None = option(
        None, "Upstream's human_writing_profile.json (not released with the outputs) for the "
        "repetition score's human baseline; without it the over-used n-grams rank by count.",
        kind="scoring")
    against: str | None = option(
        None, "A released results file (results/<model>.json[.gz] of sam-paech/slop-score): "
        "paired per-prompt tests of each text's metrics against that model's answer to the "
        "same prompt (needs upstream's prompts).", kind="scoring")


def _lists(options: SlopOptions) -> tuple[set[str], set[str]] | None:
    return slop_lists(options.data) if options.data else None


def score_texts(texts: list[tuple[str, str]], options: SlopOptions) -> Scores:
    """Scores of ``(id, text)`` pairs: the pooled metrics as upstream computes a model's (the
    texts longer than ``min_chars`` joined; the repetition score over the first 150 of them)
    in ``headline``, and each text's own metrics in the table and ``per_item``
    (``<metric>_per_text``)."""
    lists = _lists(options)
    words, trigrams = lists if lists else (set(), set())
    human_b, human_t = human_profile(options.human_profile) if options.human_profile else ({}, {})
    bodies = [t for _, t in texts]
    pooled = slop_metrics(
        leaderboard_text(bodies, min_chars=options.min_chars), words=words, trigrams=trigrams,
        text_for_ngrams=leaderboard_text(bodies, min_chars=options.min_chars, first=150),
        human_bigrams=human_b, human_trigrams=human_t) if bodies else None
    kept = sum(1 for b in bodies if b and utf16_length(b) > options.min_chars)
    rows = []
    for key, body in texts:
        own = slop_metrics(body, words=words, trigrams=trigrams,
                           human_bigrams=human_b, human_trigrams=human_t)
        row: dict[str, Any] = {"id": key, "chars": utf16_length(body),
                               "pooled": bool(body) and utf16_length(body) > options.min_chars}
        row.update({m: (own or {}).get(m) for m in METRICS})
        if lists is None:
            row["slop_list_matches_per_1k_words"] = row["slop_trigram_matches_per_1k_words"] = None
        rows.append(row)
    headline: dict[str, Any] = {m: (pooled or {}).get(m) for m in METRICS}
    notes = [f"Pooled as upstream: {kept} of {len(texts)} texts longer than {options.min_chars} "
             "characters, joined by a blank line; rates per 1,000 words (slop lists, "
             "repetition: per 1,000 content words) or per 1,000 characters (not-x-but-y, "
             "dialogue)."]
    if lists is None:
        headline["slop_list_matches_per_1k_words"] = None
        headline["slop_trigram_matches_per_1k_words"] = None
        notes.append("Slop-word and slop-trigram rates not measured: they need upstream's lists; "
                     "pass --data with a copy of sam-paech/slop-score (creval data fetch slop).")
    if not options.human_profile:
        notes.append("ngram_repetition_score without upstream's human profile (not released): "
                     "the 40 most over-used bigrams and trigrams rank by count, so the value is "
                     "not upstream's; pass --human-profile to use one.")
    notes.append("not_x_but_y_per_1k_chars: upstream's ten surface patterns (stage 1), as its "
                 "leaderboard ran them; vocab_level is the Flesch-Kincaid grade, as upstream's.")
    if pooled is None:
        notes.append(f"No text longer than {options.min_chars} characters with words: nothing "
                     "pooled (lower --min-chars to pool shorter answers).")
    headline.update(texts=len(texts), pooled_texts=kept)
    # each text's own value, under its own name: the headline is the pooled value (a ratio over
    # all texts), not the mean of these, so they give no interval around it
    per_item = {f"{m}_per_text": [r[m] for r in rows] for m in METRICS}
    sections: list[dict[str, Any]] = []
    paired = None
    if options.against:
        from creval.benchmarks.slop.paired import paired_with_released

        paired = paired_with_released(rows, options.against, words=words, trigrams=trigrams,
                                      min_chars=options.min_chars)
        sections.append({"title": f"Paired with {paired['against']} ({paired['prompts']} prompts)",
                         "rows": paired["table"]})
        notes.append(f"Paired per prompt with {paired['against']}: ours minus theirs over "
                     f"{paired['prompts']} prompts both answered; p: sign-flip permutation test, "
                     "p_holm: Holm-adjusted over the metrics.")
    return Scores(headline=headline, table=rows, per_item=per_item, notes=notes,
                  sections=sections).with_extra(
        lists="upstream" if lists else None, human_profile=bool(options.human_profile),
        paired=paired)


@register_benchmark
class Slop(Benchmark[SlopOptions]):
    name = "slop"
    description = ("Slop score (EQ-Bench): over-used words, trigrams and not-x-but-y turns per "
                   "1,000 words, with lexical diversity and style (beyond the seed papers).")
    Options = SlopOptions

    def data_sources(self) -> list[DataSource]:
        from creval.benchmarks.slop.data import data_source

        return [data_source()]

    def prompts(self, options: SlopOptions) -> dict[str, str]:
        return {"system": load_prompt("slop_system", options.system_prompt_file),
                "prompt": load_prompt("slop", options.prompt_file)}

    def _items(self, options: SlopOptions) -> list[SlopPrompt]:
        subset = options.subset or ("all" if options.data else "starter")
        if subset == "starter":
            items = starter_prompts()
        elif not options.data:
            raise CrevalError(f"--subset {subset} needs upstream's prompts: pass --data with a "
                              "copy of sam-paech/slop-score (creval data fetch slop), or use "
                              "--subset starter for the offline set.")
        else:
            items = [p for p in upstream_prompts(options.data) if subset in ("all", p.kind)]
        if options.data:
            slop_lists(options.data)  # a folder without the lists fails before any call
        return items[: options.limit] if options.limit else items

    def units(self, options: SlopOptions) -> list[Unit]:
        words = self.prompts(options)
        units = []
        for i, item in enumerate(self._items(options)):
            user = format_prompt(words["prompt"], options.prompt_file or "slop", prompt=item.prompt)
            request = GenerateRequest.chat(user, system=words["system"],
                                           temperature=options.temperature,
                                           max_tokens=options.max_tokens,
                                           seed=options.seed)

            async def run(ctx: UnitContext, request: GenerateRequest = request,
                          sample: int = i) -> dict[str, Any]:
                (completion,) = await ctx.generate(request, first_sample=sample)
                return {"text": completion.text, "finish_reason": completion.finish_reason}

            units.append(Unit(key=f"slop-{item.id}", run=run,
                              meta={"id": item.id, "kind": item.kind, "prompt": item.prompt}))
        return units

    def score(self, records: list[Record], options: SlopOptions) -> Scores:
        ok = [r for r in records if r.status == "ok"]
        texts = [(str(r.unit.get("id", r.key)), str(r.output.get("text") or "")) for r in ok]
        scores = score_texts(texts, options)
        kinds = {str(r.unit.get("id", r.key)): r.unit.get("kind") for r in ok}
        for row in scores.table:
            row["kind"] = kinds.get(row["id"])
        by_kind = {}
        for kind in sorted({k for k in kinds.values() if k}):
            values = [row["slop_list_matches_per_1k_words"] for row in scores.table
                      if row["kind"] == kind and row["slop_list_matches_per_1k_words"] is not None]
            by_kind[kind] = statistics.fmean(values) if values else None
        return scores.with_extra(per_kind_slop_words=by_kind)
