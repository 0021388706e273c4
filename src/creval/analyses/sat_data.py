"""Reading SAT runs (one per model) and the human ranking file for the seed-004 analyses.

**Rankings file** (the paper's crowdsourced human evaluation, appendix C, Table 21): JSON
Lines, one ranking per line, most creative first::

    {"story": "momotaro", "ranking": ["gpt-4o", "llama-3-8b", "qwen2-7b"], "annotator": "w1"}

``story`` is the story id of the SAT stories file; ``ranking`` names each model once, by the
run's model spec (``openai:gpt-4o``) or by the name of the run's directory or of the folder
holding it (``runs/gpt-4o/sat`` is ``gpt-4o``); ``annotator`` is optional. Several lines per
story (several workers) are averaged like the rest. Blank lines and lines starting with ``#``
are skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from creval.errors import CrevalError


@dataclass(frozen=True)
class Ranking:
    """One worker's ranking of the models' rewrites of one story, most creative first."""

    story: str
    ranking: tuple[str, ...]
    annotator: str = ""


@dataclass
class SATRun:
    """One SAT run: the model's rewrite of each story with the original, and its score."""

    path: Path
    model_spec: str
    #: story id -> (original, rewrite), for the rewrites that are not empty
    pairs: dict[str, tuple[str, str]] = field(default_factory=dict)
    sat_mean: float | None = None
    embedder: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        """The names a rankings file may use for this run."""
        return (self.model_spec, self.path.name, self.path.parent.name)


def read_sat_run(path: Path | str) -> SATRun:
    """The stories and rewrites of a scored or unscored ``creval run sat`` directory."""
    from creval.benchmarks.sat import DEFAULT_EMBEDDER
    from creval.benchmarks.sat.stories import load_stories
    from creval.reader import read_run

    run = read_run(path)
    if run.benchmark != "sat":
        raise CrevalError(f"{run.path} is a {run.benchmark} run; this analysis reads SAT runs (creval run sat).")
    options = run.manifest.options
    originals = {s.id: s.story for s in load_stories(options.get("stories"), options.get("lang", "en"))}
    out = SATRun(Path(run.path), run.manifest.model_spec)
    for record in run.records:
        story = str(record.unit.get("id", ""))
        text = str(record.output.get("text", "")).strip()
        if record.status == "ok" and text and story in originals:
            out.pairs[story] = (originals[story], text)
    if run.scores is not None:
        headline = run.scores.headline.get("sat_mean")
        out.sat_mean = float(headline) if isinstance(headline, int | float) else None
    out.embedder = str(options.get("embedder") or DEFAULT_EMBEDDER.get(options.get("lang", "en"), ""))
    return out


def read_rankings(path: Path | str) -> list[Ranking]:
    """The rankings file (format in the module docstring); errors name the line."""
    file = Path(path)
    if not file.is_file():
        raise CrevalError(f"Rankings file {file} does not exist. Pass a JSONL file of human rankings to --labels.")
    example = '{"story": "ID", "ranking": ["MODEL", "MODEL", ...], "annotator": "optional"}'
    out = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CrevalError(f"{file}:{number} is not JSON ({exc.msg}); each line is {example}.") from None
        ranking = row.get("ranking") if isinstance(row, dict) else None
        if not isinstance(row, dict) or "story" not in row or not isinstance(ranking, list) \
                or not all(isinstance(m, str) and m for m in ranking):
            raise CrevalError(f"{file}:{number} must be {example}.")
        if len(ranking) < 2 or len(set(ranking)) != len(ranking):
            raise CrevalError(f"{file}:{number} must rank at least two models, each once; got {ranking}.")
        out.append(Ranking(str(row["story"]), tuple(ranking), str(row.get("annotator", ""))))
    if not out:
        raise CrevalError(f"Rankings file {file} holds no rankings; each line is {example}.")
    return out


def match_runs(runs: list[SATRun], names: set[str]) -> dict[str, SATRun]:
    """Label name -> run, for the names in the rankings that name exactly one run."""
    out: dict[str, SATRun] = {}
    for name in sorted(names):
        found = [r for r in runs if name in r.names]
        if len(found) > 1:
            raise CrevalError(f"The rankings' model {name!r} names {len(found)} runs "
                              f"({', '.join(str(r.path) for r in found)}); rank them by model spec or "
                              "put each run in a folder named after its model.")
        if found:
            out[name] = found[0]
    unranked = [str(r.path) for r in runs if r not in out.values()]
    if unranked:
        raise CrevalError(f"No ranking names the run(s) {', '.join(unranked)} (by model spec "
                          "or folder name). Check the names in the rankings file.")
    return out
