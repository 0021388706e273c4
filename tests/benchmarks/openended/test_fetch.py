"""Fetching upstream open-ended data, against a real HTTP server on loopback."""

from __future__ import annotations

import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from creval.benchmarks.openended.fetch import download, fetch_macgyver
from creval.errors import CrevalError


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def serve(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def test_fetch_macgyver_writes_the_sheet_whole(tmp_path: Path) -> None:
    remote = tmp_path / "remote"
    remote.mkdir()
    (remote / "sheet.xlsx").write_bytes(b"PK\x03\x04" + bytes(range(256)) * 40)
    httpd, base = serve(remote)
    try:
        dest = tmp_path / "data"
        dest.mkdir()
        path = fetch_macgyver(dest, url=f"{base}/sheet.xlsx")
        assert path.read_bytes() == (remote / "sheet.xlsx").read_bytes()
        with pytest.raises(CrevalError, match="Could not download"):
            download(f"{base}/missing.xlsx", dest / "x.xlsx")
        assert not (dest / "x.xlsx").exists() and not (dest / "x.xlsx.part").exists()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_data_fetch_rejects_unknown_names() -> None:
    done = subprocess.run([sys.executable, "-m", "creval.cli", "data", "fetch", "nosuch"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "neocoder" in done.stderr
