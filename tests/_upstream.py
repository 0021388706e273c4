"""A pinned upstream repository served on loopback: the staged files of ``../shared/data``
copied to their paths upstream and served over HTTP, for the ``creval data fetch`` tests."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@contextmanager
def serve_upstream(shared: Path, files: Mapping[str, tuple[str, str]],
                   folder: Path) -> Iterator[tuple[str, Path]]:
    """Serve ``{local path: (upstream path, digest)}`` of ``shared`` from ``folder``; yields
    the base URL and the served folder (edit a file there to serve a damaged one)."""
    for local, (remote, _) in files.items():
        (folder / remote).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared / local, folder / remote)
    handler = partial(SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", folder
    finally:
        httpd.shutdown()
        httpd.server_close()
