"""Put ``creval.evaluation`` in rooms (issue 41) and rewrite every reference to the moved modules.

Run from the repository root: ``python tools/rooms.py``. It moves each flat module of
``src/creval/evaluation/`` (and its tests) into the room ``ROOMS`` names, with ``git mv``, then
rewrites dotted names (``creval.evaluation.battery`` -> ``creval.evaluation.profile.battery``),
``from creval.evaluation import battery`` forms and file paths in sources, tests, docs, bench,
examples and the architecture page. Idempotent: a second run moves nothing and rewrites only
what a branch merged since added under the old names. A flat module it does not know stops it
before anything is written, so no module is left behind unnamed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

#: old flat module -> (room, module name in the room)
ROOMS: dict[str, tuple[str, str]] = {
    # run/: one invocation, its roles, plans, presets, grid and cost
    "runs": ("run", "runs"), "roles": ("run", "roles"), "plans": ("run", "plans"),
    "presets": ("run", "presets"), "grid": ("run", "grid"), "cost": ("run", "cost"),
    "unscored": ("run", "unscored"), "families": ("run", "families"),
    # profile/: the battery, a profile and what it says
    "battery": ("profile", "battery"), "profile": ("profile", "profiling"),
    "profile_data": ("profile", "data"),
    # compare/: evidence -> conditions -> comparability -> published references -> tests
    "evidence": ("compare", "evidence"), "conditions": ("compare", "conditions"),
    "comparability": ("compare", "comparability"), "paper_data": ("compare", "paper_data"),
    "items": ("compare", "items"), "published": ("compare", "published"),
    "published_section": ("compare", "published_section"), "paired": ("compare", "paired"),
    "run_groups": ("compare", "run_groups"), "homogeneity": ("compare", "homogeneity"),
    "dat_released": ("compare", "dat_released"), "ttcw_published": ("compare", "ttcw_published"),
    "noveltybench_published": ("compare", "noveltybench_published"),
    # rank/: pairwise ratings of several runs' models
    "rank": ("rank", "ranking"), "rank_items": ("rank", "items"), "rank_fit": ("rank", "fit"),
    "rank_families": ("rank", "own_family"),
    # panel/: judge panels
    "panel": ("panel", "panels"), "panel_conditions": ("panel", "conditions"),
    "panel_scores": ("panel", "scores"), "panel_cost": ("panel", "cost"),
    # sweep/: runs at several values of one option
    "sweep": ("sweep", "sweeping"), "sweep_data": ("sweep", "data"),
    "sweep_released": ("sweep", "released"),
    # verify/: re-deriving a run from its own records
    "verify": ("verify", "verifying"), "verify_inputs": ("verify", "inputs"),
    "panel_verify": ("verify", "panel"),
}

#: the room's package docstring (one line: what it holds)
ROOM_DOCS: dict[str, str] = {
    "run": "One invocation: the plan, the roles, presets, the run itself, grids and their cost.",
    "profile": "The profile battery, a profile's runs, and what a profile says.",
    "compare": "A run against published values and other runs: evidence, conditions, comparability, tests.",
    "rank": "Pairwise ratings of several runs' models on their common items (``creval rank``).",
    "panel": "Judge panels (``--judge a,b,c``): one run per judge, combined per item, and their cost.",
    "sweep": "Runs at several values of one option, and what a sweep says.",
    "verify": "Re-deriving a run from its own records (``creval verify``).",
}

#: flat modules that stay at the top of ``evaluation/``: the package face and the public api
TOP = {"__init__", "api"}

#: test files that move with a module (``tests/evaluation/test_X.py`` follows module X, else by prefix)
TEST_PREFIXES: dict[str, str] = {
    "plan": "run", "presets": "run", "roles": "run", "ray_executor": "run",
    "profile": "profile", "comparability": "compare", "dat_released": "compare",
    "evidence": "compare", "homogeneity": "compare", "paired": "compare", "panel": "panel",
    "rank": "rank", "sweep": "sweep", "verify": "verify",
}

#: ``src/creval/evaluation`` under the working directory (the rooms' modules found there count
#: as moved: ``creval.evaluation.verify.replay`` is not the old ``verify`` module's attribute)
EVALUATION = Path("src") / "creval" / "evaluation"
TEXT_SUFFIXES = {".py", ".md", ".yml", ".yaml", ".toml", ".cfg", ".txt", ".ini", ".json"}
TREES = ("src", "tests", "docs", "bench", "examples", "tools")
TOP_FILES = ("ARCHITECTURE.md", "README.md", "CONTRIBUTING.md", "mkdocs.yml", "pyproject.toml", "Makefile")


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True)


def _move_modules(evaluation: Path) -> None:
    flat = {p.stem for p in evaluation.glob("*.py")} - TOP
    unknown = sorted(flat - set(ROOMS))
    if unknown:
        sys.exit(f"tools/rooms.py: give these flat modules a room in ROOMS first: {unknown}")
    for room, doc in ROOM_DOCS.items():
        init = evaluation / room / "__init__.py"
        if not init.exists():
            init.parent.mkdir(exist_ok=True)
            init.write_text(f'"""{doc}"""\n', encoding="utf-8")
            _git("add", str(init))
    for old in sorted(flat):
        room, new = ROOMS[old]
        _git("mv", str(evaluation / f"{old}.py"), str(evaluation / room / f"{new}.py"))


def _move_tests(tests: Path) -> None:
    for path in sorted(tests.glob("test_*.py")):
        stem = path.stem.removeprefix("test_")
        if stem in TOP:
            continue
        room = ROOMS[stem][0] if stem in ROOMS else next(
            (r for prefix, r in sorted(TEST_PREFIXES.items(), key=lambda kv: -len(kv[0]))
             if stem.startswith(prefix)), None)
        if room is None:
            sys.exit(f"tools/rooms.py: give tests/evaluation/{path.name} a room in TEST_PREFIXES")
        target = tests / room
        if not (target / "__init__.py").exists():
            target.mkdir(exist_ok=True)
            (target / "__init__.py").write_text("", encoding="utf-8")
            _git("add", str(target / "__init__.py"))
        _git("mv", str(path), str(target / path.name))


def _rewrite(text: str, test_moves: dict[str, str]) -> str:
    for old, (room, new) in ROOMS.items():
        text = re.sub(rf"\bfrom creval\.evaluation import {old} as\b",
                      f"from creval.evaluation.{room} import {new} as", text)
        # not a name already in a room (``creval.evaluation.profile.battery`` once moved)
        inside = "|".join(sorted({n for r, n in ROOMS.values() if r == old} | {
            p.stem for p in (EVALUATION / old).glob("*.py")}))
        later = rf"(?![\w]|\.(?:{inside})\b)" if inside else r"(?![\w])"
        text = re.sub(rf"\bcreval\.evaluation\.{old}{later}", f"creval.evaluation.{room}.{new}", text)
        text = re.sub(rf"\bevaluation/{old}\.py\b", f"evaluation/{room}/{new}.py", text)
    for old, new in test_moves.items():
        text = re.sub(rf"\btests/evaluation/{re.escape(old)}\b", f"tests/evaluation/{new}", text)
    return text


def main() -> None:
    root = Path.cwd()
    evaluation = root / "src" / "creval" / "evaluation"
    if not evaluation.is_dir():
        sys.exit("tools/rooms.py: run from the repository root (src/creval/evaluation not found)")
    tests = root / "tests" / "evaluation"
    _move_modules(evaluation)
    _move_tests(tests)
    test_moves = {
        p.name: f"{p.parent.name}/{p.name}" for p in tests.glob("*/test_*.py")
    }
    files = [p for tree in TREES for p in (root / tree).rglob("*")
             if p.is_file() and p.suffix in TEXT_SUFFIXES and "__pycache__" not in p.parts
             and p.name != "rooms.py"]
    files += [root / f for f in TOP_FILES if (root / f).exists()]
    changed = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        new = _rewrite(text, test_moves)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    print(f"tools/rooms.py: {changed} files rewritten")


if __name__ == "__main__":
    main()
