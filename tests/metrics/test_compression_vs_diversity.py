"""Our compression ratio against the values the ``diversity`` package (0.3.1) gave on the
staged sets (``creative_eval/reference_outputs``), and the reason they differ.

diversity's ``compression_ratio(texts, algorithm='gzip')`` writes ``gzip.compress(data)``
into a ``gzip.GzipFile`` named ``compressed.gz``: the data is gzipped twice and the second
header carries the file name. We gzip once. Both are reproduced here from the same texts.
"""

from __future__ import annotations

import gzip
import io
import json

import pytest
from tests_paths import shared_data_path

from creval.metrics.templates import gzip_compression_ratio


def _diversity_as_coded(texts: list[str]) -> float:
    data = " ".join(texts).encode("utf-8")
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="compressed.gz", mode="wb", fileobj=buffer, mtime=0) as handle:
        handle.write(gzip.compress(data))
    return round(len(data) / len(buffer.getvalue()), 3)


def _texts(key: str) -> list[str]:
    """Keys: a file path, or ``path#label=1(unconventional).solution`` for MacGyver."""
    path, _, label = key.partition("#label=")
    label = label[:1]
    file = shared_data_path("creative_eval", *path.split("/"))
    if label:
        rows = [json.loads(x) for x in file.read_text(encoding="utf-8").splitlines()]
        return [r["solution"] for r in rows if str(r["label"]) == label]
    return [r["text"] for r in json.loads(file.read_text(encoding="utf-8"))]


def test_single_pass_and_double_gzip_match_the_staged_values() -> None:
    reference = json.loads(shared_data_path(
        "creative_eval", "reference_outputs", "diversity_0.3.1_lexical_metrics.json").read_text())
    results = reference["results"]
    assert len(results) >= 18
    differ = 0
    for key, expected in results.items():
        texts = _texts(key)
        assert len(texts) == expected["n_texts"], key
        ours = gzip_compression_ratio(texts)
        assert round(ours, 3) == pytest.approx(expected["compression_ratio_gzip_single_pass_level9"], abs=1e-9), key
        assert _diversity_as_coded(texts) == pytest.approx(expected["compression_ratio_gzip_as_coded"], abs=1e-9), key
        differ += round(ours, 3) != expected["compression_ratio_gzip_as_coded"]
    assert differ > 0  # the double gzip does change published numbers
