"""Metric validity (seed 002): do creativity metrics tell creative from uncreative texts?

For a domain's two labelled sets (creative, uncreative) every metric scores every text:
the Creativity Index against an infini-gram index, perplexity under ``--model``,
syntactic templates (POS tags), a rubric LLM judge, the Semantic Novelty Score, and
lexical diversity per set. The report gives,
per metric, the two sets' means and spreads, AUROC, accuracy and F1 at the best and at a
fixed threshold, Cohen's d with its noncentral t interval, the distributions' overlap, the
rank correlations between metrics, and the Creativity Index's sensitivity to L.

Only perplexity (``--model``), the judge and SNS (``--judge``, default the model) call a
model, one unit per text each; everything else is computed when scoring, so the index,
the tagger and the template settings can change without asking a model again, and adding
a metric to ``--metrics`` later runs only its units.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.benchmarks.common import text_digest
from creval.benchmarks.metric_validity import declared
from creval.benchmarks.metric_validity.data import LabelledText, balanced_sample, load_domain
from creval.errors import CrevalError
from creval.records import Scores
from creval.records.references import PaperData, PaperReferences, packaged_references
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record

METRIC_NAMES = ("ci", "ppl", "templates", "diversity", "judge", "sns")


class MetricValidityOptions(BenchmarkOptions):
    domain: Literal["writing", "problem-solving", "ideation", "custom"] = option(
        "problem-solving", "Which creative/uncreative pair of sets to compare.")
    data: str | None = option(
        None, "problem-solving: macgyver_solvable_labeled.jsonl; writing: the creativity_index "
        "folder or a JSONL with text and label. Default: our starter set.")
    creative: str | None = option(None, "JSONL of creative texts (ideation, custom).")
    uncreative: str | None = option(None, "JSONL of uncreative texts (ideation, custom).")
    limit: int | None = option(None, "Use N texts in all, half from each set (balanced).",
                               kind="scale", ge=2)
    metrics: str = option("ci,ppl,templates,diversity",
                          f"Comma-separated subset of {', '.join(METRIC_NAMES)}.", kind="scoring")
    index: str | None = option(None, "Local index folder (creval index build) or api:NAME (the "
                               "infini-gram API); default: the "
                               "small starter index built on first use.", kind="scoring")
    near_verbatim: float | None = option(
        None, "Also count near-verbatim matches (seed 002 appendix B): spans whose embedding is "
        "at least this cosine-similar to a corpus span of the same length (e.g. 0.9; local "
        "indexes only).", kind="scoring", ge=-1.0, le=1.0)
    near_embedder: str = option("minilm", "Embedder of the near-verbatim spans.", kind="scoring")
    ppl_window: int | None = option(
        None, "Perplexity: tokens per window for texts longer than it (default: the model's "
        "context; openai: the whole text unless given).", ge=2)
    ppl_stride: int | None = option(
        None, "Perplexity: tokens between window starts (default: half the window); each token "
        "is scored once, with at least window - stride tokens before it.", ge=1)
    min_l: int = option(5, "Smallest L of the Creativity Index range.", kind="scoring", ge=1)
    max_l: int = option(7, "Largest L of the Creativity Index range.", kind="scoring", ge=1)
    tagger: str = option("spacy", "POS tagger: spacy, spacy:NAME or sudachi (Japanese).", kind="scoring")
    template_n: int = option(5, "Template length n (POS tags).", kind="scoring", ge=1)
    top_k: int = option(100, "Number of templates (most frequent POS n-grams).", kind="scoring", ge=1)
    template_reference: str | None = option(
        None, "JSONL texts ('text' field) to mine the templates from, instead of both sets.",
        kind="scoring")
    judge_prompt_file: str | None = option(
        None, "Your own rubric prompt for --metrics judge ({text} placeholder; the last lines "
        "'Criterion: <n>' as in ours).")
    judge_max_tokens: int = option(512, "Maximum tokens of a judge's answer.", ge=1)
    judge_temperature: float = option(0.0, "Sampling temperature of the judge.", ge=0.0)
    judge_repeats: int = option(1, "Judge every text this many times (seeds 0..m-1); the "
                                "report gives the share of texts with identical verdicts.",
                                kind="scale", ge=1)
    judge_flip: bool = option(False, "Also ask 'is it X?' and 'is it not-X?' (e.g. "
                              "unconventional / conventional) and report the flip rate.", kind="scale")
    judge_filter: str | None = option(None, "Joint novelty-acceptability filter, e.g. "
                                      "'logic>=4,originality>=4' (default: seed 002 Table 4).",
                                      kind="scoring")
    structured_judge: bool = option(
        True, "Ask the judge (rubric, flip questions, SNS concepts) for its answer's JSON shape "
        "when its backend can constrain decoding (parsing stays strict; recorded per unit).")
    embedder: str = option("minilm", "Embedder of the SNS concepts (minilm, st:NAME, openai:MODEL).",
                           kind="scoring")


def _metrics(options: MetricValidityOptions) -> list[str]:
    chosen = [m.strip() for m in options.metrics.split(",") if m.strip()]
    unknown = sorted(set(chosen) - set(METRIC_NAMES))
    if unknown or not chosen:
        raise CrevalError(f"--metrics takes a comma-separated subset of {', '.join(METRIC_NAMES)}; "
                          f"got {options.metrics!r}.")
    if options.max_l < options.min_l:
        raise CrevalError(f"--max-l ({options.max_l}) must be >= --min-l ({options.min_l}).")
    return chosen


async def _perplexity(ctx: UnitContext, text: str, options: MetricValidityOptions) -> dict[str, Any]:
    """Token-weighted perplexity of ``text`` under the target model, or why there is none.

    Through the runner (cached, counted, retried); a refusal (no prompt log-probabilities,
    a window the model cannot take) is a reasoned exclusion, a failure after retries an
    error record that a later invocation retries.
    """
    from creval.metrics.perplexity import perplexity
    from creval.runner.engine import ModelRefused

    try:
        scores = await ctx.prompt_logprobs(text, window=options.ppl_window, stride=options.ppl_stride)
    except ModelRefused as exc:
        return {"ppl_error": str(exc)}
    if not scores.tokens:
        return {"ppl_error": "no scored token (the text has fewer than two tokens)"}
    return {"ppl": perplexity(scores.logprobs()), "ppl_tokens": len(scores.tokens),
            "ppl_window": scores.window, "ppl_stride": scores.stride, "ppl_windows": scores.windows}


def _ppl_unit(item: LabelledText, options: MetricValidityOptions) -> Unit:
    domain = options.domain

    async def run(ctx: UnitContext) -> dict[str, Any]:
        if not item.text.strip():
            return {"ppl_error": "empty text"}
        return await _perplexity(ctx, item.text, options)

    meta = {"part": "ppl", "id": item.id, "label": item.label, "group": item.group,
            "text_digest": text_digest(item.text)}
    return Unit(key=f"ppl/{domain}/{item.id}", run=run, meta=meta)


def _constrained(ctx: UnitContext, options: MetricValidityOptions) -> bool:
    """Whether the judge's answers are asked for in their JSON shape."""
    return options.structured_judge and ctx.capabilities("judge").structured_output


