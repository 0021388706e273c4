"""Problems for the open-ended benchmarks of seed 001: MacGyver, HypoGen and BookMIA.

Every loader returns :class:`Problem` objects whose ``fields`` fill the step prompts:

* ``macgyver``: ``problem``. Upstream: the MacGyver spreadsheet (allenai/MacGyver
  ``problem_solution_pair.xlsx``, or the same sheet as CSV) with columns ``ID``,
  ``Problem``, ``Solvable?``, ``Unconventional?``, ``Solution``, ``Label``; only rows with
  ``Solvable?`` = ``Yes`` are problems. ``reference`` is the dataset's solution.
* ``hypogen``: ``bit`` (the conventional assumption) and ``flip`` (the new idea); the model
  writes the reasoning chain from bit to flip. ``reference`` is the record's chain of
  reasoning when it has one.
* ``bookmia``: ``start`` and ``end``, the first and last sentence of a BookMIA snippet
  (see :func:`split_sentences`); the model writes the story between them. ``reference`` is
  the snippet's text between those two sentences. Snippets with fewer than 3 sentences
  have nothing between and are skipped.

Sources (``load_problems(domain, source)``):

* ``None``: our own starter set ``creval/data/openended/<domain>.jsonl`` (offline).
* a file: ``.jsonl`` (our format, or upstream records), ``.csv`` or ``.xlsx`` (MacGyver;
  ``.xlsx`` needs ``openpyxl``).
* ``"hf"`` or ``"hf:owner/name[:split]"``: a Hugging Face dataset through ``datasets``
  (HypoGen default ``UniverseTBD/hypogen-dr1``, BookMIA ``swj0419/BookMIA``; split
  ``train``).

``subset="paper300"`` (MacGyver only) reproduces the paper's 300 problems: the solvable
rows of the upstream sheet in its order, shuffled by ``numpy.random.default_rng(42).permutation(n)``
(what ``datasets.Dataset.shuffle(seed=42)`` does), first 300; picked by their IDs
(``macgyver_paper300.json``), so the sheet in another row order or as CSV gives the same 300.

>>> [p.id for p in load_problems("macgyver")][:2]
['mg-001', 'mg-002']
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from creval.benchmarks.common import jsonl_objects
from creval.benchmarks.openended.sentences import split_sentences
from creval.errors import CrevalError

__all__ = [
    "DOMAINS",
    "FIELDS",
    "HF_DATASETS",
    "Problem",
    "load_macgyver_table",
    "load_problems",
    "problem_from_record",
    "seed42_order",
    "split_sentences",
]

Domain = Literal["macgyver", "hypogen", "bookmia"]
DOMAINS: tuple[str, ...] = ("macgyver", "hypogen", "bookmia")
FIELDS: dict[str, tuple[str, ...]] = {
    "macgyver": ("problem",),
    "hypogen": ("bit", "flip"),
    "bookmia": ("start", "end"),
}
HF_DATASETS = {"hypogen": "UniverseTBD/hypogen-dr1", "bookmia": "swj0419/BookMIA"}
MACGYVER_COLUMNS = ("ID", "Problem", "Solvable?", "Solution")
SUBSETS = {"macgyver": ("paper300",)}


class Problem(BaseModel):
    """One open-ended problem: ``fields`` fill the prompt; ``reference`` is a human answer."""

    model_config = ConfigDict(frozen=True)
    id: str
    domain: Domain
    fields: dict[str, str]
    reference: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _has_fields(self) -> Problem:
        missing = [f for f in FIELDS[self.domain] if not self.fields.get(f, "").strip()]
        if missing:
            raise ValueError(f"{self.domain} problem {self.id!r} lacks {', '.join(missing)}")
        return self

    def prompt_fields(self) -> dict[str, str]:
        """A copy of ``fields``: the placeholders of the step prompt."""
        return dict(self.fields)

    def judge_text(self) -> str:
        """The problem as a judge sees it (the task, without any reference answer).

        >>> Problem(id="1", domain="hypogen", fields={"bit": "B", "flip": "F"}).judge_text()
        'Bit (conventional assumption): B\\nFlip (new idea to reach): F'
        """
        f = self.fields
        if self.domain == "hypogen":
            return (
                f"Bit (conventional assumption): {f['bit']}\nFlip (new idea to reach): {f['flip']}"
            )
        if self.domain == "bookmia":
            return (
                "Write a story that begins and ends with these sentences.\n"
                f"First sentence: {f['start']}\nLast sentence: {f['end']}"
            )
        return f["problem"]

    def full_solution(self, steps: list[str]) -> str:
        """The finished answer built from the generated steps.

        MacGyver and HypoGen: ``Step 1: ...`` lines. BookMIA: the story, i.e. the first
        sentence, the generated passages and the last sentence joined by spaces. No steps
        give an empty string.

        >>> Problem(id="1", domain="macgyver", fields={"problem": "P"}).full_solution(["a", "b"])
        'Step 1: a\\nStep 2: b'
        >>> Problem(id="2", domain="bookmia", fields={"start": "S.", "end": "E."}).full_solution(["m"])
        'S. m E.'
        """
        steps = [s.strip() for s in steps if s.strip()]
        if not steps:
            return ""
        if self.domain == "bookmia":
            return " ".join([self.fields["start"], *steps, self.fields["end"]])
        return "\n".join(f"Step {i}: {s}" for i, s in enumerate(steps, start=1))


def seed42_order(n: int) -> list[int]:
    """``numpy.random.default_rng(42).permutation(n)`` as a list of ints.

    >>> seed42_order(5)
    [4, 2, 3, 1, 0]
    """
    import numpy as np

    return [int(i) for i in np.random.default_rng(42).permutation(n)]


def paper300(problems: list[Problem]) -> list[Problem]:
    """The paper's 300 MacGyver problems, picked by their IDs (shipped, in the paper's order)
    so that the sheet's row order or form does not change which; a file without all of them:
    its own solvable rows in seed-42 order, first 300."""
    text = (resources.files("creval") / "data" / "openended" / "macgyver_paper300.json").read_text("utf-8")
    by_id = {p.id: p for p in problems}
    ids = [str(i) for i in json.loads(text)["ids"]]
    if all(i in by_id for i in ids):
        return [by_id[i] for i in ids]
    return [problems[i] for i in seed42_order(len(problems))[:300]]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _pick(record: Mapping[str, Any], *names: str) -> str:
    """The first of ``names`` present in ``record`` (also inside a nested dict)."""
    for name in names:
        if name in record and record[name] is not None:
            return _text(record[name])
    for value in record.values():
        if isinstance(value, Mapping):
            found = _pick(value, *names)
            if found:
                return found
    return ""


def problem_from_record(domain: str, record: Mapping[str, Any], fallback_id: str) -> Problem | None:
    """A :class:`Problem` from one record in our JSONL format or an upstream format.

    MacGyver records may use upstream column names (``ID``, ``Problem``, ``Solution``);
    HypoGen records may nest ``bit``/``flip`` in a dict (``bit_flip_spark``); BookMIA
    records may carry a raw ``snippet``. Returns None for a record that is not a problem
    (an unsolvable MacGyver row, a BookMIA snippet under 3 sentences).

    >>> problem_from_record("hypogen", {"bit_flip": {"bit": "B.", "flip": "F."}}, "7").fields
    {'bit': 'B.', 'flip': 'F.'}
    """
    if domain not in DOMAINS:
        raise CrevalError(f"Unknown domain {domain!r}; choose one of: {', '.join(DOMAINS)}.")
    pid = _pick(record, "id", "ID") or fallback_id
    meta: dict[str, Any] = {}
    if domain == "macgyver":
        solvable = _pick(record, "Solvable?", "solvable")
        if solvable and solvable.strip().lower() not in ("yes", "true"):
            return None
        fields = {"problem": _pick(record, "problem", "Problem")}
        reference = _pick(record, "reference", "Solution") or None
        for key in ("Label", "Unconventional?", "Unconventional", "rank"):
            if key in record:
                meta[key.rstrip("?").lower()] = record[key]
    elif domain == "hypogen":
        fields = {"bit": _pick(record, "bit", "Bit"), "flip": _pick(record, "flip", "Flip")}
        reference = _pick(record, "reference", "chain_of_reasoning", "chain_of_thought") or None
        spark = _pick(record, "spark", "Spark")
        if spark:
            meta["spark"] = spark
    else:
        snippet = _pick(record, "snippet")
        if snippet and not _pick(record, "start"):
            sentences = split_sentences(snippet)
            if len(sentences) < 3:
                return None
            fields = {"start": sentences[0], "end": sentences[-1]}
            reference = " ".join(sentences[1:-1])
        else:
            fields = {"start": _pick(record, "start"), "end": _pick(record, "end")}
            reference = _pick(record, "reference") or None
        for key in ("book", "book_id", "snippet_id", "label"):
            if key in record:
                meta[key] = record[key]
    missing = [name for name, value in fields.items() if not value.strip()]
    if missing:
        raise CrevalError(
            f"{domain} problem {pid!r} lacks {', '.join(missing)}; each record needs "
            f"{', '.join(FIELDS[domain])}" + (" (or a snippet)." if domain == "bookmia" else ".")
        )
    return Problem(id=pid, domain=domain, fields=fields, reference=reference, meta=meta)  # type: ignore[arg-type]


def _from_records(domain: str, records: Iterable[Mapping[str, Any]], source: str) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()
    for i, record in enumerate(records):
        try:
            problem = problem_from_record(domain, record, fallback_id=str(i))
        except CrevalError as exc:
            raise CrevalError(f"{source}: record {i + 1}: {exc}") from None
        if problem is None:
            continue
        if problem.id in seen:
            raise CrevalError(f"{source}: record {i + 1}: duplicate id {problem.id!r}.")
        seen.add(problem.id)
        problems.append(problem)
    if not problems:
        raise CrevalError(f"{source} holds no {domain} problems.")
    return problems


def _read_jsonl(lines: Iterable[str], source: str) -> list[dict[str, Any]]:
    return [record for _, record in jsonl_objects(lines, source)]


def _check_columns(header: Iterable[Any], source: str) -> None:
    missing = [c for c in MACGYVER_COLUMNS if c not in set(map(_text, header))]
    if missing:
        raise CrevalError(
            f"{source} lacks the MacGyver column(s) {', '.join(missing)}; the sheet needs "
            f"{', '.join(MACGYVER_COLUMNS)} (and optionally Unconventional?, Label)."
        )


def _read_macgyver_rows(path: Path) -> list[dict[str, Any]]:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        with path.open(encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f)
            _check_columns(reader.fieldnames or [], str(path))
            return list(reader)
    if suffix in (".xlsx", ".xlsm"):
        try:
            import openpyxl
        except ImportError:
            raise CrevalError(
                f"Reading {path.name} needs the 'openpyxl' package, which is not installed. "
                "Install it with: pip install 'creval[data]' (or pip install openpyxl), or "
                "pass the sheet saved as CSV."
            ) from None
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            rows = book.worksheets[0].iter_rows(values_only=True)
            header = [_text(h) for h in next(rows, ())]
            _check_columns(header, str(path))
            return [dict(zip(header, row, strict=False)) for row in rows if any(row)]
        finally:
            book.close()
    if suffix == ".jsonl":
        records = _read_jsonl(path.read_text(encoding="utf-8").splitlines(), str(path))
        if records and "Problem" in records[0]:
            _check_columns(records[0].keys(), str(path))
        return records
    raise CrevalError(f"Cannot read {path}: MacGyver data must be .csv, .xlsx or .jsonl.")


def load_macgyver_table(path: str | Path, *, solvable_only: bool = True) -> list[Problem]:
    """MacGyver problems from the upstream sheet (``.csv``/``.xlsx``) in file order.

    With ``solvable_only=False`` unsolvable rows are kept too (``meta["solvable"]`` says
    which), for example to attach problem texts to human labels.
    """
    file = Path(path)
    if not file.is_file():
        raise CrevalError(f"MacGyver file {file} does not exist.")
    rows = _read_macgyver_rows(file)
    problems: list[Problem] = []
    for i, row in enumerate(rows):
        solvable = _text(row.get("Solvable?", "Yes")).strip().lower() == "yes"
        if solvable_only and not solvable:
            continue
        record = {**row, "Solvable?": "Yes"}
        try:
            problem = problem_from_record("macgyver", record, fallback_id=str(i))
        except CrevalError as exc:
            raise CrevalError(f"{file}: row {i + 2}: {exc}") from None
        assert problem is not None
        meta = {**problem.meta, "solvable": solvable, "row": i}
        problems.append(problem.model_copy(update={"meta": meta}))
    if not problems:
        raise CrevalError(f"{file} holds no MacGyver problems.")
    return problems


def _load_hf(domain: str, spec: str) -> list[Problem]:
    if domain not in HF_DATASETS:
        raise CrevalError(f"{domain} has no Hugging Face source; pass a file instead.")
    parts = spec.split(":")
    name = parts[1] if len(parts) > 1 and parts[1] else HF_DATASETS[domain]
    split = parts[2] if len(parts) > 2 and parts[2] else "train"
    try:
        import datasets
    except ImportError:
        raise CrevalError(
            f"Loading {name} from Hugging Face needs the 'datasets' package, which is not "
            "installed. Install it with: pip install 'creval[data]', or pass a local JSONL file."
        ) from None
    try:
        rows = datasets.load_dataset(name, split=split)
    except Exception as exc:  # network, auth, unknown split: say what failed
        raise CrevalError(
            f"Could not load the Hugging Face dataset {name} (split {split}): {exc}. Offline, "
            "download it elsewhere and pass the JSONL file."
        ) from None
    return _from_records(domain, rows, f"hf:{name}:{split}")


def _starter(domain: str) -> list[Problem]:
    file = resources.files("creval") / "data" / "openended" / f"{domain}.jsonl"
    lines = file.read_text(encoding="utf-8").splitlines()
    return _from_records(
        domain, _read_jsonl(lines, f"starter {domain}.jsonl"), f"starter {domain}.jsonl"
    )


#: The file ``creval data fetch DOMAIN`` writes, to pass as ``--source``.
UPSTREAM_FILES = {"macgyver": "problem_solution_pair.xlsx"}


def load_problems(
    domain: str, source: str | None = None, *, subset: str | None = None, limit: int | None = None
) -> list[Problem]:
    """Problems of ``domain`` from ``source`` (see the module docstring), then ``subset``
    and the first ``limit``.

    >>> [p.fields["bit"][:30] for p in load_problems("hypogen", limit=1)]
    ['Weather forecasts are produced']
    """
    if domain not in DOMAINS:
        raise CrevalError(f"Unknown domain {domain!r}; choose one of: {', '.join(DOMAINS)}.")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise CrevalError(f"limit must be a positive integer, got {limit!r}.")
    if subset is not None and subset not in SUBSETS.get(domain, ()):
        known = ", ".join(SUBSETS.get(domain, ())) or "none"
        raise CrevalError(f"Unknown subset {subset!r} for {domain}; subsets: {known}.")
    if source is None:
        if subset is not None:
            raise CrevalError(
                f"{domain}'s subset {subset!r} selects from the upstream data: fetch it with "
                f"`creval data fetch {domain}` and pass --source data/{domain}/"
                f"{UPSTREAM_FILES.get(domain, domain + '.jsonl')} (in a profile: --set "
                f"{domain}.source=FILE).")
        problems = _starter(domain)
    elif source == "hf" or source.startswith("hf:"):
        problems = _load_hf(domain, source)
    else:
        path = Path(source)
        if not path.is_file():
            raise CrevalError(
                f"{domain} file {path} does not exist. Pass a .jsonl file"
                + (", the MacGyver .csv/.xlsx sheet" if domain == "macgyver" else ", 'hf'")
                + ", or no source for the starter set."
            )
        if domain == "macgyver" and path.suffix.lower() in (".csv", ".xlsx", ".xlsm"):
            problems = load_macgyver_table(path)
        else:
            records = _read_jsonl(path.read_text(encoding="utf-8").splitlines(), str(path))
            problems = _from_records(domain, records, str(path))
    if subset == "paper300":
        problems = paper300(problems)
    return problems[:limit] if limit is not None else problems
