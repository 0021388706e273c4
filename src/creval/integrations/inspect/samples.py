"""Inspect samples from a creval benchmark: the very requests ``creval run`` would send.

Adapter until the benchmark contract names its requests as data (issue 15's ``--dry-run``):
each unit of the benchmark is started with a context that records the first request the
unit makes and stops it there. The request carries everything ``creval run`` asks with:
system and user messages, temperature, top-p, max tokens, stop sequences and the seed; a
request for ``n`` samples becomes ``n`` Inspect samples, sample ``i`` seeded ``seed + i``
as the runner seeds it. No model is called and no event loop is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from creval.benchmarks.base import Benchmark, BenchmarkOptions, get_benchmark
from creval.errors import CrevalError
from creval.models.base import Capabilities, Completion, GenerateRequest

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample

    from creval.runner.engine import Unit, UnitContext

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


class _Stop(Exception):
    """Raised by the recording context once the unit's first request is known."""


class _Recorder:
    """A unit context that records the first request (target role) and stops the unit."""

    def __init__(self) -> None:
        self.request: GenerateRequest | None = None
        self.first_sample = 0

    def capabilities(self, role: str = "target") -> Capabilities:
        return Capabilities()

    async def generate(
        self, request: GenerateRequest, *, role: str = "target", first_sample: int = 0
    ) -> list[Completion]:
        if role != "target":
            raise CrevalError(f"The unit asked the {role} model before the target model.")
        self.request, self.first_sample = request, first_sample
        raise _Stop


def unit_asks(unit: Unit) -> list[Ask]:
    """The samples of ``unit``'s first request, as the runner would send them."""
    recorder = _Recorder()
    run = cast("Callable[[UnitContext], Coroutine[Any, Any, Any]]", unit.run)
    coroutine = run(cast("UnitContext", recorder))
    try:
        coroutine.send(None)
    except _Stop:
        pass
    except StopIteration:
        raise CrevalError(f"Unit {unit.key} finished without asking a model.") from None
    else:
        coroutine.close()
        raise CrevalError(f"Unit {unit.key} waits on something before asking its model; "
                          "it cannot be turned into an Inspect sample.")
    request = recorder.request
    assert request is not None
    asks = []
    for i in range(request.n):
        sample = recorder.first_sample + i
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
