"""The JCQ / TTCT rubric judge as an Inspect ``@scorer``, aggregated as creval aggregates it.

The judge is Inspect's ``get_model(judge)``, else the model bound to the ``grader`` role
(``--model-role grader=PROVIDER/MODEL``), else the model under evaluation (creval's
default judge is the target model too). It gets creval's rubric prompt (or
``judge_prompt_file``) at temperature 0 with seed 0 and ``judge_max_tokens``, and its verdict
is parsed by creval's strict parser (or the upstream JCQ pattern with ``parser=upstream``):
a verdict that does not parse is a recorded parse failure with its raw text, never a score.

The metric is creval's: per criterion, the mean over questions for each answer index, then
the mean and sample deviation across answer indices
(:func:`~creval.metrics.rubric_agg.aggregate_rubric`, shaped by
:func:`~creval.benchmarks.ttct.scoring.rubric_scores`).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from creval.integrations.inspect.samples import options_of

NAN = float("nan")


@metric(scores="unreduced")
def rubric_summary() -> Metric:
    """creval's rubric headline: criterion means and deviations, overall mean, parse counts."""
    from creval.benchmarks.ttct.scoring import CRITERIA, rubric_scores
    from creval.metrics.rubric_agg import aggregate_rubric

    def compute(scores: list[SampleScore]) -> dict[str, float | int | None]:
        meta = [s.score.metadata or {} for s in scores]
        rows = [m["row"] for m in meta if m.get("row") is not None]
        failures = [m["failure"] for m in meta if m.get("failure") is not None]
        if not rows:
            return {"parsed": 0, "parse_failures": len(failures)}
        shaped = rubric_scores(aggregate_rubric(rows, criteria=CRITERIA), parsed=len(rows),
                               failures=failures, notes=[], lang="")
        return dict(shaped["headline"])

    return compute


@scorer(metrics=[rubric_summary()])
def rubric_scorer(benchmark: str, judge: str | None = None, **options: Any) -> Scorer:
    """Rate one answer of ``jcq`` or ``ttct`` on fluency, flexibility, originality, elaboration."""
    from creval._util.prompts import format_prompt
    from creval.benchmarks.base import get_benchmark
    from creval.benchmarks.ttct import RubricBenchmark, RubricOptions
    from creval.benchmarks.ttct.scoring import CRITERIA, judgement_rows
    from creval.records import Record

    bench = get_benchmark(benchmark)
    if not isinstance(bench, RubricBenchmark):
        raise TypeError(f"{benchmark} is not a rubric-judged benchmark (jcq, ttct).")
    opts = options_of(benchmark, options, RubricOptions)
    lang = bench.lang
    prompt_file: str | None = opts.judge_prompt_file
    source = prompt_file or bench.judge_prompt
    template = bench.prompts(opts)["judge_prompt"]  # the template creval run records
    parser: str = opts.parser
    answers: int = opts.answers
    max_tokens: int = opts.judge_max_tokens

    async def score(state: TaskState, target: Target) -> Score:
        from inspect_ai.model import GenerateConfig, get_model

        model = get_model(judge) if judge else get_model(role="grader")
        question = state.input_text
        answer = state.output.completion
        prompt = format_prompt(template, source, question=question, answer=answer)
        config = GenerateConfig(temperature=0.0, max_tokens=max_tokens, seed=0)
        verdict = (await model.generate(prompt, config=config)).completion
        creval_meta = state.metadata["creval"]
        # with --epochs, each epoch's answers are further answer indices of the question
        index = (state.epoch - 1) * answers + int(creval_meta["sample"])
        qid, task = state.metadata["question_id"], state.metadata["task"]
        # creval's own parsing of one judgement (strict, or the upstream pattern)
        record = Record(key=str(state.sample_id), status="ok", unit={"question_id": qid,
                        "task": task}, output={"judgements": [verdict]})
        rows, failures = judgement_rows([record], lang=lang, parser=parser)
        meta: dict[str, Any] = {"judge": str(model), "judgement": verdict, "row": None,
                                "failure": None}
        if failures:
            meta["failure"] = {**failures[0], "answer_index": index}
            return Score(value={c: NAN for c in CRITERIA}, answer=answer[:200],
                         explanation=f"unparsed judgement ({failures[0]['error']})",
                         metadata=meta)
        meta["row"] = {**rows[0], "answer_index": index}
        return Score(value={c: float(rows[0][c]) for c in CRITERIA}, answer=answer[:200],
                     explanation=verdict, metadata=meta)

    return score
