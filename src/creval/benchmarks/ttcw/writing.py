"""``ttcw``: the model writes a story for each plot; a judge applies the 14 TTCW tests.

With ``--data`` the plots are the paper's 12 New Yorker plots and each story is asked at the
length the paper's LLM stories of that plot have (the median of their three word counts: the
New Yorker originals, whose length the paper matched, are released as links only); without
it, three starter plots of our own. Reported: the pass rate (share of Yes) per test, per
Torrance dimension and overall, with 95% intervals over stories. The paper's
per-source pass rates (the experts' majority on the New Yorker stories and each LLM's) are
shown for orientation, never as comparable: an LLM judge is not the experts. With
``--judge-agreement RUN`` the report puts that ``ttcw-judges`` run's agreement with the
experts beside the pass rates, so a reader sees how far the judge can be trusted.
"""

from __future__ import annotations

import asyncio
import json
import statistics
from importlib import resources
from typing import Any

from creval._util.inputs import ITEM_DIGEST, item_digest
from creval.benchmarks.base import Benchmark, option, register_benchmark
from creval.benchmarks.ttcw import declared
from creval.benchmarks.ttcw.data import (
    DIMENSIONS,
    TTCWData,
    TTCWTest,
    load_ttcw,
    parse_verdict,
    starter_data,
)
from creval.benchmarks.ttcw.judges import (
    TestsOptions,
    chosen_tests,
    judge_request,
    judge_template,
)
from creval.models.base import GenerateRequest
from creval.records import Scores
from creval.records.references import DataSource, PaperReferences
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record


class TTCWOptions(TestsOptions):
    data: str | None = option(
        None, "The TTCW folder (Art_or_Artifice of salesforce/creativity_eval): the 12 New "
        "Yorker plots and the paper's tests; default: 3 starter plots and our own test wording.")
    temperature: float = option(1.0, "Sampling temperature of the story.", ge=0.0)
    max_tokens: int = option(3000, "Maximum tokens of the story.", ge=16)
    words: int | None = option(
        None, "Target length in words; default: the paper's (per plot) or 600 for the starter "
        "plots.", ge=20)
    judge_temperature: float = option(0.0, "Sampling temperature of the judge.", ge=0.0)
    judge_max_tokens: int = option(400, "Maximum tokens of the judge's answer.", ge=8)
    judge_agreement: str | None = option(
        None, "A ttcw-judges run of the same judge: its agreement with the experts is shown "
        "beside the pass rates.", kind="scoring")


def _plots(options: TTCWOptions) -> list[dict[str, Any]]:
    if options.data:
        data = load_ttcw(options.data)
        lengths: dict[int, list[int]] = {}
        for s in data.written_by_llms():
            lengths.setdefault(s.plot_idx, []).append(len((s.content or "").split()))
        plots = [{"id": f"plot-{s.plot_idx:02d}", "name": s.name, "plot": s.plot,
                  "words": int(statistics.median(lengths.get(s.plot_idx, [1500])))}
                 for s in data.plots()]
    else:
        text = (resources.files("creval") / "data" / "ttcw" / "starter_plots.json").read_text("utf-8")
        plots = list(json.loads(text)["plots"])
    return plots[: options.limit] if options.limit else plots


def _tests(options: TTCWOptions) -> tuple[list[TTCWTest], str]:
    """The tests and the judge template: the paper's with ``--data``, else our own wording."""
    data = _data(options)
    return chosen_tests(data, options.tests), judge_template(options, data)


def _data(options: TTCWOptions) -> TTCWData:
    return load_ttcw(options.data) if options.data else starter_data()


@register_benchmark
class TTCW(Benchmark[TTCWOptions]):
    name = "ttcw"
    battery_member = declared.WRITING_BATTERY
    description = ("TTCW: the model writes a story per plot (12 New Yorker plots), a judge "
                   "applies 14 Yes/No tests; pass rates per test and Torrance dimension.")
    seed_paper = "-"
    Options = TTCWOptions
    roles = ("target", "judge")

    def published_references(self) -> list[PaperReferences]:
        from creval.benchmarks.ttcw.published import references

        return references()

    def not_compared(self) -> dict[str, str]:
        from creval.benchmarks.ttcw.published import WRITING_NOT_COMPARED

        return dict(WRITING_NOT_COMPARED)

    def data_sources(self) -> list[DataSource]:
        from creval.benchmarks.ttcw.published import data_source

        return [data_source()]

    def plan_answer(self, options: TTCWOptions, role: str) -> str | None:
        return "Yes. The test is met." if role == "judge" else None

    def prompts(self, options: TTCWOptions) -> dict[str, str]:
        from creval.benchmarks.common import load_prompt

        return {"prompt": load_prompt("ttcw_write"), "judge": _tests(options)[1]}

    def units(self, options: TTCWOptions) -> list[Unit]:
        from creval.benchmarks.common import format_prompt, load_prompt

        tests, template = _tests(options)
        write = load_prompt("ttcw_write")
        judging = options.model_copy(update={"temperature": options.judge_temperature,
                                             "max_tokens": options.judge_max_tokens})
        units = []
        for plot in _plots(options):
            words = options.words or int(plot["words"])
            request = GenerateRequest.chat(
                format_prompt(write, "the ttcw story prompt", plot=plot["plot"], words=str(words)),
                temperature=options.temperature, max_tokens=options.max_tokens, seed=options.seed)

            async def run(ctx: UnitContext, request: GenerateRequest = request) -> dict[str, Any]:
                (story,) = await ctx.generate(request)
                asks = [judge_request(template, story.text, t, judging) for t in tests]
                answers = await asyncio.gather(*(ctx.generate(a, role="judge") for a in asks))
                return {"story": story.text, "finish_reason": story.finish_reason,
                        "answers": {str(t.idx): a[0].text for t, a in zip(tests, answers, strict=True)}}

            meta = {"plot_id": plot["id"], "words": words,
                    ITEM_DIGEST: item_digest({"plot": plot["plot"], "words": words})}
            units.append(Unit(key=str(plot["id"]), run=run, meta=meta))
        return units

    def score(self, records: list[Record], options: TTCWOptions) -> Scores:
        from creval.benchmarks.ttcw.pass_rates import score_pass_rates

        data = _data(options)
        verdicts = {(r.key, int(t)): parse_verdict(str(text)) for r in records if r.status == "ok"
                    for t, text in r.output.get("answers", {}).items()}
        judge = sorted({str(c.get("model")) for r in records for c in r.calls
                        if c.get("role") == "judge"})
        return score_pass_rates(verdicts, data, options, judge)


__all__ = ["DIMENSIONS", "TTCW", "TTCWOptions"]
