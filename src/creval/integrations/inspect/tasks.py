"""creval benchmarks as Inspect AI tasks: ``inspect eval creval/dat --model PROVIDER/MODEL``.

Task arguments are ``creval run``'s options of the benchmark, validated by it
(``-T trials=30 -T lang=ja``; a misspelt option is an error that lists the options). The
dataset is the benchmark's own requests (see :mod:`.samples`), asked with creval's
generation parameters (temperature, max tokens, seed ``seed + i`` for sample ``i``), so
the answers are those ``creval run`` would get; Inspect's ``--limit`` takes the first
samples of that dataset, like creval's ``limit`` option.

======== ============================================== =====================================
task     samples                                        metrics (creval's headline)
======== ============================================== =====================================
dat      ``trials`` answers to the DAT prompt            dat_mean, dat_std, valid/invalid trials
sat      one rewrite per story                          sat_mean, sat_std, stories, empty
jcq/ttct ``answers`` answers per question, each judged  criterion means and stds, mean, parsed
neocoder state 0 of each problem (no denial)            pass@1@0 (creval's sandbox judge)
======== ============================================== =====================================
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.scorer import Scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from creval.errors import CrevalError
from creval.integrations.inspect.rubric import rubric_scorer
from creval.integrations.inspect.samples import benchmark_asks, benchmark_options, to_sample
from creval.integrations.inspect.scorers import dat_scorer, neocoder_scorer, sat_scorer


@solver
def creval_generate() -> Solver:
    """Generate with the sample's creval parameters (temperature, max tokens, stop, seed)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await generate(state, **state.metadata["creval"]["generate"])

    return solve


def creval_task(name: str, options: dict[str, Any], scorer: Scorer) -> Task:
    """The Inspect task of creval benchmark ``name`` under ``options``."""
    bench, opts = benchmark_options(name, options)
    samples = [to_sample(ask) for ask in benchmark_asks(bench, opts)]
    return Task(
        dataset=MemoryDataset(samples, name=f"creval/{name}"),
        solver=creval_generate(),
        scorer=scorer,
        metadata={"creval_benchmark": name, "creval_options": opts.model_dump(mode="json")},
    )


@task
def dat(**options: Any) -> Task:
    """Divergent Association Task: 10 nouns as unrelated as possible (``creval run dat``)."""
    return creval_task("dat", options, dat_scorer(**options))


@task
def sat(**options: Any) -> Task:
    """Story Alteration Task: rewrite tales as modern stories (``creval run sat``)."""
    return creval_task("sat", options, sat_scorer(**options))


@task
def ttct(judge: str | None = None, **options: Any) -> Task:
    """English TTCT verbal tasks judged 1-5 on four criteria (``creval run ttct``).

    ``judge``: the judge model (an Inspect model name); default the ``grader`` role, else
    the model under evaluation.
    """
    return creval_task("ttct", options, rubric_scorer("ttct", judge, **options))


@task
def jcq(judge: str | None = None, **options: Any) -> Task:
    """Japanese Creativity Questions judged 1-5 on four criteria (``creval run jcq``)."""
    return creval_task("jcq", options, rubric_scorer("jcq", judge, **options))


@task
def neocoder(**options: Any) -> Task:
    """NeoCoder at state 0 (the original problems, no denial): pass@1 in creval's sandbox."""
    for key, allowed in (("mode", "evaluate"), ("strategy", "direct"), ("states", "0")):
        if str(options.get(key, allowed)) != allowed:
            raise CrevalError(
                f"The Inspect task creval/neocoder runs state 0 with the direct strategy only "
                f"(got {key}={options[key]!r}); use `creval run neocoder` for the other states, "
                "strategies and Denial Prompting."
            )
    options = {**options, "states": "0"}
    return creval_task("neocoder", options, neocoder_scorer(**options))
