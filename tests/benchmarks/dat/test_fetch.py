"""``creval data fetch dat-humans`` against the upstream layout served on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _upstream import serve_upstream

from creval.benchmarks.dat.fetch import UPSTREAM_FILES, fetch_dat_humans
from creval.benchmarks.dat.humans import read_model_words, read_people, read_retest
from creval.errors import CrevalError
from tests._cli import creval
from tests.tests_paths import shared_data_path


@pytest.fixture()
def upstream(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The pinned commit's files at their upstream paths, served over HTTP on loopback."""
    with serve_upstream(shared_data_path("dat-humans"), UPSTREAM_FILES, tmp_path / "served") as served:
        yield served


def test_fetch_checks_digests_and_lays_out_what_the_reader_reads(
        upstream: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = upstream
    dest = fetch_dat_humans(tmp_path / "dest", base_url=url)
    assert len(read_people(dest)) == 8572 and len(read_retest(dest)) == 50
    assert {m.model for m in read_model_words(dest, "top_p")} >= {"gpt-4", "chatglm-6b"}
    # A second fetch keeps the files (their digests match): the CLI path, with no network.
    done = creval("data", "fetch", "dat-humans", "--dest", str(dest))
    assert done.returncode == 0 and "dat-humans: wrote" in done.stdout
    assert "dat-humans" in creval("data", "list").stdout


def test_fetch_refuses_a_changed_file(upstream: tuple[str, Path], tmp_path: Path) -> None:
    url, served = upstream
    with (served / "human-level" / "study2.tsv").open("a") as handle:
        handle.write("R_x\t1\n")
    with pytest.raises(CrevalError, match="expected SHA-256"):
        fetch_dat_humans(tmp_path / "dest", base_url=url)
    assert not (tmp_path / "dest" / "human-level" / "study2.tsv").exists()
    (served / "greedy_search" / "data_greedy.txt").unlink()
    with pytest.raises(CrevalError, match="Could not download"):
        fetch_dat_humans(tmp_path / "dest", base_url=url, checksums=False)
