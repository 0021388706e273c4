"""TTCT-style creativity questions judged on a 1-5 rubric (seed 004): ``jcq`` and ``ttct``.

Each question is answered ``--answers`` times (default 5, temperature 1.0); each answer is
rated by a judge model on fluency, flexibility, originality and elaboration. Aggregation is
the upstream scorer's: per criterion, the mean over questions for each answer index, then
the mean and standard deviation across answer indices.

The judge is an instrument: when its backend can constrain decoding it is asked for a JSON
object with one integer 1-5 per criterion (``--no-structured-judge`` turns this off), which
is rendered back to ``Label: n`` lines for the same strict parser; each unit records
``judge_constrained`` and the notes count them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from creval._util.inputs import ITEM_DIGEST, item_digest
from creval.benchmarks.base import Benchmark, option, register_benchmark
from creval.benchmarks.common import format_prompt, load_prompt
from creval.benchmarks.repeats import (
    RepeatOptions,
    first_sample,
    judge_samples,
    repeat_key,
    repeat_meta,
)
from creval.benchmarks.ttct import declared
from creval.benchmarks.ttct.questions import (
    JCQ_URL,
    Question,
    balanced,
    download_path,
    load_questions,
)
from creval.benchmarks.ttct.scoring import score_rubric_records
from creval.judges.structured import as_text, render_rubric, rubric_schema
from creval.models.base import GenerateRequest
from creval.records import Scores
from creval.records.declarations import Items
from creval.records.references import (
    ItemValues,
    PaperData,
    PaperReferences,
    Published,
    PublishedItems,
)
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record

if TYPE_CHECKING:
    from creval.reader import Run


class RubricOptions(RepeatOptions):
    questions: str | None = option(
        None, "Questions JSONL (id, task, question), or 'upstream' for the public JCQ file; "
        "default: the starter set.",
    )
    answers: int = option(5, "Answers per question (the paper: 5).", ge=1)
    max_tokens: int = option(512, "Maximum tokens per answer.", ge=1)
    judge_prompt_file: str | None = option(
        None, "Your own rubric prompt with {question} and {answer} placeholders."
    )
    judge_max_tokens: int = option(64, "Maximum tokens of a judgement.", ge=1)
    structured_judge: bool = option(
        True, "Ask the judge for a JSON object of the four scores when its backend can constrain "
        "decoding (parsing stays strict; recorded per unit).",
    )
    parser: Literal["strict", "upstream"] = option(
        "strict",
        "strict: each criterion once, 1..5, else a recorded parse failure; upstream: the JCQ "
        "repository's regex (Japanese only).",
        kind="scoring",
    )


class RubricBenchmark(Benchmark[RubricOptions]):
    """Shared protocol of ``jcq`` and ``ttct``; subclasses set the language and files."""

    seed_paper = "004"
    Options = RubricOptions
    roles = ("target", "judge")
    lang: ClassVar[str]
    starter: ClassVar[tuple[str, str]]
    judge_prompt: ClassVar[str]
    sends_sampling = True
    request_options = {"answers": ("target", "n"), "judge_max_tokens": ("judge", "max_tokens")}
    option_effects = {"structured_judge": "judge_constrained"}

    def items_behind(self, measure: str, scores: Scores) -> Items | None:
        return declared.items_behind(measure, scores)

    def _questions(self, options: RubricOptions) -> list[Question]:
        return balanced(load_questions(options.questions, self.starter), options.limit)

    def _judge_template(self, options: RubricOptions) -> str:
        return load_prompt(self.judge_prompt, options.judge_prompt_file)

    def prompts(self, options: RubricOptions) -> dict[str, str]:
        return {"judge_prompt": self._judge_template(options)}

    def input_files(self, options: RubricOptions) -> dict[str, Path]:
        files = super().input_files(options)
        if (options.questions or "") in {"upstream", JCQ_URL}:  # the download the loader read
            files["questions"] = download_path(JCQ_URL)
        return files

    def units(self, options: RubricOptions) -> list[Unit]:
        template = self._judge_template(options)
        source = options.judge_prompt_file or self.judge_prompt
        return [self._unit(q, options, template, source, r) for q in self._questions(options)
                for r in range(options.repeats)]  # repeat 0: the unit of a run without repeats

    def _unit(
        self, q: Question, options: RubricOptions, template: str, source: str, repeat: int = 0
    ) -> Unit:
        ask = GenerateRequest.chat(
            q.question, temperature=options.temperature, max_tokens=options.max_tokens,
            seed=options.seed, n=options.answers,
        )

        async def run(ctx: UnitContext) -> dict[str, Any]:
            answers = [c.text for c in await ctx.generate(ask, first_sample=first_sample(repeat))]
            constrained = options.structured_judge and ctx.capabilities("judge").structured_output
            schema = rubric_schema(self.labels) if constrained else None
            verdicts: list[list[str]] = [[] for _ in judge_samples(repeat)]
            for answer in answers:
                prompt = format_prompt(template, source, question=q.question, answer=answer)
                judge = GenerateRequest.chat(
                    prompt, temperature=0.0, max_tokens=options.judge_max_tokens, seed=0,
                    response_schema=schema,
                )
                # a repeat asks the judge twice per answer, with judge seeds of its own
                for column, sample in zip(verdicts, judge_samples(repeat), strict=True):
                    (verdict,) = await ctx.generate(judge, role="judge", first_sample=sample)
                    column.append(as_text(verdict.text, render_rubric) if constrained else verdict.text)
            again = {"judgements_again": verdicts[1]} if len(verdicts) > 1 else {}
            return {"answers": answers, "judgements": verdicts[0], **again,
                    "judge_constrained": constrained}

        item = item_digest({"task": q.task, "question": q.question})  # the content, not the id
        meta = repeat_meta({"question_id": q.id, "task": q.task, ITEM_DIGEST: item}, repeat)
        return Unit(key=repeat_key(f"q-{q.id}", repeat), run=run, meta=meta)

    @property
    def labels(self) -> list[str]:
        """The criterion labels the judge prompt asks for (the JSON object's keys)."""
        from creval.judges.rubric import TTCT_CRITERIA_EN, TTCT_CRITERIA_JA

        criteria = TTCT_CRITERIA_JA if self.lang == "ja" else TTCT_CRITERIA_EN
        return [c.labels[0].capitalize() for c in criteria]

    def score(self, records: list[Record], options: RubricOptions) -> Scores:
        from creval.benchmarks.ttct.noise import rubric_noise

        scores = score_rubric_records(records, lang=self.lang, parser=options.parser)
        return rubric_noise(scores, records, lang=self.lang, parser=options.parser,
                            repeats=options.repeats)

    def published_references(self) -> list[PaperReferences]:
        from creval.benchmarks.ttct.published import references

        return references()

    def paper_data(self) -> PaperData | None:
        from creval.benchmarks.ttct.published import TTCT_DATA

        return TTCT_DATA

    def item_values(self, run: Run) -> ItemValues:
        from creval.benchmarks.ttct.published import run_values

        return run_values(run, self.lang)


@register_benchmark
class JCQ(RubricBenchmark):
    name = "jcq"
    battery_member = declared.JCQ_BATTERY
    sweep_pairing = declared.SWEEP
    answer_text = declared.JCQ_ANSWER_TEXT
    presets = {"paper": declared.JCQ_PAPER}
    description = "Japanese Creativity Questions: 7 TTCT tasks, answers judged 1-5 on 4 criteria."
    lang = "ja"
    starter = ("jcq", "questions_ja.jsonl")
    judge_prompt = "jcq_judge_ja"

    def paper_data(self) -> PaperData | None:
        from creval.benchmarks.ttct.published import JCQ_DATA

        return JCQ_DATA

    def published_items(self) -> PublishedItems | None:
        from creval.benchmarks.ttct.published import jcq_published_items

        return jcq_published_items()

    def read_published_items(self, run: Run, published: Path | None) -> tuple[list[Published], str | None]:
        from creval.benchmarks.ttct.published import read_jcq_published

        return read_jcq_published(run, published)


@register_benchmark
class TTCT(RubricBenchmark):
    name = "ttct"
    battery_member = declared.TTCT_BATTERY
    sweep_pairing = declared.SWEEP
    answer_text = declared.TTCT_ANSWER_TEXT
    presets = {"paper": declared.TTCT_PAPER}
    description = "English TTCT verbal tasks (7 tasks), answers judged 1-5 on 4 criteria."
    lang = "en"
    starter = ("ttct", "questions_en.jsonl")
    judge_prompt = "ttct_judge_en"
