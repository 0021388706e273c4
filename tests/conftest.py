"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _ray import RayHead
from _servers import LlamaServer
from _verified_runs import (  # noqa: F401  (hooks: creval verify on every run the tests write)
    pytest_configure,
    pytest_runtest_protocol,
    pytest_sessionfinish,
)
from tests_paths import REPO, SHARED_DATA, shared_data_path  # noqa: F401  (re-exported)

#: Cache folders that hold only values computed from their key's inputs (keyed by digest), so a
#: session computes each once and every test reads it (DAT's random-word control: the same
#: scorer's 1,000 random lists for every DAT run of the suite).
SHARED_CACHES = ("dat-chance",)


@pytest.fixture(scope="session")
def _shared_caches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shared-cache")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch,
                    _shared_caches: Path) -> None:
    """Every test gets its own response cache unless it sets one itself; the digest-keyed
    computed values of :data:`SHARED_CACHES` are shared by the session (written atomically)."""
    cache = tmp_path_factory.mktemp("cache")
    for name in SHARED_CACHES:
        (_shared_caches / name).mkdir(exist_ok=True)
        (cache / name).symlink_to(_shared_caches / name, target_is_directory=True)
    monkeypatch.setenv("CREVAL_CACHE_DIR", str(cache))


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
