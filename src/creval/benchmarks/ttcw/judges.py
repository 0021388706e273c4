"""``ttcw-judges``: how well a judge agrees with the experts of the Torrance Test of Creative
Writing (Chakrabarty et al., CHI 2024) on the 36 LLM-written stories they rated.

The run's judge answers each of the 14 tests (Yes/No, with the test's background) on each
story; its verdicts are scored against the three experts' majority and each expert
(accuracy and Cohen's kappa, overall, per test and per Torrance dimension, intervals from a
jackknife over stories), beside the experts' own agreement (Fleiss' kappa) and every
released LLM judge's verdicts (GPT-3.5, GPT-4, Gemini Pro, Claude 1.3/2/2.1/3 Opus) scored on
the same stories and tests. ``creval compare RUN --published`` tests the run's judge
against each released one, item by item.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from creval._util.inputs import ITEM_DIGEST, item_digest
from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.benchmarks.ttcw import declared
from creval.benchmarks.ttcw.data import (
    RELEASED_JUDGES,
    Story,
    TTCWData,
    TTCWTest,
    item_key,
    load_ttcw,
    starter_data,
)
from creval.errors import CrevalError
from creval.models.base import GenerateRequest
from creval.records import Scores
from creval.records.references import ItemValues, Published, PublishedItems
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record

if TYPE_CHECKING:
    from creval.reader import Run

#: ``wording`` -> what the judge is sent: our own wording (default), or the paper's template.
WORDINGS = ("creval", "published")


class TestsOptions(BenchmarkOptions):
    """What both TTCW benchmarks ask the judge: which tests, in which wording."""

    tests: str | None = option(None, "Comma-separated test numbers 1-14; default: all 14.",
                               kind="scale")
    wording: Literal["creval", "published"] = option(
        "creval", "The judge prompt: creval's own wording, or the paper's template "
        "(prompts/with_background.txt of the data folder).")
    prompt_file: str | None = option(
        None, "Your own judge prompt with {story}, {background} and {question}.")
    resamples: int = option(2000, "Unused: the intervals are now a jackknife over stories (kept so that "
                            "earlier commands still run).", ge=100,
                            kind="scoring")


class TTCWJudgeOptions(TestsOptions):
    data: str | None = option(
        None, "The TTCW folder (Art_or_Artifice of salesforce/creativity_eval: tests/, stories/, "
        "annotations/, data/); default: a starter set of two stories with our own verdicts "
        "(checks a set-up; not the experts).")
    stories: str | None = option(
        None, "Comma-separated story ids (0_GPT4) or writers (Claude, GPT3.5, GPT4); default: "
        "all 36 LLM-written stories.", kind="scale")
    temperature: float = option(0.0, "Sampling temperature of the judge.", ge=0.0)
    max_tokens: int = option(400, "Maximum tokens of the judge's answer.", ge=8)


def data_of(options: Any) -> TTCWData:
    """The paper's data with ``--data``, else our starter set (two stories, one rater: ours)."""
    return load_ttcw(str(options.data)) if options.data else starter_data(judged=True)


def judge_template(options: Any, data: TTCWData) -> str:
    """The judge prompt template with ``{story}``, ``{background}`` and ``{question}``."""
    from creval.benchmarks.common import load_prompt

    if options.prompt_file:
        return load_prompt("ttcw_judge", options.prompt_file)
    if options.wording == "published":
        text = data.published_prompt().replace("{", "{{").replace("}", "}}")
        return (text.replace("[STORY]", "{story}").replace("[BACKGROUND]", "{background}")
                .replace("[QUESTION]", "{question}"))
    return load_prompt("ttcw_judge")


def judge_request(template: str, story: str, test: TTCWTest, options: Any) -> GenerateRequest:
    from creval.benchmarks.common import format_prompt

    prompt = format_prompt(template, "the ttcw judge prompt", story=story.strip(),
                           background=test.full_prompt.strip(), question=test.question)
    return GenerateRequest.chat(prompt, temperature=options.temperature,
                                max_tokens=options.max_tokens, seed=options.seed)