def _judge_unit(item: LabelledText, options: MetricValidityOptions, template: str, repeat: int) -> Unit:
    from creval._util.prompts import format_prompt
    from creval.benchmarks.metric_validity.judging import judgement_schema, parse_judgement
    from creval.judges.structured import as_text, render_scales
    from creval.models.base import GenerateRequest

    source = options.judge_prompt_file or f"the {options.domain} rubric"

    async def run(ctx: UnitContext) -> dict[str, Any]:
        if not item.text.strip():
            return {"parse_error": "empty text: not judged"}
        constrained = _constrained(ctx, options)
        schema = judgement_schema(options.domain, options.judge_max_tokens) if constrained else None
        request = GenerateRequest.chat(format_prompt(template, source, text=item.text),
                                       temperature=options.judge_temperature,
                                       max_tokens=options.judge_max_tokens, seed=repeat,
                                       response_schema=schema)  # fmt: skip
        (verdict,) = await ctx.generate(request, role="judge")
        text = as_text(verdict.text, render_scales) if constrained else verdict.text
        return {"judgement": text, **parse_judgement(text, options.domain), "constrained": constrained}

    meta = {"part": "judge", "repeat": repeat, "id": item.id, "label": item.label,
            "group": item.group, "text_digest": text_digest(item.text)}
    suffix = f"/r{repeat}" if repeat else ""
    return Unit(key=f"judge/{options.domain}/{item.id}{suffix}", run=run, meta=meta)


