"""Fixtures of the sandbox tests: the isolation levels that work here, a listening socket."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from creval.sandbox.isolation import probe

from .helpers import process_python


@pytest.fixture(params=["namespace", "process"])
def level(request: pytest.FixtureRequest) -> dict[str, str]:
    """Keyword arguments for ``run``: each isolation level that works here."""
    if request.param == "namespace":
        reason = probe("namespace")
        if reason:
            pytest.skip(f"namespace isolation does not work on this machine: {reason}")
        return {"isolation": "namespace"}
    python = process_python()
    if python is None:
        pytest.skip("no interpreter readable by an unprivileged uid for process isolation")
    return {"isolation": "process", "python": python}


@pytest.fixture
def namespace() -> dict[str, str]:
    reason = probe("namespace")
    if reason:
        pytest.skip(f"namespace isolation does not work on this machine: {reason}")
    return {"isolation": "namespace"}


@pytest.fixture
def listening_socket() -> Iterator[tuple[socket.socket, int]]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    yield server, server.getsockname()[1]
    server.close()
