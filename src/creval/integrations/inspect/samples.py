"""Inspect samples from a creval benchmark: the very requests ``creval run`` would send.

Each unit's first request comes from :func:`creval.benchmarks.offline.first_request` (the same as
``creval run --dry-run`` lists): the unit is stepped up to its first model call, which is
recorded, not sent. The request carries everything ``creval run`` asks with:
system and user messages, temperature, top-p, max tokens, stop sequences and the seed; a
request for ``n`` samples becomes ``n`` Inspect samples, sample ``i`` seeded ``seed + i``
as the runner seeds it. No model is called and no event loop is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from creval.benchmarks.base import Benchmark, BenchmarkOptions, get_benchmark
from creval.benchmarks.offline import first_request
from creval.errors import CrevalError
from creval.models.base import GenerateRequest

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample

    from creval.runner.engine import Unit

#: Task arguments Inspect may hand every task that are not creval options.
_INSPECT_ARGS = ("model",)
OptionsT = TypeVar("OptionsT", bound=BenchmarkOptions)


@dataclass(frozen=True)
class Ask:
    """One sample of one unit's first request (``request.n == 1``, seeded for the sample)."""

    key: str
    sample: int
    samples: int
    request: GenerateRequest
    meta: dict[str, Any]

    @property
    def sample_id(self) -> str:
        """The unit key, with ``-s{i}`` when the unit asks for several samples."""
        return self.key if self.samples == 1 else f"{self.key}-s{self.sample}"

    def generate_args(self) -> dict[str, Any]:
        """Inspect ``GenerateConfigArgs`` of this sample (what the solver passes on)."""
        r = self.request
        return {"temperature": r.temperature, "top_p": r.top_p, "max_tokens": r.max_tokens,
                "stop_seqs": list(r.stop) or None, "seed": r.seed}


def benchmark_options(name: str, values: dict[str, Any]) -> tuple[Benchmark, BenchmarkOptions]:
    """The registered benchmark ``name`` and its validated options (``-T key=value``)."""
    bench = get_benchmark(name)
    options = {k: v for k, v in values.items() if k not in _INSPECT_ARGS}
    return bench, bench.parse_options(options)


def options_of(name: str, values: dict[str, Any], kind: type[OptionsT]) -> OptionsT:
    """:func:`benchmark_options`, typed as the benchmark's options class ``kind``."""
    _, options = benchmark_options(name, values)
    if not isinstance(options, kind):
        raise TypeError(f"{name} options are {type(options).__name__}, not {kind.__name__}.")
    return options


def unit_asks(unit: Unit) -> list[Ask]:
    """The samples of ``unit``'s first request, as the runner would send them."""
    first = first_request(unit)
    if first is None:
        raise CrevalError(f"Unit {unit.key} finished without asking a model.")
    if first.role != "target":
        raise CrevalError(f"The unit asked the {first.role} model before the target model.")
    request = first.request
    if not isinstance(request, GenerateRequest):
        raise CrevalError(f"Unit {unit.key} asks its model to score a text, which is no Inspect sample.")
    asks = []
    for i in range(request.n):
        sample = first.first_sample + i
        seed = None if request.seed is None else request.seed + sample
        asks.append(Ask(key=unit.key, sample=sample, samples=request.n,
                        request=request.with_n(1, seed=seed, first_sample=sample),
                        meta=dict(unit.meta)))
    return asks


def benchmark_asks(bench: Benchmark, options: BenchmarkOptions) -> list[Ask]:
    """Every sample of every unit of ``bench`` under ``options``."""
    return [ask for unit in bench.units(options) for ask in unit_asks(unit)]


def to_sample(ask: Ask) -> Sample:
    """An Inspect sample: the request's messages as input, creval's data as metadata."""
    from inspect_ai.dataset import Sample

    from creval.models.inspect_backend import inspect_messages

    return Sample(
        id=ask.sample_id, input=inspect_messages(ask.request.messages),
        metadata={**ask.meta, "creval": {"key": ask.key, "sample": ask.sample,
                                         "generate": ask.generate_args()}},
    )