def _flip_unit(item: LabelledText, options: MetricValidityOptions) -> Unit:
    from creval.benchmarks.metric_validity.judging import QUESTION_TEMPLATE, question_pair
    from creval.judges.criteria import parse_binary
    from creval.judges.structured import as_text, render_verdict, text_budget, verdict_schema
    from creval.models.base import GenerateRequest

    async def run(ctx: UnitContext) -> dict[str, Any]:
        constrained = _constrained(ctx, options)
        schema = verdict_schema(reasoning=True, confidence=False,
                                reasoning_chars=text_budget(options.judge_max_tokens))  # fmt: skip
        out: dict[str, Any] = {"constrained": constrained}
        for side, adjective in zip(("positive", "negative"), question_pair(options.domain), strict=True):
            prompt = QUESTION_TEMPLATE.format(text=item.text, adjective=adjective)
            request = GenerateRequest.chat(prompt, temperature=options.judge_temperature,
                                           max_tokens=options.judge_max_tokens, seed=0,
                                           response_schema=schema if constrained else None)  # fmt: skip
            (answer,) = await ctx.generate(request, role="judge")
            text = as_text(answer.text, render_verdict) if constrained else answer.text
            verdict, error = parse_binary(text)
            out[side] = verdict
            if error:
                out[f"{side}_error"] = error
        return out

    meta = {"part": "flip", "id": item.id, "label": item.label, "text_digest": text_digest(item.text)}
    return Unit(key=f"flip/{options.domain}/{item.id}", run=run, meta=meta)


def _sns_unit(item: LabelledText, options: MetricValidityOptions) -> Unit:
    from creval._util.prompts import format_prompt
    from creval.benchmarks.metric_validity.sns import N_CONCEPTS, concepts_template, parse_concepts
    from creval.judges.structured import as_text, list_schema, render_numbered
    from creval.models.base import GenerateRequest

    async def run(ctx: UnitContext) -> dict[str, Any]:
        if not item.text.strip():
            return {"parse_error": "empty text"}
        constrained = _constrained(ctx, options)
        prompt = format_prompt(concepts_template(), "the SNS concepts prompt", text=item.text)
        # five short noun phrases fit 128 tokens even at a token per character
        schema = list_schema(N_CONCEPTS, item_chars=20) if constrained else None
        request = GenerateRequest.chat(prompt, temperature=0.0, max_tokens=128, seed=0,
                                       response_schema=schema)  # fmt: skip
        (answer,) = await ctx.generate(request, role="judge")
        text = as_text(answer.text, render_numbered) if constrained else answer.text
        return {"answer": text, **parse_concepts(text), "constrained": constrained}

    meta = {"part": "sns", "id": item.id, "label": item.label, "group": item.group,
            "text_digest": text_digest(item.text)}
    return Unit(key=f"sns/{options.domain}/{item.id}", run=run, meta=meta)


@register_benchmark
class MetricValidity(Benchmark[MetricValidityOptions]):
    name = "metric-validity"
    battery_member = declared.BATTERY
    description = ("Seed 002: Creativity Index, perplexity, syntactic templates, LLM judge and "
                   "SNS on creative vs uncreative texts (AUROC, effect sizes, agreement).")
    seed_paper = "002"
    Options = MetricValidityOptions
    roles = ("target", "judge")

    def published_references(self) -> list[PaperReferences]:
        return [packaged_references("seed002-metric-validity.json")]

    def paper_data(self) -> PaperData | None:
        return PaperData("data")

    def items(self, options: MetricValidityOptions) -> list[LabelledText]:
        loaded = load_domain(options.domain, options.data, creative=options.creative,
                             uncreative=options.uncreative)
        per_class = options.limit // 2 if options.limit else None
        return balanced_sample(loaded, per_class=per_class, seed=options.seed)

    def prompts(self, options: MetricValidityOptions) -> dict[str, str]:
        """The judge's rubric and the SNS concepts prompt; always recorded, so that adding
        ``judge`` or ``sns`` to ``--metrics`` later resumes the run."""
        from creval.benchmarks.metric_validity.judging import judge_template
        from creval.benchmarks.metric_validity.sns import concepts_template

        return {"judge_prompt": judge_template(options.domain, options.judge_prompt_file),
                "sns_prompt": concepts_template()}

    def units(self, options: MetricValidityOptions) -> list[Unit]:
        """Perplexity, judge and SNS units per text; a metric added later adds its units."""
        metrics = _metrics(options)
        items = self.items(options)
        units = [_ppl_unit(item, options) for item in items] if "ppl" in metrics else []
        if "judge" in metrics:
            from creval.benchmarks.metric_validity.judging import judge_template

            template = judge_template(options.domain, options.judge_prompt_file)
            units += [_judge_unit(item, options, template, r)
                      for r in range(options.judge_repeats) for item in items]
            if options.judge_flip:
                units += [_flip_unit(item, options) for item in items if item.text.strip()]
        if "sns" in metrics:
            units += [_sns_unit(item, options) for item in items]
        return units

    def score(self, records: list[Record], options: MetricValidityOptions) -> Scores:
        from creval.benchmarks.metric_validity.report import score_items

        return score_items(self.items(options), records, options, _metrics(options))

    def write_artifacts(self, scores: Scores, options: Any, out: Path) -> list[str]:
        from creval.benchmarks.metric_validity.plots import write_plots

        return write_plots(scores, out)


__all__ = ["MetricValidity", "MetricValidityOptions"]
