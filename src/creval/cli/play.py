"""``creval play lotbench``: a person plays LoTbench in the terminal.

The person is the tested model: a ``human:NAME`` backend shows each prompt of the game
(the masked answer, the history, the clues) and reads the reply from standard input. The
rest is a normal run: the same units, the same evaluators E1 and E2 on ``--judge`` (or
``--e1``/``--e2``), the same S_c, and the transcripts saved in the run directory like a
model's, so a lab can measure its own human baselines (the paper used 21 people). The
response cache is off (a person's answers are not replayed) and games are played one at a
time.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from creval.errors import CrevalError
from creval.models.base import Capabilities, Completion, GenerateRequest, ModelError, Usage

play_app = typer.Typer(help="Play a benchmark yourself, scored like a model.", no_args_is_help=True,
                       rich_markup_mode=None)


class HumanPlayer:
    """A 'model' whose answers a person types. Text only; one request at a time."""

    capabilities = Capabilities()
    max_concurrency = 1

    def __init__(self, name: str) -> None:
        self.name = name or "player"
        self.spec = f"human:{self.name}"

    def identity(self) -> dict[str, Any]:
        return {"provider": "human", "name": self.name}

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        prompt = request.messages[-1].text()
        typer.echo("\n" + "-" * 72 + "\n" + prompt.strip() + "\n")
        typer.echo("> ", nl=False)
        line = sys.stdin.readline()
        if not line:
            raise ModelError("the player stopped (end of input); run the same command to resume")
        return [Completion(text=line.rstrip("\n"), finish_reason="stop", usage=Usage())]

    async def aclose(self) -> None:
        return None


def create_human(name: str, options: Any) -> HumanPlayer:
    """The ``human:`` provider (registered by ``creval play``)."""
    return HumanPlayer(name)


@play_app.command("lotbench")
def play_lotbench(
    name: Annotated[str, typer.Option(help="Your name or code (kept in the run's manifest).")] = "player",
    judge: Annotated[str, typer.Option(help="Model spec of the evaluators E1 and E2.")] = "local",
    judge_base_url: Annotated[str | None, typer.Option(help="Endpoint of an OpenAI-compatible judge.")] = None,
    e1: Annotated[str | None, typer.Option("--e1", help="Model spec of E1 alone (default: --judge).")] = None,
    e2: Annotated[str | None, typer.Option("--e2", help="Model spec of E2 alone (default: --judge).")] = None,
    api_key: Annotated[str | None, typer.Option(help="API key of the judge (default: $OPENAI_API_KEY).", envvar="CREVAL_API_KEY")] = None,
    samples: Annotated[str | None, typer.Option(help="Samples JSONL (default: our starter set).")] = None,
    limit: Annotated[int | None, typer.Option(help="Play only the first N samples.")] = None,
    repeats: Annotated[int, typer.Option(help="Games per sample.")] = 1,
    max_rounds: Annotated[int, typer.Option(help="Rounds before a game ends unsolved.")] = 10,
    clue_every: Annotated[int, typer.Option(help="A clue after every N-th failed round.")] = 5,
    e1_mode: Annotated[str, typer.Option(help="E1: causal, zeroshot or zeroshot-context.")] = "causal",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Run directory (the same --out resumes).")] = None,
) -> None:
    """Play LoTbench: fill the hidden words, ask yes/no questions, get clues; scored by S_c."""
    from creval.benchmarks.base import get_benchmark
    from creval.evaluation.run.runs import RunSettings, run_benchmark
    from creval.models import ModelOptions, register_provider

    register_provider("human", "creval.cli.play:create_human")
    bench = get_benchmark("lotbench")
    values: dict[str, Any] = {"repeats": repeats, "max_rounds": max_rounds,
                              "clue_every": clue_every, "e1_mode": e1_mode}
    if samples is not None:
        values["samples"] = samples
    if limit is not None:
        values["limit"] = limit
    options = bench.parse_options(values)
    if ":" in name or not name.strip():
        raise CrevalError("--name must be a non-empty word without ':'.")
    settings = RunSettings(
        model=f"human:{name}", judge=judge,
        judge_options=ModelOptions(base_url=judge_base_url, api_key=api_key),
        roles={role: spec for role, spec in (("e1", e1), ("e2", e2)) if spec},
        role_options={role: ModelOptions(base_url=judge_base_url, api_key=api_key)
                      for role, spec in (("e1", e1), ("e2", e2)) if spec},
        cache=None, progress=False, concurrency=1,
    )
    run_dir = out or Path("runs") / f"human-{name}" / "lotbench"
    typer.echo(f"LoTbench, played by {name}. Each round: type the words for <MASK>, then a "
               f"yes/no question. Results go to {run_dir}.")
    if "local" in (e1 or judge, e2 or judge):
        typer.echo("Note: the evaluators run on the small packaged model, which rarely gives a "
                   "usable verdict; for a real baseline pass --judge with a capable model.")
    result = run_benchmark(bench, options, run_dir, settings)
    head = result.scores.headline
    typer.echo("\n" + "=" * 72)
    for game in result.scores.extra("games", []):
        t = game["solved_round"]
        typer.echo(f"sample {game['sample_id']} (game {game['repeat']}): "
                   + (f"solved in round {t}" if t else "not solved"))
    s_c = head.get("S_c")
    typer.echo(f"S_c = {s_c:.4f}" if isinstance(s_c, float) else "S_c = -")
    typer.echo(f"report: {run_dir / 'report.md'}")
    if result.scores.units.errors:
        raise typer.Exit(1)


@play_app.command("groups")
def human_groups_command(
    run_dirs: Annotated[list[Path], typer.Argument(help="lotbench run directories of people (creval play lotbench --out ...).")],
    out: Annotated[Path | None, typer.Option(help="Also write the three groups as leaderboard JSON ({records: [...]}).")] = None,
) -> None:
    """Your lab's human baseline: mean S_c of the low, medium and high thirds of players."""
    import json

    from creval.metrics.lotbench import human_groups
    from creval.reader import read_run

    players: dict[str, float] = {}
    for run_dir in run_dirs:
        run = read_run(run_dir)
        s_c = run.scores.headline.get("S_c") if run.scores is not None else None
        if run.benchmark != "lotbench" or not run.model.startswith("human:"):
            raise CrevalError(f"{run_dir} is a {run.benchmark} run of {run.model}, not a lotbench "
                              "run played by a person (creval play lotbench).")
        if not isinstance(s_c, (int, float)):
            raise CrevalError(f"{run_dir} has no S_c yet: finish its games with the same "
                              "`creval play lotbench --out` first.")
        if run.model in players:
            raise CrevalError(f"{run.model} appears twice; give each person one run directory.")
        players[run.model] = float(s_c)
    if len(players) < 3:
        raise CrevalError(f"Three groups need at least 3 players, got {len(players)}.")
    groups = human_groups(list(players.values()))
    records = [{"title": f"Human ({name})", "score": round(value, 4), "type": "human_expert"}
               for name, value in groups.items()]
    for row in records:
        typer.echo(f"{row['title']:16} S_c = {row['score']:.4f}")
    typer.echo(f"{len(players)} players: " + ", ".join(f"{k.removeprefix('human:')} {v:.4f}"
                                                       for k, v in sorted(players.items(), key=lambda kv: kv[1])))
    if out is not None:
        out.write_text(json.dumps({"records": records}, indent=1) + "\n", encoding="utf-8")
        typer.echo(f"wrote {out}")
