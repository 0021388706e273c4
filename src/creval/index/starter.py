"""The default offline reference corpus: a small index of our own texts, built on first use.

The corpus is ``creval/data/metric_validity/reference_corpus.jsonl`` (25 short passages we
wrote). It is far too small to stand in for web-scale corpora: with it almost nothing
matches, so L-uniqueness is inflated. Reports that use it say so.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path


def starter_index_dir() -> Path:
    """The default offline index, built from our starter reference corpus on first use."""
    from creval._util.paths import cache_root
    from creval.index.build import build_index

    corpus = resources.files("creval") / "data" / "metric_validity" / "reference_corpus.jsonl"
    data = corpus.read_bytes()
    target = cache_root() / "indexes" / f"metric-validity-starter-{hashlib.sha256(data).hexdigest()[:12]}"
    if (target / "creval-index.json").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        source = work / "reference_corpus.jsonl"
        source.write_bytes(data)
        build_index([str(source)], work / "index", cpus=1, mem_gib=1)
        try:
            os.replace(work / "index", target)
        except OSError:  # another process finished first
            if not (target / "creval-index.json").is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target
