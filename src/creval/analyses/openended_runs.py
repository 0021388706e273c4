"""Reading open-ended runs (seed 001) for the analyses: steps, solutions, verdicts, labels.

Everything comes from what a run already holds: ``scores.json`` (its per-solution table and
its ``Steps`` section, written by the open-ended scorer) and ``records.jsonl`` (the sampled
candidates and the judges' verdicts). No model is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.reader import Run, read_run

if TYPE_CHECKING:
    import pandas as pd

OPEN_ENDED = ("macgyver", "hypogen", "bookmia")
#: Per-step entropy estimators in the scorer's Steps rows (semantic_entropy.ESTIMATORS).
ESTIMATORS = ("length_normalised", "probability_weighted", "discrete")
DIVERSITY = ("cosine_similarity", "self_bleu", "distinct_1", "distinct_2")


def open_runs(paths: Sequence[str | Path | Run], *, benchmarks: Sequence[str] = OPEN_ENDED) -> list[Run]:
    """The runs at ``paths``, each a scored run of one of ``benchmarks``."""
    if not paths:
        raise CrevalError("Give at least one run directory.")
    runs = [p if isinstance(p, Run) else read_run(p) for p in paths]
    for run in runs:
        if run.benchmark not in benchmarks:
            raise CrevalError(f"{run.path} is a {run.benchmark} run; this analysis reads "
                              f"{', '.join(benchmarks)} runs.")
        if run.scores is None:
            raise CrevalError(f"{run.path} has no scores.json; score it first (creval run ... again).")
    return runs


def run_labels(runs: Sequence[Run]) -> dict[Path, str]:
    """A short name per run: its model spec, after its benchmark when the runs mix benchmarks
    (Tables 9-11 and 21 are per dataset), with ``T=<temperature>`` when the runs differ in
    temperature, and the folder name when that still leaves two alike."""
    temps = {run.manifest.options.get("temperature") for run in runs}
    mixed = len({run.benchmark for run in runs}) > 1
    labels = {}
    for run in runs:
        label = f"{run.benchmark}: {run.model}" if mixed else run.model
        if len(temps) > 1:
            label += f" T={run.manifest.options.get('temperature')}"
        labels[run.path] = label
    clashes = {v for v in labels.values() if list(labels.values()).count(v) > 1}
    return {p: (f"{v} ({p.name})" if v in clashes else v) for p, v in labels.items()}


def estimator_option(estimator: str) -> str:
    if estimator not in ESTIMATORS:
        raise CrevalError(f"--estimator takes {', '.join(ESTIMATORS)}, got {estimator!r}.")
    return estimator


def step_rows(run: Run) -> list[dict[str, Any]]:
    """The scored steps of a run (the scorer's Steps section, rows with an entropy)."""
    scores = run.scores
    sections = [] if scores is None else [s for s in scores.sections if s.get("title") == "Steps"]
    if not sections:
        raise CrevalError(f"{run.path}: scores.json has no Steps section; score the run again "
                          "with this version of creval.")
    return [row for row in sections[0].get("rows", []) if "discrete" in row]


def steps_frame(runs: Sequence[Run]) -> pd.DataFrame:
    """One row per scored step of every run: run, model, temperature, id, step, clusters,
    the three entropies and the diversity baselines."""
    import pandas as pd

    labels = run_labels(runs)
    rows = []
    for run in runs:
        for row in step_rows(run):
            rows.append({"run": str(run.path), "model": labels[run.path],
                         "temperature": run.manifest.options.get("temperature"),
                         **{k: row.get(k) for k in ("id", "step", "valid", "clusters", *ESTIMATORS, *DIVERSITY)}})
    return pd.DataFrame(rows)


def all_verdicts(run: Run) -> dict[str, dict[str, dict[str, bool | None]]]:
    """Every judge's criterion verdicts per solution id (or unit key):
    ``{judge: {id: {criterion: verdict}}}`` (criteria in lower case)."""
    found: dict[str, dict[str, dict[str, bool | None]]] = {}
    for record in run.records:
        if record.status != "ok":
            continue
        ident = str(record.unit.get("id", record.unit.get("key", record.key)))
        for name, verdict in (record.output.get("verdicts") or {}).items():
            found.setdefault(name, {})[ident] = {str(c).lower(): v for c, v in verdict.get("verdicts", {}).items()}
    if not found:
        raise CrevalError(f"{run.path} holds no judge verdicts (it was run with --judges none?).")
    return found


def verdicts(run: Run, judge: str | None = None) -> tuple[str, dict[str, dict[str, bool | None]]]:
    """One judge's verdicts, :func:`all_verdicts` style: ``(judge, {id: {criterion: verdict}})``.
    ``judge`` defaults to ``multiagent`` when present, else the first judge."""
    found = all_verdicts(run)
    if judge is None:
        judge = "multiagent" if "multiagent" in found else sorted(found)[0]
    if judge not in found:
        raise CrevalError(f"{run.path} has no verdicts of judge {judge!r}; it has {', '.join(sorted(found))}.")
    return judge, found[judge]


def unit_aliases(run: Run) -> dict[str, str]:
    """Every name a unit goes by (its id, its label key, its record key) -> the id verdicts use."""
    out = {}
    for record in run.records:
        ident = str(record.unit.get("id", record.unit.get("key", record.key)))
        for alias in (record.unit.get("id"), record.unit.get("key"), record.key):
            if alias is not None:
                out[str(alias)] = ident
    return out


YES = frozenset({"1", "yes", "y", "true", "t", "entailment", "entailed", "correct"})
NO = frozenset({"0", "no", "n", "false", "f", "not_entailment", "neutral", "contradiction", "incorrect"})


def binary(value: str, where: str) -> bool | None:
    """A human label cell as True / False, None when blank.

    >>> binary(" Yes", "x"), binary("0", "x"), binary("", "x") is None
    (True, False, True)
    """
    text = value.strip().lower().replace("-", "_").replace(" ", "_")
    if not text:
        return None
    if text in YES:
        return True
    if text in NO:
        return False
    raise CrevalError(f"{where}: {value!r} is not a yes/no label (use yes/no, 1/0 or true/false).")


def read_csv_rows(path: Path, required: Sequence[str]) -> tuple[list[str], list[dict[str, str]]]:
    """The header and rows of a CSV labels file; errors name what is missing."""
    import csv

    if not path.is_file():
        raise CrevalError(f"{path} does not exist; pass a CSV labels file.")
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        header = [h.strip() for h in reader.fieldnames or []]
        rows = [{(k or "").strip(): (v or "") for k, v in row.items()} for row in reader]
    missing = [c for c in required if c not in header]
    if missing:
        raise CrevalError(f"{path}: the header lacks {', '.join(missing)} (it has {', '.join(header) or 'nothing'}).")
    if not rows:
        raise CrevalError(f"{path} has a header but no rows.")
    return header, rows
