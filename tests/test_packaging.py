"""The set-up's package lists agree with pyproject.toml's extras."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
ROOT = Path(__file__).resolve().parents[1]


def _extras() -> dict[str, list[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return dict(project["optional-dependencies"])


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[<>=;! ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_what_pip_installs_while_llama_cpp_compiles_is_all_but_llama_cpp() -> None:
    """make setup installs `all` and `dev` in two steps: first every extra but the ones that
    need llama-cpp-python (while it compiles), then the compiled wheel with `all` and `dev`.
    An extra added to `all` but not to the first step would only be installed in the second,
    after the compile, and any extra in the first step that needs llama-cpp-python would make
    pip compile it a second time."""
    makefile = (ROOT / "Makefile").read_text()
    listed = re.search(r"^EXTRAS_BESIDE_LLAMA := (.+)$", makefile, re.M)
    assert listed, "Makefile: EXTRAS_BESIDE_LLAMA is gone"
    beside = set(listed.group(1).split(","))
    extras = _extras()
    in_all = re.search(r"creval\[(.+)\]", extras["all"][0])
    assert in_all
    in_dev = {m.group(1) for r in extras["dev"] if (m := re.match(r"creval\[(.+)\]", r))}
    assert beside == (set(in_all.group(1).split(",")) - {"local"}) | in_dev
    for extra in beside:
        assert "llama-cpp-python" not in _names(extras[extra]), extra
    assert "llama-cpp-python" in _names(extras["local"])
    assert "llama-cpp-python" in _names(extras["dev"])
