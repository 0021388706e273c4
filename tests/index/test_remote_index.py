"""``api:NAME``: the infini-gram API protocol against a real HTTP server on loopback that
counts spans in a small corpus; retries, and failures that are errors, never novelty."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

pytest.importorskip("sacremoses", reason="needs the 'index' extra (sacremoses)")
pytest.importorskip("nltk", reason="needs the 'index' extra (nltk)")

from creval.errors import CrevalError  # noqa: E402
from creval.index import words  # noqa: E402
from creval.index.remote import RemoteIndex  # noqa: E402
from creval.index.scoring import score_texts  # noqa: E402

CORPUS = [
    "The old lighthouse keeper climbed the stairs every night to light the lamp.",
    "A storm came from the west and the lamp went out at midnight.",
]
DOCS = [words(t) for t in CORPUS]


class CountServer:
    """POST / with {"corpus", "query_type": "count", "query"}: counts the query's words."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.statuses = list(statuses or [])
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                owner.requests.append(body)
                status = owner.statuses.pop(0) if owner.statuses else 200
                span = words(body["query"])
                count = sum(d[i:i + len(span)] == span for d in DOCS for i in range(len(d)))
                payload = json.dumps({"count": count} if status == 200 else {"error": "busy"}).encode()
                self.send_response(status)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


@pytest.fixture()
def server() -> Iterator[CountServer]:
    s = CountServer()
    yield s
    s.httpd.shutdown()


def test_remote_uniqueness_equals_brute_force(server: CountServer) -> None:
    index = RemoteIndex("v4_test", url=server.url, backoff=0.0, min_length=3)
    text = "Every night the old lighthouse keeper climbed the stairs, and the lamp went out at midnight."
    (outcome,) = score_texts(index, [text], min_l=3, max_l=6)
    tokens = words(text)
    for length in range(3, 7):
        covered = [False] * len(tokens)
        for a in range(len(tokens)):
            for b in range(a + length, len(tokens) + 1):
                if any(d[i:i + b - a] == tokens[a:b] for d in DOCS for i in range(len(d))):
                    covered[a:b] = [True] * (b - a)
        assert outcome.result is not None
        assert outcome.result.uniqueness[length] == pytest.approx(covered.count(False) / len(tokens))
    assert server.requests[0]["corpus"] == "v4_test" and server.requests[0]["query_type"] == "count"
    assert index.queries <= 2 * len(tokens)  # a sliding window that never shrinks


def test_rate_limits_are_retried_and_failures_are_errors() -> None:
    flaky = CountServer([429, 503])
    try:
        index = RemoteIndex("v4_test", url=flaky.url, backoff=0.0, retries=2, min_length=3)
        assert index.count(["the", "lamp", "went"]) == 1
        assert index.queries == 3
    finally:
        flaky.httpd.shutdown()
    down = CountServer([500] * 10)
    try:
        index = RemoteIndex("v4_test", url=down.url, backoff=0.0, retries=2, min_length=3)
        with pytest.raises(CrevalError, match="failed after 2 retries"):
            score_texts(index, ["Nothing here matches the corpus at all, not one phrase."], min_l=3, max_l=5)
    finally:
        down.httpd.shutdown()
