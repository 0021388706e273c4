"""Seed 000 (NeoCoder, Lu et al. 2025) analyses over ``creval run neocoder`` directories.

* :func:`technique_distribution` (Figure 2): per Denial Prompting state, how often each
  atomic technique is used by the model's solutions, beside the same proportions over the
  human solutions of the run's problems.
* :func:`strategy_differences` (Table 5): convergent, divergent and NeoGauge per state of a
  run with a reasoning strategy against a baseline run, before, after and their difference.

Both read scored runs only (``scores.json``): the techniques are those the run's scorer
used for NeoGauge (the ``--detector`` of the run), so the figure and the scores agree.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.analyses.base import AnalysisResult
from creval.errors import CrevalError

if TYPE_CHECKING:
    import pandas as pd

    from creval.reader import Run

SEED = "000"
HUMAN = "human"
NOT_PARSED = "(not parsed)"
METRICS = ("convergent", "divergent", "neogauge")


def _neocoder_run(path: Path | str) -> Run:
    from creval.reader import read_run

    run = read_run(path)
    if run.benchmark != "neocoder":
        raise CrevalError(f"{run.path} is a {run.benchmark!r} run; pass a `creval run neocoder` directory.")
    if run.manifest.options.get("mode", "evaluate") != "evaluate":
        raise CrevalError(f"{run.path} is a Denial Prompting run (--mode denial); pass an evaluation run.")
    if run.scores is None:
        raise CrevalError(f"{run.path} has no scores.json: let the run finish (or resume it) first.")
    return run


def _rows(run: Run) -> list[dict[str, Any]]:
    rows = run.scores.table if run.scores is not None else []
    return [dict(r) for r in rows if isinstance(r, dict) and "t" in r]


def _human_techniques(run: Run) -> dict[str, list[list[str]]]:
    from creval.benchmarks.neocoder.benchmark import starter_dir
    from creval.benchmarks.neocoder.data import load_neocoder

    data = run.manifest.options.get("data") or starter_dir()
    try:
        dataset = load_neocoder(data)
    except CrevalError as exc:
        raise CrevalError(f"The data of {run.path} cannot be read ({exc}); the human solutions "
                          "come from it.") from None
    return dict(dataset.human_techniques or {})


def technique_distribution(runs: list[Path | str], *, top: int = 5) -> pd.DataFrame:
    """Figure 2: the ``top`` techniques of each state's solutions and of the human solutions.

    One row per (run, column, technique) where a column is a state ``t`` (``"0"``, ``"1"``,
    ...) or ``"human"``; columns ``solutions`` (how many solutions use the technique),
    ``share_of_solutions``, ``share_of_mentions`` (the proportion Figure 2 stacks: it sums
    to 1 over all techniques of a column) and ``rank`` (1 = most used; ties alphabetical).
    Only the ``top`` ranks of each column are kept (the paper: 5), so the techniques shown
    can change from state to state, as in the figure.

    A state's solutions are the scored ones of the run (one per problem: for the sampling
    strategy the best of k, as NeoGauge takes it); answers whose technique detection did not
    parse are left out (counted in :func:`technique_counts`). The human column pools the
    human solutions (``human_solution_techniques.json``) of the problems the run scored. The
    paper does not say whether its proportions are of solutions or of technique mentions;
    its stacked bars suggest mentions, so both are given.
    """
    return _top(_distribution(runs), top)


def _top(frame: pd.DataFrame, top: int) -> pd.DataFrame:
    if top < 1:
        raise CrevalError(f"--top must be at least 1, got {top}.")
    return frame[frame["rank"] <= top].reset_index(drop=True)


def technique_counts(runs: list[Path | str]) -> pd.DataFrame:
    """Per (run, column): how many solutions were counted, and how many were left out
    because their technique detection did not parse."""
    import pandas as pd

    rows = []
    for path in runs:
        run = _neocoder_run(path)
        columns, unparsed, _ = _columns(run)
        for column, sets in columns.items():
            rows.append({"run": _label(run, runs), "column": column, "solutions": len(sets),
                         "not_parsed": unparsed.get(column, 0)})
    return pd.DataFrame(rows)


def _label(run: Run, runs: list[Path | str]) -> str:
    return run.path.name if len(runs) > 1 else str(run.manifest.options.get("strategy", "direct"))


def _columns(run: Run) -> tuple[dict[str, list[list[str]]], dict[str, int], list[str]]:
    """The technique sets per column (states in order, then human), unparsed counts, problems."""
    by_state: dict[int, list[list[str]]] = defaultdict(list)
    unparsed: dict[str, int] = defaultdict(int)
    problems: set[str] = set()
    for row in _rows(run):
        problems.add(str(row["problem"]))
        text = str(row.get("techniques") or "")
        if text == NOT_PARSED:
            unparsed[str(row["t"])] += 1
            by_state.setdefault(int(row["t"]), [])
            continue
        by_state[int(row["t"])].append([n.strip() for n in text.split(", ") if n.strip()])
    human = _human_techniques(run)
    columns = {str(t): by_state[t] for t in sorted(by_state)}
    columns[HUMAN] = [list(s) for p in sorted(problems) for s in human.get(p, [])]
    return columns, unparsed, sorted(problems)


def _distribution(runs: list[Path | str]) -> pd.DataFrame:
    import pandas as pd

    from creval.metrics.neogauge import technique_shares

    if not runs:
        raise CrevalError("Pass at least one `creval run neocoder` directory.")
    rows = []
    for path in runs:
        run = _neocoder_run(path)
        columns, _, _ = _columns(run)
        for column, sets in columns.items():
            for rank, (name, (n, share, mention)) in enumerate(technique_shares(sets).items(), 1):
                rows.append({"run": _label(run, runs), "column": column, "technique": name,
                             "solutions": n, "share_of_solutions": share,
                             "share_of_mentions": mention, "rank": rank})
    if not rows:
        raise CrevalError("No scored solution with detected techniques in "
                          f"{', '.join(str(r) for r in runs)}: nothing to count.")
    return pd.DataFrame(rows)


def technique_distribution_analysis(runs: list[Path | str], *, top: int = 5) -> AnalysisResult:
    """:func:`technique_distribution` with its heat map and counts, ready to save."""
    everything = _distribution(runs)
    frame = _top(everything, top)
    plots = []
    for label, part in frame.groupby("run", sort=False):
        shown = list(dict.fromkeys(part["technique"]))
        columns = list(dict.fromkeys(part["column"]))
        all_rows = everything[everything["run"] == label]
        share = {(r.column, r.technique): r.share_of_mentions for r in all_rows.itertuples()}
        plots.append({
            "title": f"Share of technique mentions per state ({label}), top {top} of each column",
            "kind": "heatmap", "xlabel": "state (human: the human solutions)", "ylabel": "technique",
            "data": {"rows": shown, "columns": columns,
                     "values": [[share.get((c, t), 0.0) for c in columns] for t in shown]},
        })
    notes = [
        f"Each column keeps its top {top} techniques (rank by solutions using them, ties "
        "alphabetical); share_of_mentions sums to 1 over all techniques of a column.",
        "The techniques are those the run's scorer used (its --detector); a state's solutions "
        "are the scored ones (best of k for the sampling strategy).",
        "The human column pools the human solutions of the problems the run scored.",
    ]
    return AnalysisResult(
        name="techniques", title="Technique distribution per state against human solutions",
        frame=frame, seed_paper=SEED, reproduces="Figure 2",
        tables={"Solutions counted per column": technique_counts(runs)},
        plots=plots, notes=notes, options={"top": top},
    )


# -- Table 5 ------------------------------------------------------------------------------------
def _state_problems(run: Run) -> dict[int, set[str]]:
    out: dict[int, set[str]] = defaultdict(set)
    for record in run.records:
        if record.status == "ok":
            out[int(record.unit["t"])].add(str(record.unit["problem_id"]))
    return out


def _states(run: Run) -> dict[int, dict[str, Any]]:
    states = getattr(run.scores, "states", None) or []
    return {int(s["t"]): dict(s) for s in states}


def strategy_differences(baseline: Path | str, runs: list[Path | str]) -> pd.DataFrame:
    """Table 5: per strategy run and state, each metric before (``baseline``), after and
    the difference after - before.

    Columns: ``strategy``, ``run`` (the directory's name), ``t``, then for each of convergent, divergent and
    neogauge ``METRIC_before``, ``METRIC_after`` and ``METRIC_diff`` (fractions in [0, 1];
    the paper prints percentages). Only the states both runs scored are compared, and each
    of those must hold the same problems in both runs (else the difference would compare
    different problems: the error names them).
    """
    import pandas as pd

    if not runs:
        raise CrevalError("Pass the baseline run and at least one strategy run.")
    base = _neocoder_run(baseline)
    base_states, base_problems = _states(base), _state_problems(base)
    rows = []
    for path in runs:
        run = _neocoder_run(path)
        if run.manifest.options.get("data") != base.manifest.options.get("data"):
            raise CrevalError(f"{run.path} and the baseline {base.path} use different --data; "
                              "compare runs on the same NeoCoder data.")
        states, problems = _states(run), _state_problems(run)
        common = sorted(set(states) & set(base_states))
        if not common:
            raise CrevalError(f"{run.path} and the baseline {base.path} share no state: run both "
                              "with the same --states.")
        for t in common:
            if problems[t] != base_problems[t]:
                missing = sorted(base_problems[t] ^ problems[t])
                raise CrevalError(
                    f"State {t} holds different problems in {run.path} and the baseline {base.path} "
                    f"({', '.join(missing)} in only one); run both with the same --limit and let "
                    "every unit finish (creval run ... --resume).")
            row: dict[str, Any] = {"strategy": str(run.manifest.options.get("strategy", "direct")),
                                   "run": run.path.name, "t": t}
            for metric in METRICS:
                before, after = base_states[t].get(metric), states[t].get(metric)
                row[f"{metric}_before"], row[f"{metric}_after"] = before, after
                row[f"{metric}_diff"] = (after - before) if before is not None and after is not None else None
            rows.append(row)
    return pd.DataFrame(rows)


def strategy_differences_analysis(baseline: Path | str, runs: list[Path | str]) -> AnalysisResult:
    """:func:`strategy_differences` with Figure 6's bar charts, ready to save."""
    frame = strategy_differences(baseline, runs)
    base = _neocoder_run(baseline)
    notes = [
        f"Baseline: {base.path} (strategy {base.manifest.options.get('strategy', 'direct')}, "
        f"model {base.model}). diff = after - before; fractions in [0, 1] (the paper: percent).",
    ]
    if base.manifest.options.get("strategy", "direct") != "direct":
        notes.append("The baseline is not a --strategy direct run; the paper's 'before' is.")
    for path in runs:
        run = _neocoder_run(path)
        if run.model != base.model:
            notes.append(f"{run.path} used model {run.model}, the baseline {base.model}: the "
                         "difference mixes strategy and model (the paper ran MCTS on another model "
                         "too, with its own 'before').")
    labels = [str(t) for t in sorted(set(frame["t"]))]
    plots = []
    for metric in METRICS:
        series = {}
        for (strategy, run), part in frame.groupby(["strategy", "run"], sort=False):
            name = strategy if (frame["strategy"] == strategy).sum() == len(part) else f"{strategy} ({run})"
            by_t = dict(zip(part["t"].astype(str), part[f"{metric}_diff"], strict=True))
            series[name] = [by_t.get(t) for t in labels]
        plots.append({"title": f"{metric} after - before, per state (Figure 6)", "kind": "bar",
                      "xlabel": "state t", "ylabel": f"difference in {metric}",
                      "data": {"labels": labels, "series": series}})
    return AnalysisResult(
        name="strategies", title="Creativity before and after each reasoning strategy",
        frame=frame, seed_paper=SEED, reproduces="Table 5", plots=plots, notes=notes,
        options={"baseline": str(baseline)},
    )
