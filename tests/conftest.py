"""Fixtures shared by the whole suite."""

from __future__ import annotations

import pytest
from tests_paths import REPO, SHARED_DATA, shared_data_path  # noqa: F401  (re-exported)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own response cache unless it sets one itself."""
    monkeypatch.setenv("CREVAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
