"""The ``macgyver``, ``hypogen`` and ``bookmia`` benchmarks (seed 001).

Each problem is one unit: the step-wise protocol (:mod:`.stepwise`) builds a solution while
sampling ``n`` candidates per step, then the chosen judges rate the final solution. Semantic
entropy, the diversity baselines and the judge summaries are computed by the scorer
(:mod:`.scoring`), so a different entailment backend or partition mode re-scores a finished
run without calling the model again.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Literal

from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.benchmarks.common import load_prompt
from creval.benchmarks.openended import declared
from creval.benchmarks.openended.stepwise import StepSettings, solve_stepwise
from creval.errors import CrevalError
from creval.models.base import Capabilities, Completion, GenerateRequest
from creval.records import Scores
from creval.records.references import DataSource, PaperData, PaperReferences
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record

#: The built-in judges (more can be registered: creval.judges.registry).
JUDGES = ("multiagent", "chateval", "oneshot", "cot", "fewshot", "fewshot_cot")


def parse_judges(text: str) -> list[str]:
    """``"multiagent, chateval"`` -> ``["multiagent", "chateval"]``; ``"none"`` -> ``[]``.

    >>> parse_judges("multiagent, cot")
    ['multiagent', 'cot']
    """
    names = [j.strip() for j in text.split(",") if j.strip()]
    if names == ["none"]:
        return []
    from creval.judges.registry import judge_names

    unknown = sorted(set(names) - set(judge_names()))
    if unknown or not names:
        raise CrevalError(
            f"--judges: unknown judge(s) {', '.join(unknown) or '(empty)'}; choose from "
            f"{', '.join(judge_names())} or none."
        )
    return names


class OpenEndedOptions(BenchmarkOptions):
    source: str | None = option(
        None, "Problems: a local file (JSONL; MacGyver also .xlsx/.csv), 'hf' for the Hugging "
        "Face dataset (online), or omit for the offline starter set.", kind="scale",
    )
    subset: str | None = option(
        None, "MacGyver only: 'paper300' = the paper's 300 problems (seed-42 order).", kind="scale"
    )
    n: int = option(10, "Candidate next steps sampled per step.", ge=2)
    temperature: float = option(1.0, "Sampling temperature of the candidates.", ge=0.0)
    top_p: float = option(0.9, "Nucleus (top-p) of the candidates.", gt=0.0, le=1.0)
    max_steps: int = option(10, "Maximum steps of a solution.", ge=1)
    step_max_tokens: int = option(96, "Maximum tokens of one step.", ge=8)
    judge_max_tokens: int = option(512, "Maximum tokens of a judge's answer.", ge=16)
    continuation: Literal["greedy", "highest_probability"] = option(
        "greedy", "How the solution is extended: a greedy answer (paper) or the most probable "
        "sampled candidate (upstream code).",
    )
    finish: Literal["greedy", "majority"] = option(
        "greedy", "When a solution is finished: the continuation says DONE (default) or at "
        "least half the candidates do (upstream).",
    )
    logprob_source: Literal["model", "sampling"] = option(
        "model", "Log-probabilities of the candidates: the model's own distribution (Eq. 1) or "
        "the distribution sampled (after temperature and top-p), where the backend gives it.",
    )
    judges: str = option(
        "multiagent", f"Comma-separated judges of the final solution ({', '.join(JUDGES)}) or 'none'."
    )
    judge_embedder: str = option("minilm", "Embedder of the multi-agent judge's fragment store.")
    judge_threshold: float = option(
        0.5, "Multi-agent judge: mean analyst confidence that ends a criterion's discussion (T).",
        ge=0.0, le=1.0,
    )
    judge_k: int = option(5, "Multi-agent judge: fragments retrieved per discussion turn (k).", ge=1)
    judge_j: int = option(4, "Multi-agent judge: fragments retrieved per confidence score (j).", ge=1)
    judge_l: int = option(8, "Multi-agent judge: fragments retrieved for the verdict (l).", ge=1)
    judge_rounds: int = option(2, "Multi-agent judge: maximum discussion rounds per criterion.", ge=1)
    structured_judges: bool = option(
        True, "Ask the judges for their answer's JSON shape when the judge model's backend can "
        "constrain decoding (parsing stays strict; recorded per verdict).",
    )
    prompt_file: str | None = option(None, "Your own step prompt ({steps}, {step}, {max_steps} and the problem fields).")
    entailment: str = option(
        "auto", "Entailment for clustering: hf:MODEL, llm (the judge model is not called at "
        "scoring time, so llm needs a recorded run), embedding:THRESHOLD, or auto (the paper's "
        "default NLI model if it loads, else the labelled embedding fallback).",
        kind="scoring",
    )
    partition_mode: Literal["strict", "lenient"] = option(
        "strict", "Bidirectional entailment: strict (entailment both ways) or lenient.", kind="scoring"
    )
    entailment_lookup: Literal["lazy", "both"] = option(
        "lazy", "lazy: ask a pair's second entailment direction only when the first leaves it "
        "open (the same classes, about 0.33 instead of 0.57 of the n(n-1) calls); both: both "
        "directions of every pair, as the papers' code.", kind="scoring"
    )
    diversity_embedder: str = option("minilm", "Embedder of the pairwise-cosine baseline.", kind="scoring")
    single_candidate: Literal["zero", "drop"] = option(
        "zero", "A step with one valid candidate: entropy 0 (one class) or left out (drop).",
        kind="scoring",
    )


class OpenEndedBenchmark(Benchmark[OpenEndedOptions]):
    """Shared by the three domains; subclasses set ``domain`` and ``name``."""

    domain: ClassVar[str]
    seed_paper = "001"
    Options = OpenEndedOptions
    roles = ("target", "judge")
    renamed_options: ClassVar[dict[str, str]] = {
        "max_tokens": "use --step-max-tokens for the model's steps and --judge-max-tokens for "
        "the judge's answer.",
    }

    def published_references(self) -> list[PaperReferences]:
        from creval.benchmarks.openended.published import references

        return references()

    def paper_data(self) -> PaperData | None:
        from creval.benchmarks.openended.published import PAPER_DATA

        return PAPER_DATA.get(self.domain)

    def data_sources(self) -> list[DataSource]:
        from creval.benchmarks.openended.published import DATA_SOURCES

        return [DATA_SOURCES[self.domain]] if self.domain in DATA_SOURCES else []

    def _template(self, options: OpenEndedOptions) -> str:
        return load_prompt(f"openended_step_{self.domain}", options.prompt_file)

    def _problems(self, options: OpenEndedOptions) -> list[Any]:
        from creval.benchmarks.openended.data import load_problems

        if options.subset and self.domain != "macgyver":
            raise CrevalError("--subset applies to macgyver only.")
        return load_problems(self.domain, options.source, subset=options.subset, limit=options.limit)

    def _judges(self, options: OpenEndedOptions) -> list[str]:
        return parse_judges(options.judges)

    def prompts(self, options: OpenEndedOptions) -> dict[str, str]:
        return {"prompt": self._template(options)}

    def units(self, options: OpenEndedOptions) -> list[Unit]:
        template = self._template(options)
        source = options.prompt_file or f"openended_step_{self.domain}"
        judges = self._judges(options)
        settings = StepSettings(
            n=options.n, temperature=options.temperature, top_p=options.top_p,
            max_steps=options.max_steps, step_max_tokens=options.step_max_tokens,
            continuation=options.continuation, finish=options.finish, seed=options.seed,
            logprob_source=options.logprob_source,
        )
        units = []
        for problem in self._problems(options):
            fields = problem.prompt_fields()
            meta = {"id": problem.id, "domain": self.domain, "fields": fields}

            async def run(ctx: UnitContext, fields: dict[str, str] = fields,
                          problem: Any = problem) -> dict[str, Any]:
                async def target(request: GenerateRequest) -> list[Completion]:
                    return await ctx.generate(request, role="target")

                caps = ctx.capabilities("target")
                chosen = dataclasses.replace(settings, logprobs=caps.logprobs)
                output = await solve_stepwise(target, template, source, fields, chosen)
                output["logprobs"] = logprob_label(output, caps, settings.logprob_source)
                output["verdicts"] = await self._judge(ctx, problem, output, judges, options)
                return output

            units.append(Unit(key=f"{self.domain}-{problem.id}", run=run, meta=meta))
        return units

    async def _judge(
        self, ctx: UnitContext, problem: Any, output: dict[str, Any], judges: list[str],
        options: OpenEndedOptions,
    ) -> dict[str, Any]:
        from creval.benchmarks.openended.judging import judge_solution

        solution = problem.full_solution(output["solution_steps"])
        if not judges or not solution.strip():
            return {}

        async def judge_model(request: GenerateRequest) -> list[Completion]:
            return await ctx.generate(request, role="judge")

        structured = options.structured_judges and ctx.capabilities("judge").structured_output
        return await judge_solution(
            judges, judge_model, problem=problem.judge_text(), solution=solution,
            domain=self.domain, embedder=options.judge_embedder, max_tokens=options.judge_max_tokens,
            structured=structured, threshold=options.judge_threshold, k_discussion=options.judge_k,
            j_confidence=options.judge_j, l_verdict=options.judge_l, max_rounds=options.judge_rounds,
        )

    def score(self, records: list[Record], options: OpenEndedOptions) -> Scores:
        from creval.benchmarks.openended.scoring import score_openended

        scores = score_openended(records, options, domain=self.domain)
        return scores.model_copy(update={"notes": [*scores.notes, constrained_judges_note(records)]})


def constrained_judges_note(records: list[Record]) -> str:
    """A notes line: how many judge verdicts were constrained to their JSON schemas.

    >>> r = Record(key="a", status="ok", output={"verdicts": {"multiagent": {"constrained": True}}})
    >>> constrained_judges_note([r])
    'Judge answers: constrained to JSON schemas in 1 of 1 verdicts (parsing stays strict).'
    """
    verdicts = [v for r in records if r.status == "ok"
                for v in (r.output.get("verdicts") or {}).values()]  # fmt: skip
    n = sum(bool(v.get("constrained")) for v in verdicts)
    if n == 0:
        return "Judge answers: free text (not constrained to a JSON schema)."
    return (f"Judge answers: constrained to JSON schemas in {n} of {len(verdicts)} verdicts "
            "(parsing stays strict).")


def logprob_label(output: dict[str, Any], caps: Capabilities,
                  requested: Literal["model", "sampling"] = "model") -> str:
    """Which log-probabilities the step candidates actually came back with: ``sampling``
    (asked for and honoured), ``model``, ``partial`` (some candidates had none) or ``none``.

    >>> out = {"steps": [{"candidates": [{"has_logprobs": True}, {"has_logprobs": False}]}]}
    >>> logprob_label(out, Capabilities(logprobs=True))
    'partial'
    """
    returned = [c.get("has_logprobs", False) for s in output["steps"] for c in s["candidates"]]
    if not any(returned):
        return "none"
    if not all(returned):
        return "partial"
    return "sampling" if requested == "sampling" and caps.sampling_logprobs else "model"


@register_benchmark
class MacGyver(OpenEndedBenchmark):
    name = "macgyver"
    battery_member = declared.MACGYVER_BATTERY
    sweep_pairing = declared.SWEEP
    answer_text = declared.MACGYVER_ANSWER_TEXT
    presets = {"paper": declared.MACGYVER_PAPER}
    domain = "macgyver"
    description = "MacGyver: unconventional physical problem solving (step-wise semantic entropy + multi-agent judge)."


@register_benchmark
class HypoGen(OpenEndedBenchmark):
    name = "hypogen"
    battery_member = declared.HYPOGEN_BATTERY
    sweep_pairing = declared.SWEEP
    answer_text = declared.HYPOGEN_ANSWER_TEXT
    presets = {"paper": declared.HYPOGEN_PAPER}
    domain = "hypogen"
    description = "HypoGen: reasoning from a bit to a flip (step-wise semantic entropy + multi-agent judge)."


@register_benchmark
class BookMIA(OpenEndedBenchmark):
    name = "bookmia"
    battery_member = declared.BOOKMIA_BATTERY
    sweep_pairing = declared.SWEEP
    answer_text = declared.BOOKMIA_ANSWER_TEXT
    presets = {"paper": declared.BOOKMIA_PAPER}
    domain = "bookmia"
    description = "BookMIA: a story between given first and last sentences (semantic entropy + judge)."
