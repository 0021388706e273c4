"""Third-party benchmarks, model providers and judges, found through entry points.

A package registers its own in its ``pyproject.toml``::

    [project.entry-points."creval.benchmarks"]
    my-bench = "my_pkg.bench:MyBenchmark"        # a Benchmark subclass (or a module that
                                                 # registers one with @register_benchmark)
    [project.entry-points."creval.models"]
    myprov = "my_pkg.models:create"              # create(name, options) -> Model; spec myprov:NAME
    [project.entry-points."creval.judges"]
    my-judge = "my_pkg.judges:make"              # make(generate, *, embedder, max_tokens) -> judge

Nothing is imported until a registry is first asked; a plug-in that fails to load is
reported with its name and the error, never silently skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import metadata
from typing import Any

from creval.errors import CrevalError

GROUPS = ("creval.benchmarks", "creval.models", "creval.judges")


def entry_points(group: str) -> list[metadata.EntryPoint]:
    """The installed entry points of ``group``, sorted by name."""
    return sorted(metadata.entry_points(group=group), key=lambda ep: ep.name)


def load(entry: metadata.EntryPoint) -> Any:
    """The object an entry point names, with an error that says which plug-in failed."""
    try:
        return entry.load()
    except Exception as exc:  # an import error, a missing attribute: name the plug-in
        dist = getattr(entry.dist, "name", "?")
        raise CrevalError(
            f"The creval plug-in {entry.name!r} ({entry.value}, from package {dist}) failed "
            f"to load: {type(exc).__name__}: {exc}. Fix or uninstall that package."
        ) from exc


_loaded: set[str] = set()


def load_group(group: str, register: Callable[[str, Any], object], *, load_objects: bool = True) -> None:
    """Once per process: ``register(name, object)`` for each entry point of ``group``
    (``object`` is the entry point's ``"module:attr"`` text when ``load_objects`` is False,
    for registries that import lazily)."""
    if group in _loaded:
        return
    _loaded.add(group)
    for entry in entry_points(group):
        register(entry.name, load(entry) if load_objects else entry.value)
