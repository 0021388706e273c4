"""Scoring an AUT run's records: per object fluency, flexibility, elaboration and originality;
then, with people's data, the scorer's validation and people's norms."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.benchmarks.aut.data import Response, load_split, parse_uses
from creval.benchmarks.aut.scorers import Regressor, Vectors, parse_rating, semdis
from creval.errors import CrevalError
from creval.records import Record, Scores

if TYPE_CHECKING:
    from creval.benchmarks.aut import AUTOptions

Pair = tuple[str, str]


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


def _originality(options: AUTOptions, vectors: Vectors, folder: Path | None, pairs: list[Pair],
                 people: list[Pair]) -> tuple[list[float | None], list[float | None], dict[str, Any]]:
    """The scorer's score of each of the model's ``pairs`` and of people's ``people``."""
    if options.scorer == "semdis":
        return semdis(vectors, pairs), semdis(vectors, people), {}
    if folder is None:
        raise CrevalError("--scorer regressor is fitted on people's rated training responses: "
                          "fetch them with `creval data fetch ocsai` and pass the folder to "
                          "--people (or use --scorer semdis).")
    regressor = Regressor(vectors, folder, options.train_limit)
    return regressor.predict(pairs), regressor.predict(people), {"regressor": regressor.identity()}


def _flexibility(vectors: Vectors, uses: list[str], threshold: float) -> int:
    import numpy as np

    from creval.metrics.aut import flexibility

    if not uses:
        return 0
    matrix = vectors.embed(uses)
    matrix = matrix[np.linalg.norm(matrix, axis=1) > 0]
    return flexibility(matrix, threshold=threshold) if len(matrix) else 0


def score_aut(records: list[Record], options: AUTOptions, folder: Path | None,
              chosen: list[tuple[int, Response]]) -> Scores:
    from creval.metrics.aut import elaboration

    ok = [r for r in records if r.status == "ok"]
    answers = [(r.key, str(r.unit.get("object", "")), r) for r in ok if r.key.startswith("object-")]
    parsed = {key: (list(r.output["judged_uses"]) if "judged_uses" in r.output
                    else parse_uses(str(r.output.get("text", "")))) for key, _, r in answers}
    pairs = [(obj, use) for key, obj, _ in answers for use in parsed[key]]
    people_pairs = [(r.object, r.use) for _, r in chosen]
    vectors = Vectors(options.embedder)
    resources: dict[str, Any] = {"embedder": vectors.identity()}
    judge_failures = 0
    if options.scorer == "judge":
        scores = [parse_rating(str(t)) for _, _, r in answers for t in r.output.get("judgements", [])]
        judged = {r.unit.get("test_index"): parse_rating(str(r.output.get("judgement", "")))
                  for r in ok if r.key.startswith("people-")}
        people_scores = [judged.get(i) for i, _ in chosen]
        judge_failures = sum(s is None for s in scores) + sum(
            v is None for v in judged.values())
    else:
        scores, people_scores, extra = _originality(options, vectors, folder, pairs, people_pairs)
        resources.update(extra)
    table: list[dict[str, Any]] = []
    per_item: dict[str, list[float | None]] = {
        "originality_mean": [], "fluency_mean": [], "flexibility_mean": [], "elaboration_mean": []}
    model_norms: list[tuple[str, float]] = []
    start = 0
    for key, obj, record in answers:
        uses = parsed[key]
        mine = scores[start:start + len(uses)]
        start += len(uses)
        model_norms += [(obj.lower().strip(), s) for s in mine if s is not None]
        flex = _flexibility(vectors, uses, options.flexibility_threshold)
        elab, orig = elaboration(uses), _mean(mine)
        table.append({"key": key, "object": obj, **_repeat(record),
                      "fluency": len(uses), "flexibility": flex,
                      "elaboration": elab, "originality": orig, "uses": "; ".join(uses)[:200]})
        for name, value in (("originality_mean", orig), ("fluency_mean", float(len(uses))),
                            ("flexibility_mean", float(flex)), ("elaboration_mean", elab)):
            per_item[name].append(value)
    if options.repeats > 1:  # one value per object: the mean over its lists
        from creval.benchmarks.aut.repeats import per_object

        per_item = per_object(table, per_item)
    result = _assemble(options, folder, chosen, table, resources, judge_failures, per_item,
                       model_norms, people_scores)
    if options.repeats > 1:
        from creval.benchmarks.aut.repeats import list_noise

        return list_noise(result, table, options.repeats)
    return result


def _repeat(record: Record) -> dict[str, int]:
    return {"repeat": int(record.unit["repeat"])} if "repeat" in record.unit else {}


def _assemble(options: AUTOptions, folder: Path | None, chosen: list[tuple[int, Response]],
              table: list[dict[str, Any]], resources: dict[str, Any], judge_failures: int,
              per_item: dict[str, list[float | None]], model_norms: list[tuple[str, float]],
              people_scores: list[float | None]) -> Scores:
    from creval.benchmarks.aut.validation import people_norms, validate

    empty = sum(1 for row in table if not row["fluency"])
    headline: dict[str, Any] = {k: _mean(v) for k, v in per_item.items()}
    asked = options.uses * len(table)
    lists = {"lists": len(table)} if options.repeats > 1 else {}  # repeats: lists per object
    headline.update(objects=len({row["object"] for row in table}), **lists,
                    empty_answers=empty, uses_asked=asked,
                    uses_missing=sum(max(0, options.uses - row["fluency"]) for row in table))
    notes = [
        f"Originality per use by {options.scorer}"
        + {"semdis": f" (cosine distance object <-> use, {options.embedder}; 0-2)",
           "regressor": f" (ridge on {options.embedder} features fitted on people's train "
                        "ratings; people's 1-5 scale)",
           "judge": " (the judge's 1-5 rating, anchored with people's rated train responses)"
           }[options.scorer] + "; originality_mean is the mean over objects of each list's mean.",
        "Fluency: valid distinct uses per list; flexibility: categories among them (clusters of "
        f"{options.embedder} embeddings at cosine distance {options.flexibility_threshold}); "
        "elaboration: words per use. Compare runs only with the same scorer and embedder.",
    ]
    warnings: list[str] = []
    fluency = headline.get("fluency_mean")
    if fluency is not None and fluency < options.uses / 2:
        warnings.append(f"The model listed {fluency:.1f} uses per object on average of the "
                        f"{options.uses} asked ({empty} empty lists): a weak answer to the task, "
                        "and too few uses for the originality means to say much.")
    if judge_failures:
        notes.append(f"{judge_failures} judge answer(s) gave no rating 1-5 and were left out.")
    scores = Scores(headline=headline, per_item=per_item, table=table, notes=notes,
                    warnings=warnings, resources=resources)
    if folder is None:
        scores.notes.append("No people's data (--people, `creval data fetch ocsai`): the scorer "
                            "is not validated against people and there are no people's norms.")
        return scores.with_extra(scorer=options.scorer)
    total = len(load_split(folder, "test"))
    check = validate(folder, chosen, people_scores, scorer=options.scorer, total=total)
    people = [(r.object, s) for (_, r), s in zip(chosen, people_scores, strict=True) if s is not None]
    norms, norms_note = people_norms(model_norms, people)
    scores.headline.update(check.headline)
    scores.headline.update(norms)
    scores.notes += [*check.notes, norms_note]
    scores.warnings += check.warnings
    scores.judge_checks += check.checks
    scores.sections.append({"title": "Validation against people's ratings (Ocsai test responses)",
                            "rows": check.rows})
    return scores.with_extra(scorer=options.scorer)
