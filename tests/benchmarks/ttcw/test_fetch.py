"""``creval data fetch ttcw`` against the upstream layout served on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli import creval
from _upstream import serve_upstream
from tests_paths import shared_data_path

from creval.benchmarks.ttcw.data import load_ttcw
from creval.benchmarks.ttcw.fetch import UPSTREAM_FILES, fetch_ttcw
from creval.errors import CrevalError


@pytest.fixture()
def upstream(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The pinned commit's files at their upstream paths, served over HTTP on loopback."""
    with serve_upstream(shared_data_path("ttcw"), UPSTREAM_FILES, tmp_path / "served") as served:
        yield served


def test_fetch_checks_digests_and_lays_out_what_the_loader_reads(
        upstream: tuple[str, Path], tmp_path: Path) -> None:
    url, served = upstream
    dest = fetch_ttcw(tmp_path / "dest", base_url=url)
    data = load_ttcw(dest)
    assert (len(data.tests), len(data.stories), len(data.experts)) == (14, 48, 672)
    assert len(data.released("gpt4")) == 672
    done = creval("data", "fetch", "ttcw", "--dest", str(dest))  # kept: digests match
    assert done.returncode == 0 and "ttcw: wrote" in done.stdout
    with (served / "Art_or_Artifice" / "data" / "annotations_gpt4.jsonl").open("a") as handle:
        handle.write("{}\n")
    with pytest.raises(CrevalError, match="expected SHA-256"):
        fetch_ttcw(tmp_path / "other", base_url=url)
