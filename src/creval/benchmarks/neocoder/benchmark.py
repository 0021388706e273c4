"""The ``neocoder`` benchmark (seed 000): evaluate a model at every Denial Prompting state,
or build a new NeoCoder-style dataset with Denial Prompting (``--mode denial``).

Evaluation: one unit per (problem, state); the target model answers with the chosen
strategy, and the detector model (``--judge``, the paper's augmentation model; default the
target itself) names the techniques of each answer in a separate, context-free call. The
scorer runs every program in the sandbox and computes NeoGauge (:mod:`.scoring`).

Denial Prompting: one unit per problem running Algorithm 1 (:mod:`.denial`); the scorer
writes the result in the upstream format to ``dataset/`` in the run directory.
"""

from __future__ import annotations

import asyncio
import random
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from creval._util.inputs import ITEM_DIGEST, item_digest
from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.benchmarks.common import load_prompt
from creval.benchmarks.neocoder import declared
from creval.benchmarks.neocoder.data import NeoCoderDataset, load_neocoder, scored_with, states
from creval.errors import CrevalError
from creval.models.base import Completion, GenerateRequest, Message
from creval.records import Scores
from creval.records.declarations import Items
from creval.records.references import (
    DataSource,
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


class NeoCoderOptions(BenchmarkOptions):
    data: str | None = option(
        None, "NeoCoder data directory (NeoCoder.json and friends; `creval data fetch neocoder`); "
        "default: the offline starter set.", kind="scale",
    )
    mode: Literal["evaluate", "denial"] = option(
        "evaluate", "evaluate: answer every state; denial: build a dataset by Denial Prompting."
    )
    rounds: int = option(5, "Denial rounds T (mode denial).", ge=1)
    states: str | None = option(None, "Only these states, e.g. '0,1,2' (mode evaluate).", kind="scale")
    strategy: Literal["direct", "sampling", "self_correction", "planning", "mcts"] = option(
        "direct", "Reasoning strategy (section 5.3)."
    )
    k: int = option(5, "Samples per state for --strategy sampling; programs generated (the "
                    "search budget) for --strategy mcts.", ge=1)
    mcts_width: int = option(2, "Programs asked per tree expansion (--strategy mcts).", ge=1)
    mcts_lines: int = option(2, "Program lines per tree edge (--strategy mcts).", ge=1)
    mcts_c: float = option(1.0, "Exploration weight of P-UCB (--strategy mcts).", ge=0.0)
    correction_rounds: int = option(2, "Revisions for --strategy self_correction.", ge=1)
    detector: Literal["llm", "static", "both"] = option(
        "llm", "Technique detection: llm (the paper; asks --judge), static (AST, no model), or "
        "both (llm scores, agreement with static reported).",
    )
    temperature: float = option(1.0, "Sampling temperature (the paper: 1).", ge=0.0)
    max_tokens: int = option(1024, "Maximum tokens per answer.", ge=16)
    prompt_file: str | None = option(None, "Your own solve instructions (system message).")
    judge_compat: Literal["none", "neocoder"] = option(
        "none", "Correctness by creval's judge, or 'neocoder' for the repository judge's verdicts "
        "(bugs included) to match published numbers.", kind="scoring",
    )
    cpu_seconds: float = option(6.0, "CPU seconds per test.", kind="scoring", gt=0)
    float_tol: float | None = option(None, "Accept numbers within this abs/rel tolerance.", kind="scoring", ge=0)
    divergent_empty: Literal["zero", "exclude"] = option(
        "zero", "Solutions with no detected technique: divergent 0 (upstream) or left out.",
        kind="scoring",
    )


def starter_dir() -> Path:
    return Path(str(resources.files("creval") / "data" / "neocoder"))


@register_benchmark
class NeoCoder(Benchmark[NeoCoderOptions]):
    name = "neocoder"
    battery_member = declared.BATTERY
    sweep_pairing = declared.SWEEP

    def items_behind(self, measure: str, scores: Scores) -> Items | None:
        return declared.items_behind(measure, scores)
    answer_text = declared.ANSWER_TEXT
    presets = {"paper": declared.PAPER}
    description = "NeoCoder: Denial Prompting code problems scored by NeoGauge (convergent x divergent)."
    seed_paper = "000"
    Options = NeoCoderOptions
    roles = ("target", "judge")

    def published_references(self) -> list[PaperReferences]:
        from creval.benchmarks.neocoder.published import references

        return references()

    def paper_data(self) -> PaperData | None:
        from creval.benchmarks.neocoder.published import PAPER_DATA

        return PAPER_DATA

    def not_compared(self) -> dict[str, str]:
        from creval.benchmarks.neocoder.published import NOT_COMPARED

        return dict(NOT_COMPARED)

    def published_items(self) -> PublishedItems | None:
        from creval.benchmarks.neocoder.published import published_items

        return published_items()

    def item_values(self, run: Run) -> ItemValues:
        from creval.benchmarks.neocoder.published import run_values

        return run_values(run)

    def read_published_items(self, run: Run, published: Path | None) -> tuple[list[Published], str | None]:
        from creval.benchmarks.neocoder.published import read_published

        return read_published(run, published)

    def data_sources(self) -> list[DataSource]:
        from creval.benchmarks.neocoder.published import data_source

        return [data_source()]

    def _dataset(self, options: NeoCoderOptions) -> NeoCoderDataset:
        return load_neocoder(options.data or starter_dir())

    def _system(self, options: NeoCoderOptions) -> str:
        return load_prompt("neocoder_solve", options.prompt_file).strip()

    def prompts(self, options: NeoCoderOptions) -> dict[str, str]:
        return {"prompt": self._system(options)}

    def units(self, options: NeoCoderOptions) -> list[Unit]:
        dataset = self._dataset(options)
        problems = dataset.problems[: options.limit] if options.limit else dataset.problems
        if options.mode == "denial":
            return [self._denial_unit(p.problem_id, p.problem_statements[0], options) for p in problems]
        wanted = _parse_states(options.states)
        ids = {p.problem_id for p in problems}
        units = []
        for state in states(dataset):
            if state.problem_id not in ids or (wanted is not None and state.t not in wanted):
                continue
            meta = {"problem_id": state.problem_id, "round": state.round, "t": state.t,
                    "constraints": list(state.constraints),
                    ITEM_DIGEST: item_digest({"statement": state.statement,
                                              "constraints": list(state.constraints),
                                              **scored_with(dataset, state.problem_id)})}
            units.append(Unit(key=f"{state.problem_id}-r{state.round}",
                              run=self._evaluate_run(state.statement, state.problem_id, dataset, options),
                              meta=meta))
        if not units:
            raise CrevalError("No (problem, state) pair to evaluate: check --states and --limit.")
        return units

    # -- evaluation ---------------------------------------------------------------------------
    def _evaluate_run(self, statement: str, problem_id: str, dataset: NeoCoderDataset,
                      options: NeoCoderOptions) -> Any:
        from creval.benchmarks.neocoder.mcts import MctsSettings
        from creval.benchmarks.neocoder.strategies import Sampling, solve

        sampling = Sampling(temperature=options.temperature, max_tokens=options.max_tokens,
                            seed=options.seed, system=self._system(options))
        mcts = MctsSettings(rollouts=options.k, width=options.mcts_width, lines=options.mcts_lines,
                            c=options.mcts_c)

        async def run(ctx: UnitContext) -> dict[str, Any]:
            async def target(request: GenerateRequest) -> list[Completion]:
                return await ctx.generate(request, role="target")

            output = await solve(
                options.strategy, target, statement, sampling, k=options.k,
                rounds=options.correction_rounds, feedback=_feedback(dataset, problem_id),
                revise_template=load_prompt("neocoder_self_correct"),
                plan_template=load_prompt("neocoder_plan"),
                code_after_plan=load_prompt("neocoder_plan_code"),
                reward=_reward(dataset, problem_id), mcts=mcts,
                continue_template=load_prompt("neocoder_mcts_continue"),
            )
            if "search" in output:  # each judged program ran once per example test
                output["search"]["sandbox_runs"] = (output["search"]["programs_judged"]
                                                    * len(dataset.tests_for(problem_id)))
            if options.detector in ("llm", "both"):
                detected = [await _detect(ctx, answer, role="judge") for answer in output["answers"]]
                output["llm_techniques"] = [d["techniques"] for d in detected]
                output["detections"] = detected
            return output

        return run

    # -- denial prompting ---------------------------------------------------------------------
    def _denial_unit(self, problem_id: str, statement: str, options: NeoCoderOptions) -> Unit:
        from creval.benchmarks.neocoder.denial import denial_prompting

        system = self._system(options)

        async def run(ctx: UnitContext) -> dict[str, Any]:
            async def chat(messages: list[Message]) -> str:
                request = GenerateRequest(
                    messages=(Message(role="system", content=system), *messages),
                    temperature=options.temperature, max_tokens=options.max_tokens, seed=options.seed,
                )
                (c,) = await ctx.generate(request, role="target")
                return c.text

            async def detect(answer: str) -> list[str] | None:
                return (await _detect(ctx, answer, role="target"))["techniques"]

            result = await denial_prompting(
                statement, ask=lambda s: s, chat=chat, detect=detect, rounds=options.rounds,
                rng=random.Random(f"{options.seed}:{problem_id}"),
            )
            return {"rounds": [r.__dict__ for r in result.rounds]}

        return Unit(key=f"denial-{problem_id}", run=run, meta={"problem_id": problem_id})

    # -- scoring ------------------------------------------------------------------------------
    def score(self, records: list[Record], options: NeoCoderOptions) -> Scores:
        if options.mode == "denial":
            from creval.benchmarks.neocoder.denial_report import denial_scores

            return denial_scores(records, self._dataset(options))
        from creval.benchmarks.neocoder.scoring import ScoreSettings, score_items

        items = [{**r.unit, "answers": r.output["answers"],
                  "llm_techniques": r.output.get("llm_techniques")}
                 for r in records if r.status == "ok"]
        settings = ScoreSettings(detector=options.detector, judge_compat=options.judge_compat,
                                 cpu_seconds=options.cpu_seconds, float_tol=options.float_tol,
                                 empty=options.divergent_empty)
        scores = score_items(self._dataset(options), items, settings)
        detections = [d for r in records if r.status == "ok" for d in r.output.get("detections") or []]
        if detections:
            n = sum(bool(d.get("constrained")) for d in detections)
            scores.notes.append(
                f"Technique detection: {n} of {len(detections)} answers constrained to a JSON list "
                "of vocabulary names (parsing stays strict)." if n else
                "Technique detection: free text (not constrained to a JSON schema)."
            )
        return scores

    def write_artifacts(self, scores: Scores, options: NeoCoderOptions, out: Path) -> list[str]:
        if options.mode == "denial":
            from creval.benchmarks.neocoder.denial_report import write_dataset

            return write_dataset(scores, self._dataset(options), out)
        from creval.benchmarks.neocoder.plot import plot_states

        return plot_states(scores.extra("states", []), out)


def _parse_states(text: str | None) -> set[int] | None:
    """``"0,2-3"`` -> ``{0, 2, 3}``.

    >>> sorted(_parse_states("0,2-3"))
    [0, 2, 3]
    """
    if text is None:
        return None
    out: set[int] = set()
    try:
        for part in text.split(","):
            lo, _, hi = part.strip().partition("-")
            out.update(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise CrevalError(f"--states takes numbers and ranges like '0,2-3', got {text!r}.") from None
    return out


async def _detect(ctx: UnitContext, answer: str, *, role: str) -> dict[str, Any]:
    """The LLM detector on one answer's program: parsed techniques (None if unparsed)."""
    from creval.benchmarks.neocoder.extract import choose_block
    from creval.benchmarks.neocoder.techniques import detection_request, parse_techniques

    code = choose_block(answer) or answer
    # the detector is an instrument: it answers in its JSON shape when its backend can
    constrained = ctx.capabilities(role).structured_output
    (c,) = await ctx.generate(detection_request(code, constrained=constrained), role=role)
    parsed = parse_techniques(c.text)
    return {"techniques": list(parsed.techniques) if parsed.ok else None, "raw": c.text,
            "unknown": list(parsed.unknown), "constrained": constrained}


def _feedback(dataset: NeoCoderDataset, problem_id: str) -> Any:
    """Self-correction feedback: the first failing example test, judged in the sandbox."""
    from creval.benchmarks.neocoder.extract import extract_program
    from creval.benchmarks.neocoder.judge import judge_program

    async def feedback(answer: str) -> str | None:
        program = extract_program(answer)
        if program is None:
            return "No Python code block with a solve() function was found in your answer."
        tests = dataset.tests_for(problem_id)
        result = await asyncio.to_thread(judge_program, program, tests)
        if result.passed:
            return None
        for test, outcome in zip(tests, result.tests, strict=True):
            if outcome.verdict.value != "pass":
                return (f"Verdict: {outcome.verdict.value}\nInput:\n{test.stdin}\nExpected output:\n"
                        f"{test.expected}\nYour output:\n{outcome.stdout[:1000]}\n"
                        f"Errors:\n{outcome.stderr[-1000:]}")
        return None

    return feedback


def _reward(dataset: NeoCoderDataset, problem_id: str) -> Any:
    """The MCTS reward: the share of the example tests a program passes, judged in the sandbox."""
    from creval.benchmarks.neocoder.judge import judge_program

    async def reward(program: str) -> float:
        tests = dataset.tests_for(problem_id)
        result = await asyncio.to_thread(judge_program, program, tests)
        if not result.tests:
            return 0.0
        return sum(t.verdict.value == "pass" for t in result.tests) / len(result.tests)

    return reward
