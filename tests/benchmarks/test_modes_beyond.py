"""NoveltyBench and AUT in the execution modes, through the CLI with loopback stand-ins
(2 prompts, 2 objects): on a local Ray cluster (``--executor ray``, started here and stopped
after) and through the OpenAI Batch API (``--batch``, the loopback batch server), each giving
the scores of the plain run on the same answers, the judge included (NoveltyBench's
partitioning and quality judge, AUT's judge scorer)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._batch_server import BatchServer
from tests._cli import creval, creval_process
from tests._ray import RayHead, token_env
from tests._servers import ChatServer, novelty_pair


def reply(body: dict[str, Any]) -> tuple[int, str]:
    """The target and the judge of both benchmarks, as functions of what they are asked."""
    text = body["messages"][-1]["content"]
    if (pair := novelty_pair(text)) is not None:  # NoveltyBench's same/different: same parities
        a, b = pair
        return 200, "same" if int(a.split()[-1]) % 2 == int(b.split()[-1]) % 2 else "different"
    if "Rate how good" in text:  # NoveltyBench's quality
        return 200, str(3 + len(text) % 5)
    if text.startswith("You rate how original"):  # AUT's judge scorer
        return 200, str(1 + len(text) % 5)
    if "creative, unusual uses" in text and "Object:" in text:  # AUT's target
        return 200, "1. doorstop\n2. paperweight\n3. a step for a garden gnome"
    return 200, f"answer {body['seed']}"


NOVELTY = ["noveltybench", "--k", "3", "--limit", "2", "--judge", "openai:j"]
AUT = ["aut", "--objects", "brick,knife", "--uses", "3", "--scorer", "judge",
       "--embedder", "glove-6b-50d", "--judge", "openai:j"]
BENCHES = {"noveltybench": NOVELTY, "aut": AUT}


def _args(bench: str, url: str, out: Path) -> list[str]:
    return ["run", *BENCHES[bench], "--model", "openai:m", "--base-url", url, "--api-key", "x",
            "--no-progress", "--no-cache", "--out", str(out)]


def _scores(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "scores.json").read_text()))


def _same_scores(a: Path, b: Path) -> None:
    sa, sb = _scores(a), _scores(b)
    for key in ("headline", "per_item", "table"):
        assert sa[key] == sb[key], key


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """Both benchmarks run plainly against the stand-in: the runs' root and the stand-in."""
    root = tmp_path_factory.mktemp("plain")
    server = ChatServer(reply=reply)
    try:
        for bench in BENCHES:
            done = creval(*_args(bench, server.url, root / bench))
            assert done.returncode == 0, done.stderr
        yield root, server.url
    finally:
        server.close()


def test_the_plain_runs_used_the_judge(plain: tuple[Path, str]) -> None:
    root, _ = plain
    novelty, aut = _scores(root / "noveltybench"), _scores(root / "aut")
    assert novelty["headline"]["distinct_mean"] == 2.0  # answers by parity: two classes
    assert novelty["headline"]["utility_mean"] is not None
    assert aut["headline"]["originality_mean"] is not None and aut["headline"]["fluency_mean"] == 3


@pytest.mark.slow
def test_ray_executor_gives_the_plain_scores(plain: tuple[Path, str], tmp_path: Path,
                                            ray_head: RayHead) -> None:
    root, url = plain
    with token_env(ray_head) as address:  # the session's local Ray cluster, its token here
        for bench in BENCHES:
            out = tmp_path / bench
            done = creval_process(*_args(bench, url, out), "--executor", "ray",
                                  "--ray-address", address)
            assert done.returncode == 0, done.stderr[-3000:]
            manifest = json.loads((out / "manifest.json").read_text())
            assert manifest["executor"]["executor"] == "ray"
            _same_scores(out, root / bench)


@pytest.mark.parametrize("bench", list(BENCHES))
def test_batch_mode_gives_the_plain_scores(plain: tuple[Path, str], tmp_path: Path,
                                           bench: str) -> None:
    root, _ = plain
    server = BatchServer(reply=reply, polls=1)
    out = tmp_path / bench
    try:
        done = creval(*_args(bench, server.url, out), "--batch", "--batch-poll", "0.05")
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    assert server.chat == 0 and server.created >= 2  # the target's answers, then the judge's
    lines = [json.loads(line) for file in server.files.values() for line in file.decode().splitlines()]
    asked = {line["body"]["model"] for line in lines if "method" in line}  # the uploaded lines
    assert asked == {"m", "j"}  # both roles went through the batch API
    _same_scores(out, root / bench)
