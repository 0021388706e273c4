"""``creval sandbox run`` and ``creval sandbox info``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from creval.cli.sandbox import sandbox_app

RUNNER = CliRunner()


def test_run_prints_verdict_output_and_timings(tmp_path: Path) -> None:
    program = tmp_path / "rev.py"
    program.write_text("import sys\nprint(input()[::-1])\nprint('note', file=sys.stderr)\n")
    stdin = tmp_path / "in.txt"
    stdin.write_text("abc\n")
    done = RUNNER.invoke(sandbox_app, ["run", str(program), "--stdin", str(stdin)])
    assert done.exit_code == 0, done.output
    assert "verdict: ok" in done.output and "cba" in done.output and "note" in done.output
    assert "wall" in done.output and "isolation" in done.output


def test_run_json_and_limits(tmp_path: Path) -> None:
    program = tmp_path / "loop.py"
    program.write_text("while True:\n    pass\n")
    done = RUNNER.invoke(sandbox_app, ["run", str(program), "--json", "--cpu-seconds", "1",
                                       "--wall-seconds", "2"])
    assert done.exit_code == 1  # the program failed
    data = json.loads(done.output)
    assert data["verdict"] == "timeout" and data["isolation"] in ("namespace", "process")


def test_missing_program_exits_2_with_a_message(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "creval.cli", "sandbox", "run", str(tmp_path / "nope.py")],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert "does not exist" in done.stderr and "Traceback" not in done.stderr


def test_bad_isolation_is_refused(tmp_path: Path) -> None:
    program = tmp_path / "p.py"
    program.write_text("print(1)\n")
    done = RUNNER.invoke(sandbox_app, ["run", str(program), "--isolation", "vm"])
    assert done.exit_code != 0 and "isolation" in str(done.exception)


def test_info_reports_levels() -> None:
    done = RUNNER.invoke(sandbox_app, ["info"])
    assert done.exit_code == 0
    info = json.loads(done.output)
    assert info["auto"] in ("namespace", "process") and "namespace" in info["levels"]
