"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _servers import LlamaServer
from tests_paths import REPO, SHARED_DATA, shared_data_path  # noqa: F401  (re-exported)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own response cache unless it sets one itself."""
    monkeypatch.setenv("CREVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``llama_cpp.server`` on the packaged SmolLM2, shared by the session; its base URL."""
    server = LlamaServer(tmp_path_factory.mktemp("llama_server") / "server.log")
    try:
        try:
            server.wait_ready()
        except RuntimeError as exc:
            pytest.fail(str(exc))
        yield server.url
    finally:
        server.stop()
