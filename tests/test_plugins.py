"""A third-party package adds a benchmark, a model provider and a judge through entry points."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from _cli import creval_process as creval

PLUGIN = '''
from typing import Any

from creval.benchmarks.base import Benchmark, BenchmarkOptions, option
from creval.benchmarks.common import single_turn_unit
from creval.judges.criteria import JudgeVerdict
from creval.models.base import Capabilities, Completion, GenerateRequest, Usage
from creval.records import Scores


class EchoOptions(BenchmarkOptions):
    words: int = option(3, "Words to ask for.")


class EchoBench(Benchmark[EchoOptions]):
    name = "echo-bench"
    description = "A plug-in benchmark: the answer's length in words."
    Options = EchoOptions

    def prompts(self, options: EchoOptions) -> dict[str, str]:
        return {"prompt": f"Say {options.words} words."}

    def units(self, options: EchoOptions) -> list[Any]:
        request = GenerateRequest.chat(self.prompts(options)["prompt"], seed=options.seed)
        return [single_turn_unit(f"u{i}", request, sample=i) for i in range(options.limit or 2)]

    def score(self, records: list[Any], options: EchoOptions) -> Scores:
        lengths = [len(r.output["text"].split()) for r in records if r.status == "ok"]
        return Scores(headline={"words": sum(lengths) / len(lengths)}, table=[], notes=[])


class Parrot:
    spec = "parrot:x"
    capabilities = Capabilities(n=True, seed=True)
    max_concurrency = 4

    def identity(self) -> dict[str, Any]:
        return {"provider": "parrot"}

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        text = request.messages[-1].text()
        return [Completion(text=text, usage=Usage(output_tokens=1)) for _ in range(request.n)]

    async def aclose(self) -> None:
        return None


def create(name: str, options: Any) -> Parrot:
    return Parrot()


class Lenient:
    async def evaluate(self, problem: str, solution: str, *, domain: str) -> JudgeVerdict:
        raise NotImplementedError


def make_judge(generate: Any, *, embedder: str, max_tokens: int) -> Lenient:
    return Lenient()
'''

ENTRY_POINTS = """
[creval.benchmarks]
echo-bench = myplug:EchoBench

[creval.models]
parrot = myplug:create

[creval.judges]
lenient = myplug:make_judge
"""


@pytest.mark.unverified_runs("a plug-in benchmark registered only in the test's own site folder: verify cannot re-score it")
def test_a_plugin_package_registers_through_entry_points(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "myplug").mkdir(parents=True)
    (site / "myplug" / "__init__.py").write_text(textwrap.dedent(PLUGIN))
    info = site / "myplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: myplug\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}

    listed = creval("list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "echo-bench" in listed.stdout
    run = creval("run", "echo-bench", "--model", "parrot:x", "--words", "4", "--no-progress",
                 "--out", str(tmp_path / "run"), env=env)
    assert run.returncode == 0, run.stderr
    scores = json.loads((tmp_path / "run" / "scores.json").read_text())
    assert scores["headline"]["words"] == 3.0  # the parrot repeats "Say 4 words."
    judges = creval("run", "macgyver", "--judges", "nosuch", "--out", str(tmp_path / "m"), env=env)
    assert judges.returncode == 2 and "lenient" in judges.stderr

