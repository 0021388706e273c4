"""Paired per-prompt comparison with a released model: each text's own metrics against the
released model's answer to the same upstream prompt (``prompt_index``), the mean difference
with its interval, the sign-flip permutation p-value and Holm's adjustment over the metrics."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from creval.benchmarks.slop.data import read_released
from creval.errors import CrevalError
from creval.metrics.paired import holm, paired_difference, sign_flip_p
from creval.metrics.slop import slop_metrics, utf16_length

#: The per-text metrics compared (the repetition score is a pooled measure, not per text).
PAIRED = ("slop_list_matches_per_1k_words", "slop_trigram_matches_per_1k_words",
          "not_x_but_y_per_1k_chars", "mattr_500", "type_token_ratio", "vocab_level",
          "avg_sentence_length", "avg_paragraph_length", "dialogue_frequency")
_INDEX = re.compile(r"(?:upstream-)?(\d+)")


def prompt_index(item_id: str) -> int | None:
    """The upstream prompt an item answered: ``upstream-12`` (a run) or ``12`` (a results
    file), else None.

    >>> prompt_index("upstream-12"), prompt_index("12"), prompt_index("starter-c1")
    (12, 12, None)
    """
    found = _INDEX.fullmatch(item_id)
    return int(found.group(1)) if found else None


def paired_with_released(rows: list[dict[str, Any]], released: str | Path, *, words: set[str],
                         trigrams: set[str], min_chars: int) -> dict[str, Any]:
    """``rows`` (the score's table: ``id``, ``chars`` and each metric) against the released
    results file ``released``, per prompt both answered with more than ``min_chars``
    characters. Differences are ours minus theirs."""
    path = Path(released)
    if not path.is_file():
        raise CrevalError(f"--against {path} does not exist. Give a released results file "
                          "(results/<model>.json or .json.gz of sam-paech/slop-score).")
    model, samples = read_released(path)
    theirs = {int(s["prompt_index"]): str(s.get("output") or "") for s in samples
              if isinstance(s.get("prompt_index"), int)}
    pairs = []
    for row in rows:
        index = prompt_index(str(row["id"]))
        other = theirs.get(index) if index is not None else None
        if other is None or row["chars"] <= min_chars or utf16_length(other) <= min_chars:
            continue
        measured = slop_metrics(other, words=words, trigrams=trigrams)
        if measured is not None:
            pairs.append((row, measured))
    if not pairs:
        raise CrevalError(f"No prompt answered both here and by {model} in {path} (longer than "
                          f"{min_chars} characters): compare a run on upstream's prompts "
                          "(--data) or an upstream results file.")
    table = []
    for name in PAIRED:
        kept = [(r[name], m[name]) for r, m in pairs if r[name] is not None and m[name] is not None]
        if not kept:
            continue
        a, b = [x for x, _ in kept], [y for _, y in kept]
        diff = paired_difference(a, b)
        table.append({"metric": name, "n": diff.n, "ours": sum(a) / len(a), "theirs": sum(b) / len(b),
                      "difference": diff.difference, "low": diff.low, "high": diff.high,
                      "p": sign_flip_p(a, b), "note": diff.reason})
    for row, adjusted in zip(table, holm([r["p"] for r in table]), strict=True):
        row["p_holm"] = adjusted
    return {"against": model, "file": str(path), "prompts": len(pairs), "table": table}
