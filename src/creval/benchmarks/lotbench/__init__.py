"""LoTbench (seed 003, section 5): ``lotbench`` and ``lotbench-e1``.

``lotbench``: one unit per sample and repeat plays the interactive game of
:mod:`.game` (the tested model fills and asks; E1 judges DAESO and E2 answers, each on its own
model role, ``--e1 SPEC`` and ``--e2 SPEC``, falling back to ``--judge`` then the tested
model) and records its transcript; the scorer computes S_c (Eq. 8) with a bootstrap
interval and the round histogram. ``lotbench-e1``: E1 itself is the model under test,
against a file of labelled DAESO pairs (accuracy and Cohen's kappa).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.benchmarks.common import load_prompt
from creval.benchmarks.lotbench import declared
from creval.benchmarks.lotbench.data import image_data_url, load_samples
from creval.benchmarks.lotbench.evaluators import CHAIN_PROMPT, E1_PROMPTS, E2_PROMPT
from creval.benchmarks.lotbench.game import GameSettings, Templates, play_game
from creval.models.base import Completion, GenerateRequest
from creval.records import Scores
from creval.records.references import PaperData, PaperReferences, packaged_references
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record

E1ModeOption = Literal["causal", "zeroshot", "zeroshot-context"]


class LoTbenchOptions(BenchmarkOptions):
    samples: str | None = option(None, "Samples JSONL (see the lotbench data format); default: our starter set.")
    repeats: int = option(3, "Games per sample (m in Eq. 8).", ge=1, kind="scale")
    max_rounds: int = option(10, "Rounds before a game ends unsolved.", ge=1)
    clue_every: int = option(5, "A substantive clue after every N-th failed round.", ge=1)
    temperature: float = option(1.0, "Sampling temperature of the tested model.", ge=0.0)
    max_tokens: int = option(32, "Maximum tokens of a fill or a question.", ge=1)
    judge_max_tokens: int = option(256, "Maximum tokens of an E1 analysis or verdict (E2: at most 128).", ge=8)
    e1_mode: E1ModeOption = option("causal", "E1: causal (the paper), zeroshot, or zeroshot-context.")
    e1_prompt_file: str | None = option(None, "Your own E1 verdict prompt for the chosen --e1-mode.")
    e1_chain_prompt_file: str | None = option(None, "Your own E1 causal-analysis prompt (causal mode; {caption}, {response}, {key}, {explanation}, ...).")
    e2_prompt_file: str | None = option(None, "Your own E2 prompt ({question}, {response}, {key}, ...).")
    fill_prompt_file: str | None = option(None, "Your own fill prompt ({input}, {caption}, {masked}, {history}, {round}).")
    ask_prompt_file: str | None = option(None, "Your own question prompt ({input}, {caption}, {masked}, {history}, {round}, {fill}).")
    alpha: float = option(0.2, "alpha of S_c.", gt=0.0, kind="scoring")
    beta: float = option(1.0, "beta of S_c.", gt=0.0, kind="scoring")
    unsolved: float = option(0.0, "Score of a game unsolved within --max-rounds.", ge=0.0, kind="scoring")
    confidence: float = option(0.95, "Confidence of the bootstrap interval of S_c.", gt=0.0, lt=1.0, kind="scoring")
    leaderboard: str | None = option(None, "Leaderboard JSON ({records: [{title, score, type}]}) to place the run on.", kind="scoring")


@register_benchmark
class LoTbench(Benchmark[LoTbenchOptions]):
    name = "lotbench"
    battery_member = declared.BATTERY
    answer_text = declared.ANSWER_TEXT
    presets = {"paper": declared.PAPER}
    description = "LoTbench: rounds of fill / judge (DAESO) / ask until the model recreates a human joke (S_c)."
    seed_paper = "003"
    Options = LoTbenchOptions
    roles = ("target",)

    def published_references(self) -> list[PaperReferences]:
        return [packaged_references("seed003-lotbench.json")]

    def paper_data(self) -> PaperData | None:
        return PaperData("samples")

    def not_compared(self) -> dict[str, str]:
        return {"confidence": "the level of the interval shown beside S_c, not S_c",
                "leaderboard": "a leaderboard the report shows the run on, not how S_c is measured"}
    extra_roles = {"e1": "evaluator E1: judges whether a fill is DAESO with the human response",
                   "e2": "evaluator E2: answers the tested model's yes/no questions"}

    def _templates(self, o: LoTbenchOptions) -> Templates:
        return Templates(
            fill=(load_prompt("lotbench_fill", o.fill_prompt_file), o.fill_prompt_file or "lotbench_fill"),
            ask=(load_prompt("lotbench_ask", o.ask_prompt_file), o.ask_prompt_file or "lotbench_ask"),
        )

    def prompts(self, options: LoTbenchOptions) -> dict[str, str]:
        t = self._templates(options)
        prompts = {"prompt": t.fill[0], "ask_prompt": t.ask[0],
                   "e1_prompt": load_prompt(E1_PROMPTS[options.e1_mode], options.e1_prompt_file),
                   "e2_prompt": load_prompt(E2_PROMPT, options.e2_prompt_file)}
        if options.e1_mode == "causal":
            prompts["e1_chain_prompt"] = load_prompt(CHAIN_PROMPT, options.e1_chain_prompt_file)
        return prompts

    def units(self, options: LoTbenchOptions) -> list[Unit]:
        samples = load_samples(options.samples)
        samples = samples[: options.limit] if options.limit else samples
        templates = self._templates(options)
        units = []
        for sample in samples:
            for repeat in range(options.repeats):
                settings = GameSettings(
                    max_rounds=options.max_rounds, clue_every=options.clue_every,
                    temperature=options.temperature, max_tokens=options.max_tokens,
                    seed=options.seed + repeat, e1_mode=options.e1_mode,
                    e1_prompt_file=options.e1_prompt_file, e2_prompt_file=options.e2_prompt_file,
                    e1_chain_prompt_file=options.e1_chain_prompt_file,
                    judge_max_tokens=options.judge_max_tokens,
                )

                async def run(ctx: UnitContext, sample: Any = sample, settings: GameSettings = settings) -> dict[str, Any]:
                    async def tested(request: GenerateRequest) -> list[Completion]:
                        return await ctx.generate(request, role="target")

                    async def e1(request: GenerateRequest) -> list[Completion]:
                        return await ctx.generate(request, role="e1")

                    async def e2(request: GenerateRequest) -> list[Completion]:
                        return await ctx.generate(request, role="e2")

                    image_url = None
                    if sample.image:
                        if not ctx.capabilities("target").images:
                            return {"sample_id": sample.id, "skipped": "image sample, and the "
                                    "tested model is text-only"}
                        image_url = image_data_url(sample.image)
                    return await play_game(
                        sample, settings, templates, tested=tested, e1=e1, e2=e2,
                        image_url=image_url,
                        structured=ctx.capabilities("e1").structured_output,
                        e2_structured=ctx.capabilities("e2").structured_output)

                meta = {"sample_id": sample.id, "repeat": repeat}
                units.append(Unit(key=f"lotbench-{sample.id}-r{repeat}", run=run, meta=meta))
        return units

    def score(self, records: list[Record], options: LoTbenchOptions) -> Scores:
        from creval.benchmarks.lotbench.scoring import score_lotbench

        return score_lotbench(records, options)

    def write_artifacts(self, scores: Scores, options: Any, out: Path) -> list[str]:
        games = scores.extra("games")
        if games is None:
            return []
        lines = [json.dumps(g, ensure_ascii=False) for g in games]
        (out / "transcripts.jsonl").write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
        return ["transcripts.jsonl"]


from creval.benchmarks.lotbench import e1_validation  # noqa: E402,F401  (registers lotbench-e1)
