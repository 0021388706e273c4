"""``creval compare``: how benchmarks relate across models (seed 004, Tables 3-5, 9, 10).

Each run directory is one model's run of one benchmark. Runs are grouped into models by the
folder that holds them (creval's default layout is ``runs/<model>/<benchmark>``) or by the
model spec and temperature. For every model that has both, each JCQ/TTCT task x criterion
score is correlated with the DAT and the SAT score, and DAT with SAT. The last rows, task
``All``, correlate each criterion's mean over all tasks (Table 3's value; the overall mean
for the Mean column) with DAT and SAT: the "All" row of Tables 9 and 10.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from creval.errors import CrevalError

RUBRIC_BENCHMARKS = ("jcq", "ttct")
CRITERIA = ("fluency", "flexibility", "originality", "elaboration")


@dataclass
class RunSummary:
    path: Path
    label: str
    benchmark: str
    headline: dict[str, Any]
    rubric: dict[str, dict[str, float | None]] = field(default_factory=dict)  # task -> crit


def load_run(path: Path, by: Literal["folder", "model"]) -> RunSummary:
    """Read one run directory's manifest and scores (through the read-only reader)."""
    from creval.reader import read_run

    run = read_run(path) if (path / "manifest.json").is_file() else None
    scores = run.scores if run is not None else None
    if run is None or scores is None:
        raise CrevalError(
            f"{path} is not a finished run directory (needs manifest.json and scores.json)."
        )
    manifest = run.manifest
    if by == "folder":
        label = path.parent.name if path.name == manifest.benchmark else path.name
    else:
        temperature = manifest.options.get("temperature")
        label = f"{manifest.model_spec}@T={temperature}"
    return RunSummary(
        path=path, label=label, benchmark=manifest.benchmark,
        headline=scores.headline, rubric=scores.extra("rubric", {}).get("tasks", {}),
    )


def compare_runs(paths: list[Path], *, by: Literal["folder", "model"] = "folder") -> dict[str, Any]:
    """Tables of scores per model and of correlations between benchmarks."""
    from creval.metrics.stats import pearson, spearman

    runs = [load_run(p, by) for p in paths]
    models: dict[str, dict[str, RunSummary]] = {}
    for run in runs:
        if run.benchmark in models.setdefault(run.label, {}):
            raise CrevalError(
                f"Two {run.benchmark} runs for {run.label!r} ({models[run.label][run.benchmark].path}"
                f" and {run.path}); pass one per model or use --by model."
            )
        models[run.label][run.benchmark] = run
    labels = sorted(models)
    benchmarks = sorted({run.benchmark for run in runs})
    overview = []
    for label in labels:
        row: dict[str, Any] = {"model": label}
        for name in benchmarks:
            found = models[label].get(name)
            key = {"dat": "dat_mean", "sat": "sat_mean"}.get(name, "mean")
            row[name] = None if found is None else found.headline.get(key)
            if name in RUBRIC_BENCHMARKS:  # the model x criterion table (Tables 3 and 4)
                for crit in CRITERIA:
                    row[f"{name} {crit}"] = None if found is None else found.headline.get(crit)
        overview.append(row)

    def single(benchmark: str, key: str) -> dict[str, float]:
        out = {}
        for label in labels:
            run = models[label].get(benchmark)
            value = None if run is None else run.headline.get(key)
            if isinstance(value, (int, float)):
                out[label] = float(value)
        return out

    dat, sat = single("dat", "dat_mean"), single("sat", "sat_mean")
    correlations = []
    for bench in RUBRIC_BENCHMARKS:
        for other_name, other in (("dat", dat), ("sat", sat)):
            cells: dict[tuple[str, str], dict[str, float]] = {}
            for label in labels:
                rubric_run = models[label].get(bench)
                if rubric_run is None or label not in other:
                    continue
                for task, crits in rubric_run.rubric.items():
                    for crit, value in crits.items():
                        if isinstance(value, (int, float)):
                            cells.setdefault((task, crit), {})[label] = float(value)
            for (task, crit), values in sorted(cells.items()):
                xs = [values[m] for m in sorted(values)]
                ys = [other[m] for m in sorted(values)]
                correlations.append(
                    {"benchmark": bench, "vs": other_name, "task": task, "criterion": crit,
                     **_pair(pearson, spearman, xs, ys)}
                )
            correlations += _all_rows(bench, other_name, other, models, labels, (pearson, spearman))
    common = sorted(set(dat) & set(sat))
    dat_sat = _pair(pearson, spearman, [dat[m] for m in common], [sat[m] for m in common])
    return {"models": labels, "overview": overview, "correlations": correlations,
            "dat_vs_sat": dat_sat}


def _all_rows(bench: str, other_name: str, other: dict[str, float],
              models: dict[str, dict[str, RunSummary]], labels: list[str], stats: tuple[Any, Any]
              ) -> list[dict[str, Any]]:
    """The "All" row of Tables 9 and 10: per criterion (and the mean), each model's score over
    all tasks (its headline) against ``other``."""
    rows = []
    for crit in (*CRITERIA, "mean"):
        values = {}
        for label in labels:
            run = models[label].get(bench)
            value = None if run is None else run.headline.get(crit)
            if label in other and isinstance(value, (int, float)):
                values[label] = float(value)
        if values:
            xs = [values[m] for m in sorted(values)]
            ys = [other[m] for m in sorted(values)]
            rows.append({"benchmark": bench, "vs": other_name, "task": "All", "criterion": crit,
                         **_pair(*stats, xs, ys)})
    return rows


def _pair(pearson: Any, spearman: Any, xs: list[float], ys: list[float]) -> dict[str, Any]:
    if len(xs) < 3:
        return {"n": len(xs), "pearson_r": None, "pearson_p": None, "spearman_r": None,
                "spearman_p": None}
    p, s = pearson(xs, ys), spearman(xs, ys)
    return {"n": len(xs), "pearson_r": p.r, "pearson_p": p.p, "spearman_r": s.r,
            "spearman_p": s.p}


def render_comparison(result: dict[str, Any]) -> str:
    """The comparison as Markdown."""
    from creval.report.markdown import markdown_table

    parts = ["# creval comparison", "", "## Scores per model", "",
             markdown_table(result["overview"]), "",
             "## DAT vs SAT", "", markdown_table([result["dat_vs_sat"]]), "",
             "## Rubric task x criterion vs DAT and SAT", "",
             markdown_table(result["correlations"]), ""]
    return "\n".join(parts)


def judge_human_agreement(run_dir: Path, human: Path) -> list[dict[str, Any]]:
    """Judge-vs-human agreement of a ``jcq`` or ``ttct`` run: Pearson per task x criterion
    against people's ratings in ``human`` (the paper's Table 8)."""
    from creval.benchmarks.ttct.scoring import judgement_rows
    from creval.report.agreement import agreement, read_human_ratings
    from creval.runner.store import RunStore

    store = RunStore(run_dir)
    manifest = store.read_manifest() or {}
    if manifest.get("benchmark") not in {"jcq", "ttct"}:
        store.close()
        raise CrevalError(f"{run_dir} is not a jcq or ttct run directory.")
    records = list(store.latest().values())
    store.close()
    lang = "ja" if manifest["benchmark"] == "jcq" else "en"
    parser = manifest.get("options", {}).get("parser", "strict")
    rows, _ = judgement_rows(records, lang=lang, parser=parser)
    table = agreement(rows, read_human_ratings(human))
    if not table:
        raise CrevalError(f"No answer in {human} matches an answer judged in {run_dir}.")
    return table
