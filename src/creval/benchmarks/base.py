"""What a benchmark is: options, units of work, and a scorer over the run's records."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from creval.errors import CrevalError
from creval.runner.engine import Unit
from creval.runner.store import Record

#: How an option relates to a run directory:
#: ``generation`` changes what is asked of the model (must match to resume),
#: ``scale`` changes how many units there are (may change between invocations),
#: ``scoring`` changes only how records are scored (may change freely; re-scores).
OptionKind = Literal["generation", "scale", "scoring"]


def option(default: Any, description: str, *, kind: OptionKind = "generation", **kw: Any) -> Any:
    """A benchmark option with its help text and kind."""
    return Field(default, description=description, json_schema_extra={"kind": kind}, **kw)


class BenchmarkOptions(BaseModel):
    """Options every benchmark has. Subclasses add their own with :func:`option`."""

    model_config = ConfigDict(extra="forbid")

    limit: int | None = option(None, "Use only the first N items.", kind="scale", ge=1)
    seed: int = option(0, "Seed of the first sample; sample i uses seed + i.")
    temperature: float = option(1.0, "Sampling temperature.", ge=0.0)

    @classmethod
    def kind_of(cls, name: str) -> OptionKind:
        extra = cls.model_fields[name].json_schema_extra
        kind = extra.get("kind", "generation") if isinstance(extra, dict) else "generation"
        return kind  # type: ignore[return-value]

    def by_kind(self, kind: OptionKind) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        return {k: v for k, v in data.items() if self.kind_of(k) == kind}


class Benchmark(ABC):
    """A registered benchmark. Subclasses set ``name``, ``description`` and ``Options``."""

    name: ClassVar[str]
    description: ClassVar[str]
    seed_paper: ClassVar[str] = ""
    Options: ClassVar[type[BenchmarkOptions]] = BenchmarkOptions
    #: The model roles the units call: "target" always; "judge" for LLM-judged benchmarks.
    roles: ClassVar[tuple[str, ...]] = ("target",)
    #: Options that were renamed or removed: old name -> what to use instead.
    renamed_options: ClassVar[dict[str, str]] = {}

    @classmethod
    def renamed_hint(cls, name: str) -> str | None:
        """The message for an option of an older creval, or None."""
        hint = cls.renamed_options.get(name)
        return None if hint is None else f"--{name.replace('_', '-')} is gone from {cls.name}: {hint}"

    def generation_fingerprint(self, options: BenchmarkOptions) -> dict[str, Any]:
        """What must be the same for a run directory to be resumed with these options."""
        return options.by_kind("generation")

    @abstractmethod
    def units(self, options: Any) -> list[Unit]:
        """The units of work for these options, each with a stable key."""

    @abstractmethod
    def score(self, records: list[Record], options: Any) -> dict[str, Any]:
        """Scores from the finished records. Returns a dict with at least ``headline``
        (metric name -> number or None), ``table`` (rows for the report) and ``notes``."""

    def write_artifacts(self, scores: dict[str, Any], options: Any, out: Path) -> list[str]:
        """Write files beside the report (plots, derived datasets); returns their names.

        Called after every scoring. The default writes nothing.
        """
        return []

    def parse_options(self, values: dict[str, Any]) -> BenchmarkOptions:
        """Validate user options, with a message that names the option to fix."""
        try:
            return self.Options(**values)
        except ValidationError as exc:
            problems = []
            for err in exc.errors():
                name = ".".join(str(p) for p in err["loc"]) or "options"
                flag = "--" + name.replace("_", "-")
                if err["type"] == "extra_forbidden" and self.renamed_hint(name):
                    problems.append(str(self.renamed_hint(name)))
                elif err["type"] == "extra_forbidden":
                    known = ", ".join("--" + f.replace("_", "-") for f in self.Options.model_fields)
                    problems.append(f"{flag} is not an option of {self.name} (options: {known})")
                else:
                    problems.append(f"{flag}: {err['msg']} (got {err.get('input')!r})")
            raise CrevalError(f"Bad options for {self.name}: " + "; ".join(problems)) from None


B = TypeVar("B", bound=type[Benchmark])
_REGISTRY: dict[str, type[Benchmark]] = {}


def register_benchmark(cls: B) -> B:
    """Class decorator: make a benchmark available to ``creval list`` and ``creval run``."""
    _REGISTRY[cls.name] = cls
    return cls


def registry() -> dict[str, type[Benchmark]]:
    import creval.benchmarks  # noqa: F401  (registers the built-in benchmarks)

    return dict(sorted(_REGISTRY.items()))


def get_benchmark(name: str) -> Benchmark:
    known = registry()
    if name not in known:
        raise CrevalError(
            f"Unknown benchmark {name!r}. Registered: {', '.join(known)}. See `creval list`."
        )
    return known[name]()

