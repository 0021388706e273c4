"""``creval sweep`` of the benchmarks beyond the seed papers, through the CLI with loopback
models: AUT's originality against its valid-use rate; NoveltyBench's own ``--quality``
reaching the benchmark (the sweep's compare option is ``--at-quality``, ``compare``'s
``--quality`` still works)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests._cli import creval
from tests._servers import ChatServer, novelty_same


def aut_reply(body: dict[str, Any]) -> tuple[int, str]:
    """One use when cold, three when hot (of the three asked)."""
    if body["temperature"] < 0.5:
        return 200, "1. doorstop"
    return 200, "1. doorstop\n2. paperweight\n3. a tiny step for a garden gnome"


def _aut_sweep(tmp_path: Path, name: str, server: ChatServer) -> Path:
    out = tmp_path / name
    done = creval("sweep", "aut", "--model", "openai:m", "--base-url", server.url,
                  "--api-key", "x", "--values", "temperature=0.2,1.0", "--objects",
                  "brick,knife", "--uses", "3", "--embedder", "glove-6b-50d", "--no-progress",
                  "--resamples", "200", "--out", str(out),
                  env={"CREVAL_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@pytest.fixture(scope="module")
def aut_sweeps(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp_path = tmp_path_factory.mktemp("aut_sweeps")
    server = ChatServer(reply=aut_reply)
    try:
        return _aut_sweep(tmp_path, "a", server), _aut_sweep(tmp_path, "b", server)
    finally:
        server.close()


def test_aut_sweep_draws_originality_against_the_valid_use_rate(
        aut_sweeps: tuple[Path, Path]) -> None:
    root = aut_sweeps[0]
    points = json.loads((root / "sweep.json").read_text())["points"]
    by_t = {p["value"]: p for p in points if p["benchmark"] == "aut"}
    assert set(by_t) == {0.2, 1.0}
    assert by_t[0.2]["quality_measure"] == "valid_use_rate" and by_t[0.2]["n"] == 2
    assert by_t[0.2]["quality"] == pytest.approx(1 / 3) and by_t[1.0]["quality"] == 1.0
    for value, point in by_t.items():  # the divergent side: the run's own originality
        scores = json.loads((root / point["run"] / "scores.json").read_text())
        assert point["measure"] == "originality_mean"
        assert point["estimate"] == pytest.approx(scores["headline"]["originality_mean"]), value
    assert "valid_use_rate" in (root / "sweep.md").read_text()


@pytest.mark.parametrize("flag", ["--at-quality", "--quality"])
def test_compare_takes_its_quality_by_either_name(aut_sweeps: tuple[Path, Path],
                                                  flag: str) -> None:
    a, b = aut_sweeps
    done = creval("sweep", "compare", str(a), str(b), flag, "0.5", "--json", "--resamples", "100")
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads(done.stdout)["comparisons"]
    assert row["benchmark"] == "aut" and row["target"] == 0.5
    assert row["difference"] == pytest.approx(0.0)


def test_compare_quality_that_is_no_number_exits_2(aut_sweeps: tuple[Path, Path]) -> None:
    done = creval("sweep", "compare", str(aut_sweeps[0]), str(aut_sweeps[1]), "--quality", "hot")
    assert done.returncode == 2
    assert "--quality of creval sweep compare takes a number" in done.stdout + done.stderr


def novelty_reply(body: dict[str, Any]) -> tuple[int, str]:
    text = body["messages"][-1]["content"]
    if (verdict := novelty_same(text)) is not None:
        return 200, verdict
    assert "Rate how good" not in text, "--quality none asks no rating"
    return 200, "a cold answer" if body["temperature"] < 0.5 else f"answer {body['seed']}"


def test_noveltybench_quality_option_reaches_the_benchmark(tmp_path: Path) -> None:
    server = ChatServer(reply=novelty_reply)
    try:
        done = creval("sweep", "noveltybench", "--quality", "none", "--model", "openai:m",
                      "--base-url", server.url, "--api-key", "x", "--judge", "openai:j",
                      "--values", "temperature=0.2,1.0", "--k", "3", "--limit", "2",
                      "--no-progress", "--resamples", "100", "--out", str(tmp_path / "sw"))
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    for value, distinct in ((0.2, 1.0), (1.0, 3.0)):
        run = tmp_path / "sw" / f"temperature-{value!r}" / "noveltybench"
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["options"]["quality"] == "none"
        scores = json.loads((run / "scores.json").read_text())
        assert scores["headline"]["distinct_mean"] == distinct
        assert scores["headline"]["utility_mean"] is None
