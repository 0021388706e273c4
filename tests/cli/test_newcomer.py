"""What a new user met on a first afternoon (issue 44, the newcomer's list): each mistake
gets one clear line and a non-zero exit, each output says what is true."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _cli import creval

NOWHERE = ["--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1"]


def _said(done: Any) -> str:
    return " ".join((done.stdout + done.stderr).split())


# 1. --out at or under a file -----------------------------------------------------------------

@pytest.mark.parametrize("where", ["afile", "afile/run"])
def test_out_at_or_under_a_file_is_one_line(tmp_path: Path, where: str) -> None:
    (tmp_path / "afile").write_text("mine\n")
    done = creval("run", "dat", *NOWHERE, "--trials", "2", "--no-progress",
                  "--out", str(tmp_path / where))
    assert done.returncode == 2
    assert "Traceback" not in _said(done) and "FileExistsError" not in _said(done)
    assert f"{tmp_path / 'afile'} is a file" in _said(done)
    assert (tmp_path / "afile").read_text() == "mine\n"


# 8. --timeout and --concurrency out of range -------------------------------------------------

@pytest.mark.parametrize("option", [["--timeout", "-1"], ["--timeout", "0"],
                                    ["--concurrency", "0"], ["--concurrency", "-3"]])
@pytest.mark.parametrize("command", [["run", "dat"],
                                     ["sweep", "dat", "--values", "temperature=0.2"]])
def test_impossible_timeout_or_concurrency_is_refused(tmp_path: Path, option: list[str],
                                                      command: list[str]) -> None:
    done = creval(*command, *NOWHERE, *option, "--no-progress", "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    assert f"Invalid value for '{option[0]}'" in _said(done)
    assert "Cannot reach" not in _said(done)
    assert not (tmp_path / "r").exists()
