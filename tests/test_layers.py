"""Imports follow the one-way flow of the design (``shared/DESIGN.md``), with no exceptions.

Every import counts, module level or inside a function: a layer may import only layers
below it (or itself), metrics import nothing of creval but its errors, and no two modules
import each other, directly or through others.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "creval"

#: Layer of each top-level module or package of creval; lower layers never import higher.
RANK: dict[str, int] = {
    # the base: errors, then private helpers and the pure layers that use only errors
    "errors": 0,
    "_util": 1, "metrics": 1,
    # typed data: the run contract and what a benchmark declares about itself (filled in its
    # package, read by evaluation/, report/ and cli/)
    "records": 1,
    # providers: models, embedders, taggers, the sandbox; reading runs
    "models": 2, "embed": 2, "pos": 2, "sandbox": 2, "reader": 2,
    "nli": 3, "index": 3,
    # instruments and orchestration (neither knows the other)
    "judges": 4, "runner": 4,
    "benchmarks": 5,
    "report": 6,
    # on top: the application layer (evaluate, roles, presets), analyses of runs
    "evaluation": 7, "analyses": 7,
    "integrations": 8,
    "cli": 9, "__init__": 10,
}


def _layer(module: str) -> str:
    return module.split(".")[1] if "." in module else "__init__"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Module -> the creval modules it imports anywhere in its source."""
    modules = {_module_name(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # ``from creval.pkg import sub`` imports the module ``sub``, not the package
                targets = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            found |= {t for t in targets if t in modules and t != name}
        graph[name] = found
    return graph


GRAPH = _imports()


def test_every_top_level_module_has_a_layer() -> None:
    missing = sorted({_layer(m) for m in GRAPH} - set(RANK) - {"creval"})
    assert not missing, f"give these a layer in RANK: {missing}"


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_go_down(module: str) -> None:
    here = _layer(module)
    for target in GRAPH[module]:
        there = _layer(target)
        if there == here:
            continue
        assert RANK[there] < RANK[here], f"{module} imports {target}: {here} may not import {there}"
        if here == "metrics":
            assert there == "errors", f"{module} imports {target}: metrics import only errors"


def test_no_import_cycles() -> None:
    """No module reaches itself through imports (package ``__init__`` re-exports aside)."""
    packages = {m for m in GRAPH if (SRC.parent / m.replace(".", "/") / "__init__.py").exists()}
    edges = {m: {t for t in ts if t not in packages} for m, ts in GRAPH.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_nothing_imports_the_command_line() -> None:
    """``creval.cli`` is the top: the Python API and every layer work without it."""
    users = sorted(m for m, ts in GRAPH.items() if _layer(m) != "cli" and any(_layer(t) == "cli" for t in ts))
    assert not users, f"these import creval.cli: {users}"


def test_package_root_holds_only_the_public_surface_and_the_layers() -> None:
    """``ls src/creval``: the public modules and the layer packages, each with a rank above,
    plus the package data; a new small module belongs in the layer it serves or ``_util``."""
    entries = {p.name for p in SRC.iterdir() if p.name != "__pycache__"}
    layers = {e.removesuffix(".py") for e in entries} - {"data", "py.typed"}
    assert layers <= set(RANK), f"not a layer: {sorted(layers - set(RANK))}"
    assert len(entries) <= 22, f"{len(entries)} entries at the package root: {sorted(entries)}"
