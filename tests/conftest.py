"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _ray import RayHead
from _servers import LlamaServer
from _verified_runs import (  # noqa: F401  (hooks: creval verify on every run the tests write)
    pytest_configure,
    pytest_runtest_protocol,
    pytest_sessionfinish,
)
from tests_paths import REPO, SHARED_DATA, shared_data_path  # noqa: F401  (re-exported)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own response cache unless it sets one itself."""
    monkeypatch.setenv("CREVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``llama_cpp.server`` on the packaged SmolLM2, shared by the session; its base URL.

    Under pytest-xdist each worker has its own (it starts in seconds and holds 135M
    parameters): a server shared by workers would have no owner to stop it once the last
    test using it is done. Its port comes from the OS; should another worker's server take
    that port before this one binds it, it is started again on a new one."""
    folder = tmp_path_factory.mktemp("llama_server")
    for attempt in range(3):
        server = LlamaServer(folder / f"server-{attempt}.log")
        try:
            server.wait_ready()
        except RuntimeError as exc:
            server.stop()
            if "address already in use" in str(exc).lower() and attempt < 2:
                continue
            pytest.fail(str(exc))
        break
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def ray_head() -> Iterator[RayHead]:
    """A local Ray cluster of 2 CPUs in a process of ours, shared by the session (one per
    pytest-xdist worker, as ``llama_server``): the Ray tests' drivers connect to it with
    ``--ray-address`` and its token (``RayHead.env``, or ``_ray.token_env``). Starting one
    took 10-30 s on the 2-core machine, once per module before (issue 45). A driver killed
    by a test leaves it whole (its tasks and actors die with the driver); it is stopped, with
    every process under it, at the end of the session."""
    head = RayHead(cpus=2)
    try:
        yield head
    finally:
        head.stop()
