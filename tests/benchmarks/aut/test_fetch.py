"""``creval data fetch ocsai``: the pinned files, served at their upstream paths on loopback,
are checked by digest and laid out as the aut benchmark reads them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _upstream import serve_upstream

from creval.benchmarks.aut.data import load_split, people_folder, published_scores
from creval.benchmarks.aut.fetch import UPSTREAM_FILES, fetch_ocsai
from creval.errors import CrevalError
from tests.tests_paths import shared_data_path


@pytest.fixture()
def upstream(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    with serve_upstream(shared_data_path("ocsai"), UPSTREAM_FILES, tmp_path / "served") as served:
        yield served


def test_fetch_checks_digests_and_lays_out_what_aut_reads(upstream: tuple[str, Path],
                                                         tmp_path: Path) -> None:
    url, served = upstream
    dest = people_folder(str(fetch_ocsai(tmp_path / "dest", base_url=url)))
    assert dest is not None and len(load_split(dest, "test")) == 3030
    assert set(published_scores(dest)) == {"gpt-4o", "gpt-4o-mini", "ocsai-chatgpt", "ocsai-davinci2"}
    (served / "data/ocsai1/finetune-gt_main2_prepared_val.jsonl").write_text("changed\n")
    (dest / "ocsai1/finetune-gt_main2_prepared_val.jsonl").unlink()
    with pytest.raises(CrevalError, match="expected SHA-256"):
        fetch_ocsai(dest, base_url=url)
