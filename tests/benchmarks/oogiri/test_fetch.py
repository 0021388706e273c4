"""Fetching Oogiri-GO against a real HTTP server on loopback laid out like the hub."""

from __future__ import annotations

import json
import threading
import zipfile
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.oogiri.data import load_prompts
from creval.benchmarks.oogiri.fetch import fetch_oogiri
from creval.errors import CrevalError


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def hub(tmp_path: Path) -> Path:
    remote = tmp_path / "remote"
    remote.mkdir()
    example = shared_data_path("oogiri", "schema_example.jsonl").read_text()
    (remote / "en.jsonl").write_text(example)
    (remote / "cn.jsonl").write_text(json.dumps(
        {"type": "T2T", "question": "为什么猫不上班？", "image": None, "text": "它在家办公。", "star": 3},
        ensure_ascii=False) + "\n")
    (remote / "jp.jsonl").write_text(example)
    with zipfile.ZipFile(remote / "images.zip", "w") as zf:
        zf.writestr("images/5651380.jpg", b"\xff\xd8\xff fake jpeg")
        zf.writestr("../../escape.jpg", b"should land inside images/")
        zf.writestr("images/notes.txt", b"not an image")
    return remote


def test_fetch_writes_the_files_and_unpacks_images_safely(tmp_path: Path) -> None:
    remote = hub(tmp_path)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(remote)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        dest = fetch_oogiri(tmp_path / "data", base_url=base)
        with pytest.raises(CrevalError, match="Could not download"):
            fetch_oogiri(tmp_path / "other", base_url=base + "/missing")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert (dest / "en.jsonl").read_text() == (remote / "en.jsonl").read_text()
    assert sorted(p.name for p in (dest / "images").iterdir()) == ["5651380.jpg", "escape.jpg"]
    assert not (tmp_path / "escape.jpg").exists()
    zh = load_prompts(str(dest), "zh", test_share=0.5)
    assert [p.responses[0].text for p in zh.prompts] == ["它在家办公。"]
    en = load_prompts(str(dest), "en", test_share=0.5)
    assert en.prompts[0].image == "5651380"


def test_a_damaged_archive_is_reported(tmp_path: Path) -> None:
    dest = tmp_path / "data"
    dest.mkdir()
    for name in ("en.jsonl", "cn.jsonl", "jp.jsonl"):
        (dest / name).write_text("")
    (dest / "images.zip").write_bytes(b"not a zip")
    with pytest.raises(CrevalError, match="not a valid zip"):
        fetch_oogiri(dest, base_url="http://127.0.0.1:9")  # nothing left to download
    assert not (dest / "images").exists()
