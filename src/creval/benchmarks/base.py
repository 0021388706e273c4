"""What a benchmark is: options, units of work, and a scorer over the run's records."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from creval._util.inputs import ITEM_DIGEST, file_record, item_digest
from creval.errors import CrevalError
from creval.models.base import digest
from creval.records import Record, Scores
from creval.records.declarations import (
    AnswerText,
    BatteryMember,
    Items,
    PresetEntry,
    SweepPairing,
)
from creval.records.references import (
    DataSource,
    ItemValues,
    LocatedInputs,
    PaperData,
    PaperReferences,
    Protocol,
    Published,
    PublishedItems,
    Reference,
)
from creval.runner.engine import Unit

if TYPE_CHECKING:
    from creval.reader import Run

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


OptionsT = TypeVar("OptionsT", bound=BenchmarkOptions)


class Benchmark(ABC, Generic[OptionsT]):
    """A registered benchmark, generic in its options class.

    Subclasses set ``name``, ``description`` and ``Options`` (the class ``OptionsT``), name the
    prompt templates their units send in :meth:`prompts`, build :meth:`units` and
    :meth:`score` the records. ``class DAT(Benchmark[DATOptions])`` gets ``DATOptions`` in
    every method, checked by mypy.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    seed_paper: ClassVar[str] = ""
    Options: ClassVar[type[BenchmarkOptions]] = BenchmarkOptions
    #: The model roles the units call: "target" always; "judge" for LLM-judged benchmarks.
    roles: ClassVar[tuple[str, ...]] = ("target",)
    #: Model roles of the benchmark's own, beyond "target" and "judge": name -> what the model
    #: in it does (``{"e1": "DAESO evaluator"}``). Each is chosen with ``--NAME SPEC``
    #: (``roles={NAME: SPEC}`` in Python) and otherwise falls back to the judge model, then to
    #: the tested model; see :mod:`creval.evaluation.run.roles`. Units call it as ``ctx.generate(r, role=NAME)``.
    extra_roles: ClassVar[dict[str, str]] = {}
    #: Options that were renamed or removed: old name -> what to use instead.
    renamed_options: ClassVar[dict[str, str]] = {}

    @classmethod
    def renamed_hint(cls, name: str) -> str | None:
        """The message for an option of an older creval, or None."""
        hint = cls.renamed_options.get(name)
        return None if hint is None else f"--{name.replace('_', '-')} is gone from {cls.name}: {hint}"

    # What the benchmark declares about itself (typed data of creval.records.declarations),
    # read by evaluation/, report/ and cli/, which name no benchmark. Default: not declared.

    #: Its place in the profile battery: family, measures, options per size (None: not in it).
    battery_member: ClassVar[BatteryMember | None] = None

    #: The text of its answers, for homogeneity and ratings (None: the output's ``text``).
    answer_text: ClassVar[AnswerText | None] = None
    #: Its sweep pairing: a divergent against a quality measure of a run (None: not sweepable).
    sweep_pairing: ClassVar[SweepPairing | None] = None
    #: Options whose file or folder the loader finds by itself when the option is unset:
    #: option -> the default places it looks in, for ``creval verify`` to find them again.
    default_locations: ClassVar[Mapping[str, Callable[[], list[Path]]]] = {}
    #: Which options reach which request fields, verbatim on every request of a role (what
    #: ``creval verify`` and the comparability checks hold the manifest against):
    #: ``sends_sampling`` sends the generation options named like a request field
    #: (:attr:`sampling_fields`) as those fields of the target's requests; ``request_options``
    #: adds others, option -> (role, field) (``{"answers": ("target", "n")}``).
    sends_sampling: ClassVar[bool] = False
    sampling_fields: ClassVar[tuple[str, ...]] = ("temperature", "top_p", "max_tokens")
    request_options: ClassVar[Mapping[str, tuple[str, str]]] = {}
    #: Options whose effect on a unit its output records: option -> output field
    #: (``{"structured_judge": "judge_constrained"}``).
    option_effects: ClassVar[Mapping[str, str]] = {}

    @classmethod
    def options_sent(cls) -> dict[str, tuple[str, str]]:
        """Option -> (role, request field) it is sent as, derived from :attr:`sends_sampling`
        and the options' kinds, then :attr:`request_options`."""
        derived = {name: ("target", name) for name in cls.sampling_fields if cls.sends_sampling
                   and name in cls.Options.model_fields and cls.Options.kind_of(name) == "generation"}
        return {**derived, **cls.request_options}

    #: Presets by name (``--preset paper``): what each sets for this benchmark, or a function
    #: of the run's language giving it where the paper differs by language.
    presets: ClassVar[Mapping[str, PresetEntry | Callable[[str], PresetEntry]]] = {}

    def items_behind(self, measure: str, scores: Scores) -> Items | None:
        """The items the value of ``measure`` was computed from, where they are not the units
        that finished (DAT's valid trials, the questions with a parsed judgement): what a
        published protocol's item count is compared with. None (the default): the units that
        finished."""
        return None

    def preset(self, name: str, lang: str = "en") -> PresetEntry | None:
        """What ``--preset NAME`` sets for this benchmark in a run of language ``lang``
        (judge, options, role models, what they need, the published protocol whose options
        it sets), from :attr:`presets`. None (the default): the preset sets nothing."""
        entry = self.presets.get(name)
        return entry(lang) if callable(entry) else entry

    def plan_answer(self, options: OptionsT, role: str) -> str | None:
        """A well-formed answer of ``role`` for a cost plan (``--plan``), which drives the
        units with stand-in answers: a benchmark whose units ask again after a malformed
        answer (DAT's attempts) gives one here, so that the plan counts the requests of a
        model that answers as asked. None (the default): text of ``max_tokens`` length."""
        return None

    def prompts(self, options: OptionsT) -> dict[str, str]:
        """The prompt templates the units send, by the name under which a run records their
        digest (``{"prompt": template}``). A run resumes only with the same templates, and a
        ``replay:`` of a run with another ``prompt`` is refused. The default: none."""
        return {}

    def generation_fingerprint(self, options: OptionsT) -> dict[str, Any]:
        """What must be the same for a run directory to be resumed with these options: the
        generation options and the digests of :meth:`prompts`."""
        fingerprint = options.by_kind("generation")
        fingerprint.update({name: digest(t)[:16] for name, t in self.prompts(options).items()})
        return fingerprint

    @abstractmethod
    def units(self, options: OptionsT) -> list[Unit]:
        """The units of work for these options, each with a stable key."""

    def item(self, unit: Unit) -> dict[str, Any] | None:
        """The item ``unit`` asks about, as parsed fields: its canonical digest
        (:func:`creval._util.inputs.item_digest`) is recorded as the unit's ``item_digest``.
        The default: the unit's meta without the run's bookkeeping (``repeat``, digests). A
        benchmark whose meta does not hold the item's content sets ``item_digest`` in the meta
        itself (the JCQ question's text, the SAT story); None records no digest."""
        return {k: v for k, v in unit.meta.items() if k != "repeat" and not k.endswith("digest")}

    def uses_role(self, role: str, options: OptionsT) -> bool:
        """Whether units with ``options`` call the model of ``role`` (one of :attr:`roles`
        or :attr:`extra_roles`); a benchmark whose scorer option may need no judge says so,
        and the run neither builds nor records a judge it never asks."""
        return role in self.roles or role in self.extra_roles

    def planned_units(self, options: OptionsT) -> list[Unit]:
        """:meth:`units`, each with its ``item_digest`` in the meta (what a run records)."""
        units = self.units(options)
        for unit in units:
            if ITEM_DIGEST not in unit.meta:
                fields = self.item(unit)
                if fields is not None:
                    unit.meta = {**unit.meta, ITEM_DIGEST: item_digest(fields)}
        return units

    def input_files(self, options: OptionsT) -> dict[str, Path]:
        """The files (or folders) a run with these options reads, by the option naming them:
        the run records their digests (:meth:`read_inputs`). The default: every option whose
        value is the path of an existing file or folder; a benchmark whose loader resolves a
        name (JCQ's ``upstream``) adds the file it loads."""
        out: dict[str, Path] = {}
        for name, value in options.model_dump().items():
            if isinstance(value, str) and value and "\n" not in value and len(value) < 4096:
                path = Path(value)
                if path.is_file() or path.is_dir():
                    out[name] = path
        return out

    def read_inputs(self, options: OptionsT) -> dict[str, Any]:
        """What the run reads, by digest, for its manifest: each of :meth:`input_files`
        (path, SHA-256, the option's kind) and each of :meth:`prompts` (the whole digest whose
        first 16 digits :meth:`generation_fingerprint` holds)."""
        files = {name: {**file_record(path), "kind": options.kind_of(name)}
                 for name, path in self.input_files(options).items()}
        prompts = {name: digest(text) for name, text in self.prompts(options).items()}
        return {"files": files, "prompts": prompts}

    @abstractmethod
    def score(self, records: list[Record], options: OptionsT) -> Scores:
        """Scores from the finished records: at least ``headline`` (metric name -> number or
        None), ``table`` (one row per item, with its ``key`` or ``id``) and ``notes``. The
        evaluation layer adds the run's counters (``benchmark``, ``units``, ``usage``,
        ``errors``)."""

    def write_artifacts(self, scores: Scores, options: OptionsT, out: Path) -> list[str]:
        """Write files beside the report (plots, derived datasets); returns their names.

        Called after every scoring. The default writes nothing.
        """
        return []

    # --- published references and upstream data (typed in creval.records.references) -------
    # Read by evaluation/, report/ and cli/, which name no benchmark: each default declares
    # nothing, so a plug-in declares only what it has.

    def published_references(self) -> list[PaperReferences]:
        """The papers' published values of this benchmark, each paper with its protocols
        (a paper's file may hold other benchmarks' values too: readers keep their own)."""
        return []

    def paper_data(self) -> PaperData | None:
        """The option naming the paper's data and the data's digests (None: no item set, as
        DAT's one instruction: the data is not compared)."""
        return None

    def not_compared(self) -> dict[str, str]:
        """This benchmark's options that do not change what is measured, each with why: left
        out when a run is held against a published protocol (every other option is compared)."""
        return {}

    def reference_unit(self, protocol: Protocol) -> str | None:
        """The unit of the values under ``protocol`` where the benchmark has several (DAT:
        ``x100`` or ``0-1``); None: one unit."""
        return None

    def published_items(self) -> PublishedItems | None:
        """The per-item results a paper released, to pair a run with (None: none)."""
        return None

    def item_values(self, run: Run) -> ItemValues:
        """The run's own per-item values, keyed as :meth:`published_items` keys its items."""
        return {}

    def read_published_items(self, run: Run, published: Path | None) -> tuple[list[Published], str | None]:
        """The released per-item results for ``run`` (from ``published``, or found beside the
        run's data) and, when there are none, why not."""
        return [], f"no paper released per-item results of {self.name}"

    def released_references(self, run: Run, measure: str, located: LocatedInputs
                            ) -> list[tuple[Protocol, list[tuple[Reference, tuple[float, ...]]]]]:
        """Published values computed at check time from released per-answer data, re-scored by
        the run's own scorer (English DAT's released lists), with the per-answer scores behind
        each value: each protocol with its references. ``located``: where the files the run
        recorded are now."""
        return []

    def unpaired_measure(self) -> str | None:
        """The measure whose per-answer values are exchangeable draws of one prompt (DAT's
        trials, ``dat_mean``): compared unpaired, with :meth:`released_references` and between
        runs, never paired by item (None: the benchmark's items pair)."""
        return None

    def released_missing(self, run: Run, located: LocatedInputs) -> str | None:
        """Why a run has no :meth:`released_references` to stand among (None: it does, or the
        benchmark has none)."""
        return None

    def published_generations(self, run: Run) -> list[tuple[str, str, dict[str, list[str]]]]:
        """(model, file, answers by the run's unit key) of published models' answers to the
        items ``run`` answered, read at run time, for ``compare --homogeneity``."""
        return []

    def data_sources(self) -> list[DataSource]:
        """The upstream data sets ``creval data fetch`` writes for this benchmark."""
        return []

    def parse_options(self, values: dict[str, Any]) -> OptionsT:
        """Validate user options, with a message that names the option to fix."""
        try:
            return cast(OptionsT, self.Options(**values))
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


B = TypeVar("B", bound=type[Benchmark[Any]])
_REGISTRY: dict[str, type[Benchmark[Any]]] = {}


def register_benchmark(cls: B) -> B:
    """Class decorator: make a benchmark available to ``creval list`` and ``creval run``."""
    _REGISTRY[cls.name] = cls
    return cls


def registry() -> dict[str, type[Benchmark[Any]]]:
    """Every registered benchmark: the built-in ones and those of installed plug-ins
    (the ``creval.benchmarks`` entry points; see :mod:`creval._util.plugins`)."""
    import creval.benchmarks  # noqa: F401  (registers the built-in benchmarks)
    from creval._util.plugins import load_group

    load_group("creval.benchmarks", _register_plugin)
    return dict(sorted(_REGISTRY.items()))


def _register_plugin(name: str, target: Any) -> None:
    if isinstance(target, type) and issubclass(target, Benchmark):
        register_benchmark(target)


def get_benchmark(name: str) -> Benchmark[Any]:
    known = registry()
    if name not in known:
        import difflib

        close = difflib.get_close_matches(name, list(known), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise CrevalError(
            f"Unknown benchmark {name!r}.{hint} Registered: {', '.join(known)}. See `creval list`."
        )
    return known[name]()