def chosen_tests(data: TTCWData, spec: str | None) -> list[TTCWTest]:
    if not spec:
        return list(data.tests)
    known = {t.idx: t for t in data.tests}
    try:
        wanted = [int(x) for x in spec.split(",") if x.strip()]
    except ValueError:
        raise CrevalError(f"--tests takes test numbers 1-14 separated by commas, got {spec!r}.") from None
    bad = [w for w in wanted if w not in known]
    if bad or not wanted:
        raise CrevalError(f"--tests: no test {bad or spec!r}; the tests are numbered 1-14.")
    return [known[w] for w in sorted(set(wanted))]


def chosen_stories(stories: list[Story], spec: str | None, limit: int | None) -> list[Story]:
    if spec:
        names = [x.strip() for x in spec.split(",") if x.strip()]
        unknown = [n for n in names if not any(n in (s.story_id, s.source) for s in stories)]
        if unknown:
            have = sorted({s.source for s in stories})
            raise CrevalError(f"--stories: no story {', '.join(unknown)} (story ids such as "
                              f"{stories[0].story_id}, or writers: {', '.join(have)}).")
        stories = [s for s in stories if s.story_id in names or s.source in names]
    return stories[:limit] if limit else stories


@register_benchmark
class TTCWJudges(Benchmark[TTCWJudgeOptions]):
    name = "ttcw-judges"
    battery_member = declared.JUDGES_BATTERY
    description = ("TTCW judges vs experts: a judge's 14 Yes/No tests on 36 LLM stories against "
                   "3 experts (kappa, accuracy), beside 7 released LLM judges.")
    seed_paper = "-"
    Options = TTCWJudgeOptions
    #: The tested model (``--model``) is the judge under validation: the stories are not its
    #: own, so nothing here is self-judged.
    roles = ("target",)

    def not_compared(self) -> dict[str, str]:
        from creval.benchmarks.ttcw.published import NOT_COMPARED

        return dict(NOT_COMPARED)

    def published_items(self) -> PublishedItems | None:
        from creval.benchmarks.ttcw.published import published_items

        return published_items()

    def item_values(self, run: Run) -> ItemValues:
        from creval.benchmarks.ttcw.published import run_values

        return run_values(run)

    def read_published_items(self, run: Run, published: Path | None) -> tuple[list[Published], str | None]:
        from creval.benchmarks.ttcw.published import read_published

        return read_published(run, published)

    def plan_answer(self, options: TTCWJudgeOptions, role: str) -> str | None:
        return "Yes. The test is met."

    def prompts(self, options: TTCWJudgeOptions) -> dict[str, str]:
        if options.data is None:
            return {}
        return {"judge": judge_template(options, data_of(options))}

    def units(self, options: TTCWJudgeOptions) -> list[Unit]:
        data = data_of(options)
        template = judge_template(options, data)
        tests = chosen_tests(data, options.tests)
        units = []
        for story in chosen_stories(data.written_by_llms(), options.stories, options.limit):
            for test in tests:
                request = judge_request(template, story.content or "", test, options)

                async def run(ctx: UnitContext, request: GenerateRequest = request) -> dict[str, Any]:
                    (completion,) = await ctx.generate(request)  # the tested model is the judge
                    return {"text": completion.text, "finish_reason": completion.finish_reason}

                meta = {"story_id": story.story_id, "writer": story.source, "test": test.idx,
                        "dimension": test.dimension,
                        ITEM_DIGEST: item_digest({"story": story.content, "test": test.full_prompt})}
                units.append(Unit(key=item_key(story.story_id, test.idx), run=run, meta=meta))
        return units

    def score(self, records: list[Record], options: TTCWJudgeOptions) -> Scores:
        from creval.benchmarks.ttcw.scoring import score_judges

        return score_judges(records, options, data_of(options))


__all__ = ["RELEASED_JUDGES", "WORDINGS", "TTCWJudgeOptions", "TTCWJudges"]
