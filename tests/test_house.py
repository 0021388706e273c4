"""A benchmark says everything about itself (issue 41): ``evaluation/``, ``report/`` and
``cli/`` name no benchmark. They read what a benchmark declares through its hooks on
``Benchmark`` (``creval.records.declarations``) and find it through the registry, never by
its registered name written as a string or by importing its package.

Docstrings and ``help=`` texts may name a benchmark (they are documentation). What still names
one is in :data:`PENDING`, each with why; the list only shrinks, and an entry that no longer
occurs fails the test so that it is taken out.
"""

from __future__ import annotations

import ast
from pathlib import Path

from creval.benchmarks import registry

SRC = Path(__file__).resolve().parents[1] / "src" / "creval"
#: The rooms that name no benchmark.
ROOMS = ("evaluation", "report", "cli")
#: Modules of ``benchmarks/`` that are no benchmark's package (the contract, shared helpers).
SHARED = {"base", "common", "families", "offline", "simulate", "repeats"}

#: (file under src/creval, benchmark) still named there, pending its move into the benchmark's
#: declarations. Keep it short; take an entry out when its file stops naming the benchmark.
_PENDING_BY_FILE: dict[str, tuple[str, ...]] = {
    # sweep: DAT's released lists
    "evaluation/sweep/released.py": ('dat', 'import dat'),
    # built-in plots by benchmark
    "report/figures.py": ('dat', 'metric-validity', 'sat'),
    # a command of the open-ended tasks
    "cli/novelty.py": ('bookmia', 'hypogen', 'import openended', 'macgyver'),
    # `creval play lotbench`
    "cli/play.py": ('lotbench',),
    # `creval score answers` per benchmark (each short name reads its own input)
    "cli/score/benchmarks.py": ('dat', 'import dat', 'import neocoder', 'import sat', 'import ttct', 'jcq', 'neocoder',
                                'sat', 'slop'),
    # `creval score slop FILE` (the slop benchmark's text reader and scorer, as above)
    "cli/score/slop.py": ('import slop',),
    # metric-validity's measures as metrics
    "cli/score/metrics.py": ('import metric_validity',),
    # `creval train` (DAT's reward)
    "cli/train.py": ('import dat',),
}
PENDING: set[tuple[str, str]] = {(f, n) for f, names in _PENDING_BY_FILE.items() for n in names}


def _packages() -> set[str]:
    root = SRC / "benchmarks"
    return {p.name for p in root.iterdir() if (p / "__init__.py").is_file()} - SHARED


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of the module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _help_texts(tree: ast.AST) -> set[int]:
    """The ids of the constants inside ``help=`` arguments (command-line help)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "help":
            found |= {id(n) for n in ast.walk(node.value) if isinstance(n, ast.Constant)}
    return found


def named(source: str, names: set[str], packages: set[str]) -> set[str]:
    """The benchmarks ``source`` names: a registered name as a string (not in a docstring or a
    ``help=`` text), or an import of a benchmark's package."""
    tree = ast.parse(source)
    allowed = _docstrings(tree) | _help_texts(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in allowed:
            if node.value in names:
                found.add(node.value)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[:2] == ["creval", "benchmarks"] and len(parts) > 2 and parts[2] in packages:
                    found.add(f"import {parts[2]}")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[:2] == ["creval", "benchmarks"]:
                if len(parts) > 2 and parts[2] in packages:
                    found.add(f"import {parts[2]}")
                elif len(parts) == 2:
                    found |= {f"import {a.name}" for a in node.names if a.name in packages}
    return found


def _scan() -> dict[tuple[str, str], None]:
    names, packages = set(registry()), _packages()
    hits: dict[tuple[str, str], None] = {}
    for room in ROOMS:
        for path in sorted((SRC / room).rglob("*.py")):
            rel = path.relative_to(SRC).as_posix()
            for name in sorted(named(path.read_text(encoding="utf-8"), names, packages)):
                hits[(rel, name)] = None
    return hits


def test_the_scan_sees_a_name_and_an_import_and_passes_documentation() -> None:
    names, packages = {"dat", "ttcw-judges"}, {"dat", "ttcw"}
    source = '''"""The module names dat in its docstring."""
import creval.benchmarks.dat.humans
from creval.benchmarks import ttcw, base
from creval.benchmarks.base import get_benchmark

def f(x: str) -> bool:
    """dat"""
    opt = typer.Option(None, help="dat")
    return x == "ttcw-judges" or get_benchmark(x).name == "data"
'''
    assert named(source, names, packages) == {"import dat", "import ttcw", "ttcw-judges"}
    assert named('get_benchmark("dat")', names, packages) == {"dat"}
    assert named('"""dat"""\nx = 1', names, packages) == set()


def test_evaluation_report_and_cli_name_no_benchmark() -> None:
    hits = _scan()
    new = sorted(set(hits) - set(PENDING))
    assert not new, ("These files name a benchmark; ask its declarations (Benchmark hooks) "
                     f"instead: {new}")


def test_the_pending_list_only_holds_what_is_still_there() -> None:
    hits = _scan()
    gone = sorted(set(PENDING) - set(hits))
    assert not gone, f"No longer named there: take these out of PENDING: {gone}"


def test_what_benchmarks_declare_holds_together() -> None:
    """The declarations the rooms read: one place per family member, options that exist."""
    places: dict[tuple[str, int], str] = {}
    for name, cls in registry().items():
        member = cls.battery_member
        if member is not None:
            where = (member.family.name, member.position)
            assert where not in places, f"{name} and {places[where]} share a place in {where[0]}"
            places[where] = name
            for sizes in member.sizes.values():
                assert set(sizes) <= set(cls.Options.model_fields), (name, sizes)
        for option, (role, _) in cls.options_sent().items():
            assert option in cls.Options.model_fields, (name, option)
            assert role in {*cls.roles, *cls.extra_roles}, (name, role)
        assert set(cls.option_effects) <= set(cls.Options.model_fields), name
        for preset in cls.presets:
            entry = cls().preset(preset)
            assert entry is not None and set(entry.options) <= set(cls.Options.model_fields), name
