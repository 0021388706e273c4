"""``creval analyze ...``: the analyses of the openended seed (commands added to the analyze group).

* ``naive-entropy RUN... --novelty FILE`` (Table 15), ``se-diversity RUN...`` (Tables 9-11),
  ``se-convergent RUN...`` (Figure 6, Table 21), ``se-temperature RUN...`` (Figure 4a-c);
* ``entailment --labels FILE --model SPEC...`` (Table 6), ``judge-accuracy RUN... --labels FILE``
  (Table 2, Figure 8).

The computations are in :mod:`creval.analyses.openended`; each result is saved into ``--out``
(default: the first run) and shown in its reports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from creval.errors import CrevalError

RunsArg = Annotated[list[Path], typer.Argument(help="Scored macgyver, hypogen or bookmia run directories (one per model).")]
OutOpt = Annotated[Path | None, typer.Option(help="Run directory to save the analysis into (default: the first run).")]
EstimatorOpt = Annotated[str, typer.Option(help="Entropy estimator: length_normalised (the paper), probability_weighted or discrete.")]


def _thresholds(text: str) -> list[float]:
    """``"0.5,0.7"`` -> ``[0.5, 0.7]``; ``"0.1:0.9:0.1"`` -> 0.1, 0.2, ..., 0.9.

    >>> _thresholds("0.3:0.5:0.1")
    [0.3, 0.4, 0.5]
    """
    try:
        if ":" in text:
            lo, hi, step = (float(x) for x in text.split(":"))
            if step <= 0 or hi < lo:
                raise ValueError
            count = int(round((hi - lo) / step)) + 1
            return [round(lo + i * step, 10) for i in range(count)]
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise CrevalError(f"--thresholds takes numbers like 0.3,0.5,0.7 or LOW:HIGH:STEP, got {text!r}.") from None


def register(app: typer.Typer) -> None:
    """Add this seed's analysis commands to ``app``."""

    @app.command("naive-entropy")
    def naive_entropy(
        runs: RunsArg,
        novelty: Annotated[Path, typer.Option(help="Novelty ranks: CSV with id and rank (1 = most novel) or novelty (higher = more novel), optional run; or the JSON of `creval novelty --out`.")],
        estimator: EstimatorOpt = "length_normalised",
        out: OutOpt = None,
    ) -> None:
        """Naive vs semantic entropy, Spearman with the novelty rank (seed 001, Table 15)."""
        from creval.analyses.openended import naive_entropy_analysis
        from creval.cli.analyze import emit

        emit(naive_entropy_analysis(runs, novelty, estimator=estimator), out or runs[0],
             [*map(str, runs), str(novelty)])

    @app.command("se-diversity")
    def se_diversity(runs: RunsArg, estimator: EstimatorOpt = "length_normalised", out: OutOpt = None) -> None:
        """Step-level semantic entropy vs cosine similarity, Self-BLEU, Distinct-n (seed 001, Tables 9-11)."""
        from creval.analyses.openended import diversity_analysis
        from creval.cli.analyze import emit

        emit(diversity_analysis(runs, estimator=estimator), out or runs[0], [str(r) for r in runs])

    @app.command("se-convergent")
    def se_convergent(
        runs: RunsArg,
        judge: Annotated[str | None, typer.Option(help="Judge whose verdicts to use (default multiagent, else the run's first).")] = None,
        bin_size: Annotated[int, typer.Option(help="Solutions per point of the binned plot (Figure 6 uses 15).", min=1)] = 15,
        estimator: EstimatorOpt = "length_normalised",
        out: OutOpt = None,
    ) -> None:
        """Solution-level semantic entropy vs each judged criterion (seed 001, Figure 6 and Table 21)."""
        from creval.analyses.openended import convergent_analysis
        from creval.cli.analyze import emit

        emit(convergent_analysis(runs, judge=judge, estimator=estimator, bin_size=bin_size),
             out or runs[0], [str(r) for r in runs])

    @app.command("se-temperature")
    def se_temperature(runs: RunsArg, estimator: EstimatorOpt = "length_normalised", out: OutOpt = None) -> None:
        """Step-level semantic entropy per temperature, vs clusters and cosine similarity (seed 001, Figure 4a-c)."""
        from creval.analyses.openended import temperature_analysis
        from creval.cli.analyze import emit

        emit(temperature_analysis(runs, estimator=estimator), out or runs[0], [str(r) for r in runs])

    @app.command("entailment")
    def entailment(
        labels: Annotated[Path, typer.Option(help="CSV of labelled pairs: text_a, text_b and annotator_1, annotator_2, ... (yes/no).")],
        model: Annotated[list[str] | None, typer.Option("--model", help="Entailment spec to compare (repeat): hf:NAME_OR_PATH, embedding:THRESHOLD, llm.")] = None,
        llm: Annotated[str | None, typer.Option(help="Model spec answering for the 'llm' entailment backend.")] = None,
        base_url: Annotated[str | None, typer.Option(help="Endpoint of the --llm model.")] = None,
        direction: Annotated[str, typer.Option(help="both (each text entails the other; default), forward (text_a entails text_b) or lenient.")] = "both",
        thresholds: Annotated[str, typer.Option(help="Thresholds of the sweep on the entailment score: 0.3,0.5 or LOW:HIGH:STEP.")] = "0.05:0.95:0.05",
        out: Annotated[Path | None, typer.Option(help="Folder (or run directory) to save into (default: the labels file's folder).")] = None,
    ) -> None:
        """Entailment models against human-labelled pairs, with a threshold sweep (seed 001, Table 6)."""
        import asyncio

        from creval.analyses.openended import entailment_analysis
        from creval.cli.analyze import emit

        specs = model or ["embedding"]
        generate = None
        judge_model = None
        if any(s.strip().lower() == "llm" for s in specs):
            if llm is None:
                raise CrevalError("The llm entailment backend needs --llm MODEL_SPEC (the model that answers).")
            from creval.models import ModelOptions, get_model

            judge_model = get_model(llm, ModelOptions(base_url=base_url))
            generate = judge_model.generate
        try:
            result = entailment_analysis(labels, specs, direction=direction, thresholds=_thresholds(thresholds),
                                         generate=generate)
        finally:
            if judge_model is not None:
                asyncio.run(judge_model.aclose())
        emit(result, out or labels.parent, [str(labels)])

    @app.command("judge-accuracy")
    def judge_accuracy(
        runs: Annotated[list[Path], typer.Argument(help="Runs whose judge verdicts to score (macgyver, bookmia, hypogen or macgyver-judges).")],
        labels: Annotated[Path, typer.Option(help="CSV: id, criterion and annotator_1, annotator_2, ... (yes/no).")],
        judge: Annotated[str | None, typer.Option(help="Only this judge's verdicts (default: every judge in the runs).")] = None,
        out: OutOpt = None,
    ) -> None:
        """Judge and annotator accuracy against majority-vote gold labels (seed 001, Table 2)."""
        from creval.analyses.openended import judge_accuracy_analysis
        from creval.cli.analyze import emit

        emit(judge_accuracy_analysis(runs, labels, judge=judge), out or runs[0], [*map(str, runs), str(labels)])
