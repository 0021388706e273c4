"""Count the checks the test suite makes, so that a change to the suite can show none was lost.

Run from the repository root: ``python tools/count_assertions.py [--by-file] [--json] [tests]``.
It reads every ``*.py`` under the folder (``tests/`` by default) with :mod:`ast` (nothing is
imported or run) and counts, per file and in all:

- ``assert``: every ``assert`` statement, in tests and in the helpers they call (``_*.py``,
  ``conftest.py``). An ``assert x == pytest.approx(y)`` is one ``assert``, not two.
- ``raises``: every call of ``pytest.raises`` or ``pytest.warns`` (``with pytest.raises(...)``
  or the call form), each a check that something is raised or warned. ``raises(...)`` called by
  a bare name imported from pytest counts too.
- ``approx``: calls of ``pytest.approx`` / ``approx`` *outside* an ``assert`` (e.g. a value
  kept for a later comparison); those inside an ``assert`` are already counted by it.
- ``unittest``: calls of ``self.assert*`` (``assertEqual``, ``assertRaises``...).

The total is the sum of the four. It counts checks written in the source, not checks
executed: an ``assert`` in a loop or a parametrised test counts once, and a helper's
``assert`` once however many tests call it, so merging two tests that made the same check
lowers it by the duplicate only. Lines are not counted, so reformatting changes nothing.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from pathlib import Path

KINDS = ("assert", "raises", "approx", "unittest")


def _callee(node: ast.Call) -> str:
    """``pytest.raises`` -> ``"pytest.raises"``, ``raises`` -> ``"raises"``, else ``""``."""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name):
            return f"{func.value.id}.{func.attr}"
        return f"?.{func.attr}"
    return ""


class _Counter(ast.NodeVisitor):
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self._in_assert = 0

    def visit_Assert(self, node: ast.Assert) -> None:
        self.counts["assert"] += 1
        self._in_assert += 1
        self.generic_visit(node)
        self._in_assert -= 1

    def visit_Call(self, node: ast.Call) -> None:
        name = _callee(node)
        if name in {"pytest.raises", "pytest.warns", "raises", "warns"}:
            self.counts["raises"] += 1
        elif name in {"pytest.approx", "approx"}:
            if not self._in_assert:
                self.counts["approx"] += 1
        elif name.startswith("self.assert"):
            self.counts["unittest"] += 1
        self.generic_visit(node)


def count_file(path: Path) -> Counter[str]:
    """The checks of one Python file, by kind."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    visitor = _Counter()
    visitor.visit(tree)
    return visitor.counts


def count_tree(root: Path) -> dict[str, Counter[str]]:
    """Checks per file (path relative to ``root``'s parent) of every ``*.py`` under ``root``."""
    return {
        str(path.relative_to(root.parent)): count_file(path)
        for path in sorted(root.rglob("*.py"))
        if "__pycache__" not in path.parts
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default="tests", type=Path)
    parser.add_argument("--by-file", action="store_true", help="one line per file as well")
    parser.add_argument("--json", action="store_true", help="print JSON (totals and per file)")
    args = parser.parse_args(argv)
    per_file = count_tree(args.root)
    total: Counter[str] = Counter()
    for counts in per_file.values():
        total.update(counts)
    summary = {kind: total[kind] for kind in KINDS}
    summary["total"] = sum(summary.values())
    summary["files"] = len(per_file)
    if args.json:
        json.dump({"total": summary, "files": {f: dict(c) for f, c in per_file.items()}}, sys.stdout, indent=1)
        print()
        return 0
    if args.by_file:
        for name, counts in per_file.items():
            print(f"{sum(counts.values()):6d}  {name}  " + " ".join(f"{k}={counts[k]}" for k in KINDS if counts[k]))
    print(" ".join(f"{key}={value}" for key, value in summary.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
