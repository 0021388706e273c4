"""Every metric of seed 002 for a list of labelled texts (plain functions, no runner).

Per text: the Creativity Index (mean and sum of L-uniqueness over the range; one index
query per text gives the spans from which every range is computed), templates per token,
perplexity (from the run's records). Per set: CR-POS, template rate (and by n, seed 002
Figure 4), Distinct-n and Self-BLEU. A text that a metric cannot score is counted with its
reason under ``excluded`` and left out of that metric only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from creval.benchmarks.metric_validity.data import LabelledText
from creval.errors import CrevalError
from creval.index.scoring import NearMatcher, near_only
from creval.metrics.creativity_index import creativity_index, spans_from_match_ends
from creval.metrics.diversity import distinct_n, self_bleu
from creval.metrics.templates import (
    gzip_compression_ratio,
    mine_templates,
    pos_compression_ratio,
    template_counts,
    templates_per_token,
)

SENSITIVITY_RANGES = ((5, 5), (5, 7), (5, 9), (5, 11))
FIGURE_NS = (4, 5, 6, 7, 8)
SELF_BLEU_MAX_TEXTS = 100

#: per text id: metric name -> value
PerText = dict[str, dict[str, float]]


class _IndexQueries:
    """A local index opened once per worker, for :meth:`creval.runner.executors.Executor.map_with`."""

    def __init__(self, path: str) -> None:
        from creval.index.local import LocalIndex

        self._index = LocalIndex(path)

    def match_ends_many(self, texts: list[list[str]]) -> tuple[list[list[int]], int]:
        before = self._index.queries
        ends = self._index.match_ends_many(texts)
        return ends, self._index.queries - before


def _match_ends_many(index: Any, batch: list[list[str]]) -> list[list[int]]:
    """A local index's matches for ``batch``: here, or under Ray in chunks on actors that open
    the index once (the same matches; their queries are counted on ``index``)."""
    import functools
    from pathlib import Path

    from creval.runner.executors import current_executor, split

    executor, path = current_executor(), getattr(index, "path", None)
    if executor.name == "local" or path is None or not batch:
        return list(index.match_ends_many(batch))
    chunks = split(batch, 2 * int(getattr(executor, "workers", 1)))
    answers = executor.map_with(functools.partial(_IndexQueries, str(Path(path).resolve())),
                                "match_ends_many", chunks, label="index")
    index.queries += sum(queries for _, queries in answers)
    return [ends for chunk, _ in answers for ends in chunk]


def creativity_scores(items: Sequence[LabelledText], index: Any, *, min_l: int, max_l: int,
                      per_text: PerText, excluded: Counter[str],
                      near: NearMatcher | None = None) -> dict[str, Any]:
    """Fill ``ci_mean``/``ci_sum`` per text; return the L sensitivity tables and the index.

    ``index`` is a :class:`~creval.index.local.LocalIndex` or a
    :class:`~creval.index.remote.RemoteIndex` (whose matches shorter than its
    ``min_length`` are not looked for, so the L curve starts there). With ``near``, spans
    of ``min_l`` words and more that match near-verbatim are added to the verbatim ones.
    """
    near_added = 0
    first_l = getattr(index, "min_length", 1)
    longest = max([max_l, *(hi for _, hi in SENSITIVITY_RANGES)])
    by_l: dict[int, dict[int, list[float]]] = {label: {}for label in (1, 0)}
    ranges: dict[int, dict[str, list[float]]] = {1: {}, 0: {}}
    scorable = []
    for item in items:
        if not item.text.strip():
            excluded["ci: empty text"] += 1
            continue
        tokens = index.words(item.text)
        if len(tokens) <= max_l:
            excluded[f"ci: {max_l} words or fewer"] += 1
            continue
        scorable.append((item, tokens))
    many = getattr(index, "match_ends_many", None)  # a local index answers a batch at once
    batch = [tokens for _, tokens in scorable]
    all_ends = _match_ends_many(index, batch) if many is not None else [index.match_ends(t) for t in batch]
    for (item, tokens), ends in zip(scorable, all_ends, strict=True):
        spans = spans_from_match_ends(ends)
        top = min(longest, len(tokens) - 1)
        if near is not None:
            added = near_only(spans, near.spans(tokens, min_l=min_l, max_l=top))
            near_added += len(added)
            spans += added
        main = creativity_index(len(tokens), spans, min_l=min_l, max_l=max_l)
        per_text.setdefault(item.id, {}).update(ci_mean=main.mean, ci_sum=main.total)
        curve = creativity_index(len(tokens), spans, min_l=first_l, max_l=top).uniqueness
        for length, value in curve.items():
            by_l[item.label].setdefault(length, []).append(value)
        for lo, hi in SENSITIVITY_RANGES:
            if len(tokens) > hi:
                ranged = creativity_index(len(tokens), spans, min_l=lo, max_l=hi)
                ranges[item.label].setdefault(f"{lo}-{hi}", []).append(ranged.total)
    return {
        "index": index.identity(),
        "queries": index.queries,
        "matching": near.identity() if near is not None else {"matching": "verbatim"},
        "near_spans": near_added,
        "uniqueness_by_l": [
            {"L": length, **{name: _mean(by_l[label].get(length, [])) for label, name in ((1, "creative"), (0, "uncreative"))}}
            for length in range(first_l, longest + 1)
        ],
        "index_by_range": [
            {"range": f"{lo}-{hi}",
             **{f"{name}_sum": _mean(ranges[label].get(f"{lo}-{hi}", [])) for label, name in ((1, "creative"), (0, "uncreative"))},
             **{f"{name}_n": len(ranges[label].get(f"{lo}-{hi}", [])) for label, name in ((1, "creative"), (0, "uncreative"))}}
            for lo, hi in SENSITIVITY_RANGES
        ],
    }


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def template_scores(items: Sequence[LabelledText], tagger_spec: str, *, n: int, top_k: int,
                    per_text: PerText, excluded: Counter[str],
                    reference: Sequence[str] | None = None) -> dict[str, Any]:
    """TPT per text; CR-POS and template rate per set; template rate by n (Figure 4).

    Templates are mined from both sets jointly, as in seed 002, or from ``reference`` texts.
    """
    from creval.pos import get_tagger, tags_only

    tagger = get_tagger(tagger_spec)
    tagged = [tags_only(t) for t in tagger.tag([item.text for item in items])]
    usable = [(item, tags) for item, tags in zip(items, tagged, strict=True) if any(tags)]
    if len(usable) < len(items):
        excluded["templates: no tokens"] += len(items) - len(usable)
    if not usable:
        raise CrevalError("No text has a token to tag; the template metrics are undefined.")
    all_tags = [tags for _, tags in usable]
    source = all_tags
    if reference is not None:
        source = [t for t in (tags_only(x) for x in tagger.tag(list(reference))) if any(t)]
    templates = mine_templates(source, n=n, top_k=top_k)
    if not templates:
        raise CrevalError(f"No text has {n} tokens in one sentence: no POS {n}-gram to mine.")
    for (item, _), value in zip(usable, templates_per_token(all_tags, templates), strict=True):
        per_text.setdefault(item.id, {})["tpt"] = value
    sets: dict[str, dict[str, Any]] = {}
    for label, name in ((1, "creative"), (0, "uncreative")):
        tags = [t for item, t in usable if item.label == label]
        counts = template_counts(tags, templates) if tags else []
        sets[name] = {
            "cr_pos": pos_compression_ratio(tags) if tags else None,
            "template_rate": sum(c > 0 for c in counts) / len(counts) if counts else None,
        }
    by_n = []
    for size in FIGURE_NS:
        mined = mine_templates(source, n=size, top_k=top_k)
        row: dict[str, Any] = {"n": size}
        for label, name in ((1, "creative"), (0, "uncreative")):
            tags = [t for item, t in usable if item.label == label]
            counts = template_counts(tags, mined) if (tags and mined) else []
            row[name] = sum(c > 0 for c in counts) / len(counts) if counts else None
        by_n.append(row)
    return {"tagger": tagger.identity(), "templates": [" ".join(t) for t in templates[:10]],
            "sets": sets, "rate_by_n": by_n}


def diversity_scores(items: Sequence[LabelledText]) -> dict[str, dict[str, Any]]:
    """Distinct-1..3, the gzip compression ratio of the texts and Self-BLEU (first 100 texts:
    it is quadratic) per set."""
    out: dict[str, dict[str, Any]] = {}
    for label, name in ((1, "creative"), (0, "uncreative")):
        texts = [i.text for i in items if i.label == label and i.text.strip()]
        row: dict[str, Any] = {}
        for n in (1, 2, 3):
            try:
                row[f"distinct_{n}"] = distinct_n(texts, n=n)
            except ValueError:
                row[f"distinct_{n}"] = None
        row["compression_ratio"] = gzip_compression_ratio(texts) if texts else None
        sample = texts[:SELF_BLEU_MAX_TEXTS]
        row["self_bleu"] = self_bleu(sample) if len(sample) >= 2 else None
        out[name] = row
    return out
