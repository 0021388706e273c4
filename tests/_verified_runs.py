"""``creval verify`` is clean on every run the test suite writes (issue 33): at the end of the
session every run directory below pytest's temporary root is verified, and the session fails
with the list of runs whose files disagree.

A test that writes a broken or hand-made run on purpose (an edited manifest, a cut
``records.jsonl``, a fake run for an error message) says so with
``@pytest.mark.unverified_runs("why")``; the directories created under the temporary root while
it ran (its ``tmp_path``, the module fixtures it started) are left out. The reason is required.

Under pytest-xdist each worker's temporary root lies inside the controller's, so the
controller verifies every worker's runs; the workers leave their opt-outs in a file there.
``CREVAL_TEST_VERIFY_RUNS=0`` turns the check off (a quick local loop).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

MARK = "unverified_runs"
#: Opt-outs of one process: top-level folders of the temporary root, and why.
OPTED_OUT = ".unverified-runs.json"
#: What one process's verify found below its root.
FOUND = ".verified-runs.json"
#: The folders of pytest-xdist's workers' roots inside the controller's.
WORKER = "popen-gw"


def enabled() -> bool:
    return os.environ.get("CREVAL_TEST_VERIFY_RUNS", "1") != "0"


def _root(config: pytest.Config) -> Path | None:
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None:
        return None
    try:
        return Path(factory.getbasetemp())
    except (OSError, ValueError):
        return None


def _children(root: Path | None) -> set[str]:
    if root is None or not root.is_dir():
        return set()
    return {p.name for p in root.iterdir()}


def reason_of(item: pytest.Item) -> str | None:
    """The test's reason for writing runs that are not verified, or None (it has no mark)."""
    mark = item.get_closest_marker(MARK)
    if mark is None:
        return None
    reason = mark.args[0] if mark.args else mark.kwargs.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.{MARK} needs a reason "
                                "(why the runs it writes are not expected to verify)")
    return reason


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    reason = reason_of(item) if enabled() else None
    root = _root(item.config) if reason else None
    before = _children(root)
    yield
    if reason is None or root is None:
        return
    new = sorted(_children(root) - before)
    if not new:
        return
    file = root / OPTED_OUT
    known = json.loads(file.read_text()) if file.is_file() else {}
    known.update({name: f"{item.nodeid}: {reason}" for name in new})
    file.write_text(json.dumps(known, indent=1))


def _opted_out(root: Path) -> dict[Path, str]:
    """Every opted-out folder below ``root`` (its own and each xdist worker's)."""
    out: dict[Path, str] = {}
    for file in root.rglob(OPTED_OUT):
        for name, why in json.loads(file.read_text()).items():
            out[file.parent / name] = why
    return out


def unverified(root: Path, skip: dict[Path, str]) -> dict[str, Any]:
    """Verify each run below ``root`` outside ``skip`` and below no other process's root: the
    runs not clean (one line each, with their differences), how many were checked, the
    seconds it took and the slowest runs."""
    from creval.evaluation.verify.verifying import verify_run

    start = time.monotonic()
    runs = sorted(p.parent for p in root.rglob("manifest.json")
                  if not any(p.is_relative_to(s) for s in skip)
                  and not any(part.startswith(WORKER) for part in p.relative_to(root).parts))
    bad: list[str] = []
    took: list[tuple[float, str]] = []
    for run in runs:
        began = time.monotonic()
        try:
            result = verify_run(run)
        except Exception as exc:  # a crash of verify is a finding too, not a lost report
            bad.append(f"{run}: verify raised {type(exc).__name__}: {exc}")
            continue
        finally:
            took.append((time.monotonic() - began, str(run.relative_to(root))))
        if not result.ok:
            said = "; ".join(result.differences + result.changed_since)
            bad.append(f"{run} ({result.benchmark}): {said}")
    slowest = [f"{t:.1f}s {name}" for t, name in sorted(took, reverse=True)[:3]]
    return {"bad": bad, "checked": len(runs), "seconds": time.monotonic() - start,
            "slowest": slowest}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARK}(reason): the runs this test writes are broken or "
                            "hand-made on purpose; the session's creval verify leaves them out")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Each process verifies the runs below its own root (the workers in parallel) and leaves
    what it found there; the controller (or the one process) gathers and reports."""
    config = session.config
    if not enabled() or config.option.collectonly:
        return
    if exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return
    root = _root(config)
    if root is None or not root.is_dir():
        return
    found = unverified(root, _opted_out(root))
    (root / FOUND).write_text(json.dumps(found))
    if hasattr(config, "workerinput"):
        return
    bad, checked, seconds, slowest = [], 0, 0.0, []
    for file in sorted(root.rglob(FOUND)):
        one = json.loads(file.read_text())
        bad += one["bad"]
        checked += one["checked"]
        seconds += one["seconds"]
        slowest += one["slowest"]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and checked:
        reporter.write_sep("-", f"creval verify: {checked - len(bad)} of {checked} run(s) written "
                           f"by the tests are clean ({seconds:.1f} s of verify; slowest: "
                           f"{', '.join(sorted(slowest, reverse=True)[:3]) or '-'})")
        for line in bad:
            reporter.write_line(f"NOT CLEAN {line}")
        if bad:
            reporter.write_line("Fix the difference, or mark a test that writes such runs on "
                                f"purpose with @pytest.mark.{MARK}(\"why\").")
    if bad:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
