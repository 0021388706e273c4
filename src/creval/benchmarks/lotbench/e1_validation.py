"""``lotbench-e1``: how well a model judges DAESO (seed 003, section 7.2).

The model under test (``--model``) plays E1 on a labelled validation file: each line
``{"id", "sample_id", "fill", "daeso": true|false}`` names a LoTbench sample and a fill of
its key text, labelled by a person. The three settings of section 7.2 are ``--e1-mode``
``zeroshot`` (R and R_t only), ``zeroshot-context`` (with C and Exp) and ``causal``.
Accuracy counts an unparsable verdict as wrong; Cohen's kappa is over the parsed verdicts.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.benchmarks.common import load_prompt, parse_jsonl
from creval.benchmarks.lotbench.data import Sample, load_samples
from creval.benchmarks.lotbench.evaluators import CHAIN_PROMPT, E1_PROMPTS, DaesoJudge, usage_dict
from creval.errors import CrevalError
from creval.models.base import Completion, GenerateRequest
from creval.records import Scores
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record

STARTER_LABELS = "e1_labels_en.jsonl"


class Label(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str | int
    sample_id: str | int
    fill: str = Field(min_length=1)
    daeso: bool


class E1Options(BenchmarkOptions):
    labels: str | None = option(None, "Labelled DAESO pairs JSONL (id, sample_id, fill, daeso); default: our starter labels.")
    samples: str | None = option(None, "Samples JSONL the labels refer to; default: our starter set.")
    e1_mode: Literal["causal", "zeroshot", "zeroshot-context"] = option("causal", "E1 setting.")
    e1_prompt_file: str | None = option(None, "Your own E1 verdict prompt for the chosen --e1-mode.")
    e1_chain_prompt_file: str | None = option(None, "Your own E1 causal-analysis prompt (causal mode).")
    max_tokens: int = option(256, "Maximum tokens of an analysis or verdict.", ge=8)


def load_labels(path: str | None, samples: dict[str, Sample]) -> list[Label]:
    if path is None:
        text = (resources.files("creval") / "data" / "lotbench" / STARTER_LABELS).read_text("utf-8")
        source = f"starter labels {STARTER_LABELS}"
    else:
        file = Path(path)
        if not file.is_file():
            raise CrevalError(f"Labels file {file} does not exist. Pass a JSONL file to --labels.")
        text, source = file.read_text(encoding="utf-8"), str(file)

    def check(label: Label) -> str | None:
        if str(label.sample_id) not in samples:
            return f"sample_id {label.sample_id!r} is not in the samples file (pass --samples)."
        return None

    return parse_jsonl(text.splitlines(), Label, source,
                       example="id, sample_id, fill and daeso (true/false)", check=check)


@register_benchmark
class LoTbenchE1(Benchmark[E1Options]):
    name = "lotbench-e1"
    description = "LoTbench E1 validation: DAESO verdicts of --model against labelled pairs (accuracy, kappa)."
    seed_paper = "003"
    Options = E1Options

    def prompts(self, options: E1Options) -> dict[str, str]:
        prompts = {"prompt": load_prompt(E1_PROMPTS[options.e1_mode], options.e1_prompt_file)}
        if options.e1_mode == "causal":
            prompts["e1_chain_prompt"] = load_prompt(CHAIN_PROMPT, options.e1_chain_prompt_file)
        return prompts

    def units(self, options: E1Options) -> list[Unit]:
        samples = {s.id: s for s in load_samples(options.samples)}
        labels = load_labels(options.labels, samples)
        labels = labels[: options.limit] if options.limit else labels
        units = []
        for label in labels:
            sample = samples[str(label.sample_id)]

            async def run(ctx: UnitContext, sample: Sample = sample, fill: str = label.fill) -> dict[str, Any]:
                async def model(request: GenerateRequest) -> list[Completion]:
                    return await ctx.generate(request, role="target")

                judge = DaesoJudge(model, mode=options.e1_mode, prompt_file=options.e1_prompt_file,
                                   chain_prompt_file=options.e1_chain_prompt_file,
                                   max_tokens=options.max_tokens,
                                   structured=ctx.capabilities("target").structured_output)
                verdict = await judge.evaluate(sample, fill)
                return {"daeso": verdict.daeso, "raw": verdict.raw, "error": verdict.error,
                        "constrained": judge.structured,
                        "analysis": judge.analyses.get(sample.id), "usage": usage_dict(judge.ledger)}

            meta = {"id": str(label.id), "sample_id": sample.id, "fill": label.fill, "label": label.daeso}
            units.append(Unit(key=f"e1-{label.id}", run=run, meta=meta))
        return units

    def score(self, records: list[Record], options: E1Options) -> Scores:
        from creval.metrics.agreement import cohen_kappa

        ok = [r for r in records if r.status == "ok"]
        parsed = [r for r in ok if r.output.get("daeso") is not None]
        right = sum(r.output["daeso"] == r.unit["label"] for r in parsed)
        kappa = None
        if len(parsed) >= 2:
            k = cohen_kappa([r.unit["label"] for r in parsed], [r.output["daeso"] for r in parsed])
            kappa = k.kappa
        positives = sum(bool(r.unit["label"]) for r in ok)
        majority = max(positives, len(ok) - positives) / len(ok) if ok else None
        return Scores(
            headline={"accuracy": right / len(ok) if ok else None, "kappa": kappa,
                      "pairs": len(ok), "parse_failures": len(ok) - len(parsed),
                      "majority_baseline": majority},
            sections=[{"title": "Verdicts against the labels", "rows": _confusion(ok)}],
            table=[{"key": r.key, "sample": r.unit["sample_id"], "fill": r.unit["fill"],
                    "label": r.unit["label"], "verdict": r.output.get("daeso")} for r in ok],
            notes=[f"E1 setting: {options.e1_mode}. Accuracy counts unparsable verdicts as "
                   "wrong; kappa is over parsed verdicts; majority_baseline always answers "
                   "the more frequent label."],
        )


def _confusion(records: list[Record]) -> list[dict[str, Any]]:
    """One row per label: how many pairs E1 judged DAESO, NOT DAESO, or unparsably."""
    names = {True: "DAESO", False: "NOT DAESO", None: "unparsable"}
    rows = []
    for label in (True, False):
        row: dict[str, Any] = {"label": names[label]}
        for verdict in (True, False, None):
            row[names[verdict]] = sum(
                r.unit["label"] is label and r.output.get("daeso") is verdict for r in records)
        rows.append(row)
    return rows
