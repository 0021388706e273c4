"""Homogeneity of several models' answers as Markdown and as one self-contained HTML page.

Takes the plain documents of :meth:`creval.evaluation.compare.homogeneity.BenchmarkHomogeneity.to_dict`
(one per benchmark): the group x group matrix is drawn as a heat map by
:func:`creval.report.plots.render_svg` (matplotlib), beside the tables of groups and pairs.

>>> doc = {"benchmark": "dat", "measure": "word overlap (Jaccard)", "embedder": None,
...        "unit": "answer", "confidence": 0.95, "permutations": 10, "groups": ["a", "b"],
...        "matrix": [[0.5, 0.1], [0.1, 0.4]], "notes": [],
...        "models": [{"model": "a", "kind": "run", "within": 0.5, "low": 0.4, "high": 0.6,
...                    "items": 1, "answers": 4, "nearest": None, "nearest_similarity": None}],
...        "pairs": [{"a": "a", "b": "b", "similarity": 0.1, "low": 0.05, "high": 0.2,
...                   "p": 0.9, "items": 1}]}
>>> print(render_markdown([doc]).splitlines()[0])
## dat: how alike the models' answers are
>>> heatmap_spec(doc)["kind"]
'heatmap'
"""

from __future__ import annotations

from html import escape
from typing import Any

from creval.report.markdown import fmt, markdown_table

MODEL_COLUMNS = ["model", "kind", "within", "low", "high", "items", "answers", "nearest", "nearest_similarity"]
PAIR_COLUMNS = ["a", "b", "similarity", "low", "high", "p", "items"]


def _explanation(doc: dict[str, Any]) -> str:
    level = round(100 * float(doc["confidence"]))
    unit = ("jackknife over the answers within each group (Fisher z)" if doc["unit"] == "answer"
            else "t interval with Hall's skewness correction over the items")
    embedder = doc.get("embedder") or {}
    by = f" ({embedder.get('name') or embedder.get('model') or embedder})" if embedder else ""
    return (f"Similarity: {doc['measure']}{by}, mean over pairs of answers to the same item, then "
            f"over items. `within`: two answers of the same group; the pairs: one answer of each. "
            f"Intervals: {level}% {unit}. `p`: permutation test ({doc['permutations']} "
            "shuffles of the group labels within each item) of \"a's answers are closer to b's than "
            "to a random answer of the pool\"; a small p says the two are alike beyond chance.")


def heatmap_spec(doc: dict[str, Any]) -> dict[str, Any]:
    """The group x group matrix as a plot spec (:mod:`creval.report.plots`)."""
    return {"title": f"{doc['benchmark']}: similarity of answers (within on the diagonal)",
            "kind": "heatmap",
            "data": {"rows": list(doc["groups"]), "columns": list(doc["groups"]), "values": doc["matrix"]},
            "note": doc["measure"]}


def render_markdown(docs: list[dict[str, Any]]) -> str:
    """Every benchmark's groups, pairs and matrix as Markdown."""
    parts = []
    for doc in docs:
        matrix = [{"": g, **{h: v for h, v in zip(doc["groups"], row, strict=True)}}
                  for g, row in zip(doc["groups"], doc["matrix"], strict=True)]
        parts += [f"## {doc['benchmark']}: how alike the models' answers are", "",
                  _explanation(doc), "",
                  markdown_table(doc["models"], MODEL_COLUMNS), "",
                  markdown_table(doc["pairs"], PAIR_COLUMNS), "",
                  markdown_table(matrix), ""]
        parts += [f"- {note}" for note in doc["notes"]] + ([""] if doc["notes"] else [])
    return "\n".join(parts)


def _table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(
        f"<td class='{'num' if isinstance(r.get(c), int | float) else ''}'>{escape(fmt(r.get(c)))}</td>"
        for c in columns) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def render_html(docs: list[dict[str, Any]]) -> str:
    """One self-contained page: per benchmark the heat map, the groups and the pairs."""
    from creval.report.html import render_specs

    parts = ["<!doctype html><meta charset='utf-8'><title>creval compare --homogeneity</title>",
             "<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;"
             "margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em}td.num{text-align:right}"
             "figure.plot svg{max-width:100%;height:auto}.warning{color:#a40}</style>",
             "<h1>How alike the models' answers are</h1>"]
    for number, doc in enumerate(docs):
        plots, _ = render_specs([heatmap_spec(doc)], salt=f"homogeneity-{number}")
        notes = "".join(f"<li>{escape(n)}</li>" for n in doc["notes"])
        explanation = _explanation(doc).replace("`", "")
        parts.append(
            f"<section class='homogeneity' data-benchmark='{escape(doc['benchmark'])}'>"
            f"<h2>{escape(doc['benchmark'])}</h2><p>{escape(explanation)}</p>{plots}"
            f"<h3>Groups</h3>{_table(doc['models'], MODEL_COLUMNS)}"
            f"<h3>Pairs</h3>{_table(doc['pairs'], PAIR_COLUMNS)}"
            + (f"<ul>{notes}</ul>" if notes else "") + "</section>")
    return "\n".join(parts) + "\n"
