"""Creative and uncreative text sets for the metric-validity analysis (seed 002).

Every loader returns :class:`LabelledText` items (label 1 = creative, 0 = uncreative):

* ``problem-solving``: MacGyver solutions, unconventional (1) vs conventional (0). Our
  starter set by default; or the staged ``macgyver_solvable_labeled.jsonl`` (fields
  ``id``, ``solution``, ``label``), or the upstream ``problem_solution_pair.xlsx`` (or
  CSV; solvable rows, labelled by ``Unconventional?``). The ``<br>`` markup is stripped.
* ``writing``: our starter set by default; or a folder of the Creativity Index paper's
  JSON files (``Human_*.json`` = creative, the model files = uncreative, in any
  ``book``/``poem``/``speech`` subfolders). The prompt sentence, which every human text
  and some model texts start with, is removed from every text.
* ``ideation`` and ``custom``: two JSONL files given as ``--creative`` and ``--uncreative``
  (``text`` field, ``id`` optional).

:func:`balanced_sample` draws the same number of texts from each class with a seed.

>>> items = load_domain("writing")
>>> len(items), sum(i.label for i in items)
(20, 10)
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from creval.benchmarks.common import jsonl_objects
from creval.errors import CrevalError

DOMAINS = ("writing", "problem-solving", "ideation", "custom")
_BR = re.compile(r"\s*<br\s*/?>\s*", re.IGNORECASE)
_PROMPT = re.compile(r"following (?:prompt|line|sentence):\s*(.*?)\s*(?:\[/INST\])?\s*$", re.DOTALL)


class LabelledText(BaseModel):
    model_config = ConfigDict(coerce_numbers_to_str=True, frozen=True)

    id: str
    text: str
    label: int  # 1 creative, 0 uncreative
    group: str = ""  # e.g. the source file


def _starter(name: str) -> list[LabelledText]:
    lines = (resources.files("creval") / "data" / "metric_validity" / f"{name}.jsonl").read_text(
        encoding="utf-8").splitlines()
    return [LabelledText(**row, group="starter") for _, row in jsonl_objects(lines, f"starter {name}")]


def _read_jsonl(path: Path, what: str) -> list[tuple[int, dict[str, Any]]]:
    if not path.is_file():
        raise CrevalError(f"{what} file {path} does not exist.")
    return jsonl_objects(path.read_text(encoding="utf-8").splitlines(), str(path))


def strip_markup(text: str) -> str:
    """MacGyver's ``<br>`` step separators become single line breaks.

    >>> strip_markup("Step1: cut. <br>\\nStep2: tie.")
    'Step1: cut.\\nStep2: tie.'
    """
    return _BR.sub("\n", text).strip()


def _sheet_rows(path: Path) -> list[dict[str, Any]]:
    """Rows of the upstream MacGyver sheet (``.xlsx`` or the same sheet as ``.csv``)."""
    if path.suffix.lower() == ".csv":
        import csv

        with path.open(encoding="utf-8-sig", newline="") as handle:
            return list(csv.DictReader(handle))
    try:
        import openpyxl
    except ImportError:
        raise CrevalError(f"Reading {path.name} needs openpyxl: pip install 'creval[data]'.") from None
    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        rows = book.worksheets[0].iter_rows(values_only=True)
        header = [str(h or "").strip() for h in next(rows, ())]
        return [dict(zip(header, row, strict=False)) for row in rows if any(row)]
    finally:
        book.close()


def _macgyver_sheet(path: Path) -> list[LabelledText]:
    """Solvable rows of the upstream sheet, labelled by its ``Unconventional?`` column."""
    rows = _sheet_rows(path)
    needed = {"ID", "Solvable?", "Unconventional?", "Solution"}
    if rows and not needed <= set(rows[0]):
        raise CrevalError(f"{path}: the MacGyver sheet needs the columns {', '.join(sorted(needed))}.")
    out = []
    for row in rows:
        kind = str(row.get("Unconventional?") or "").strip().lower()
        if str(row.get("Solvable?") or "").strip().lower() != "yes" or kind not in ("unconventional", "conventional"):
            continue
        out.append(LabelledText(id=str(row["ID"]), text=strip_markup(str(row.get("Solution") or "")),
                                label=int(kind == "unconventional"), group=path.name))
    return out


def _macgyver(path: Path) -> list[LabelledText]:
    if path.suffix.lower() in (".xlsx", ".xlsm", ".csv"):
        if not path.is_file():
            raise CrevalError(f"MacGyver file {path} does not exist.")
        return _macgyver_sheet(path)
    out = []
    for number, row in _read_jsonl(path, "MacGyver"):
        solution, label = row.get("solution"), row.get("label")
        if not isinstance(solution, str) or label not in (0, 1):
            raise CrevalError(f"{path}:{number}: expected 'solution' (text) and 'label' (0 or 1).")
        out.append(LabelledText(id=str(row.get("id", number)), text=strip_markup(solution),
                                label=int(label), group=path.name))
    return out


def remove_prompt(text: str, prompt: str) -> str:
    """``text`` without its leading prompt sentence (only when it starts with it).

    >>> remove_prompt("It was cold. We left.", "Please write ... the following prompt: It was cold.")
    'We left.'
    """
    match = _PROMPT.search(prompt)
    sentence = (match.group(1) if match else prompt).strip()
    stripped = text.lstrip()
    if sentence and stripped.startswith(sentence):
        return stripped[len(sentence):].strip()
    return text.strip()


def _creativity_index_folder(folder: Path) -> list[LabelledText]:
    files = sorted(folder.rglob("*.json"))
    if not files:
        raise CrevalError(f"{folder} holds no .json file of the Creativity Index writing sets.")
    out = []
    for path in files:
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise CrevalError(f"{path}: not JSON ({exc.msg}).") from None
        if not isinstance(rows, list):
            raise CrevalError(f"{path}: expected a JSON array of objects with 'prompt' and 'text'.")
        label = 1 if path.name.lower().startswith("human") else 0
        for i, row in enumerate(rows):
            if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                raise CrevalError(f"{path}: item {i} has no 'text'.")
            text = remove_prompt(row["text"], str(row.get("prompt", "")))
            out.append(LabelledText(id=f"{path.parent.name}/{path.stem}/{i}", text=text,
                                    label=label, group=f"{path.parent.name}/{path.stem}"))
    return out


def _text_file(path: Path, label: int) -> list[LabelledText]:
    out = []
    for number, row in _read_jsonl(path, "Creative" if label else "Uncreative"):
        text = row.get("text")
        if not isinstance(text, str):
            raise CrevalError(f"{path}:{number}: no string field 'text'.")
        out.append(LabelledText(id=str(row.get("id", f"{path.stem}-{number}")), text=text,
                                label=label, group=path.name))
    return out


def load_domain(domain: str, data: str | None = None, *, creative: str | None = None,
                uncreative: str | None = None) -> list[LabelledText]:
    """All labelled texts of a domain (see the module docstring for the sources)."""
    if domain not in DOMAINS:
        raise CrevalError(f"--domain takes {', '.join(DOMAINS)}; got {domain!r}.")
    if domain in ("ideation", "custom") or creative or uncreative:
        if not (creative and uncreative):
            raise CrevalError(
                f"--domain {domain} needs --creative FILE and --uncreative FILE (JSONL with 'text')."
            )
        return _text_file(Path(creative), 1) + _text_file(Path(uncreative), 0)
    if data is None:
        return _starter("writing" if domain == "writing" else "problem_solving")
    path = Path(data)
    if domain == "problem-solving":
        return _macgyver(path)
    if path.is_dir():
        return _creativity_index_folder(path)
    if path.is_file():
        return _text_file_labelled(path)
    raise CrevalError(f"Writing data {path} does not exist. Pass the creativity_index folder or a JSONL file.")


def _text_file_labelled(path: Path) -> list[LabelledText]:
    out = []
    for number, row in _read_jsonl(path, "Writing"):
        if not isinstance(row.get("text"), str) or row.get("label") not in (0, 1):
            raise CrevalError(f"{path}:{number}: expected 'text' and 'label' (0 or 1).")
        out.append(LabelledText(id=str(row.get("id", number)), text=row["text"], label=row["label"],
                                group=path.name))
    return out


def balanced_sample(items: Iterable[LabelledText], *, per_class: int | None, seed: int) -> list[LabelledText]:
    """The same number of texts from each class (the smaller class size, or ``per_class``
    when smaller), drawn with ``seed``; creative first, each class in source order.

    >>> items = [LabelledText(id=str(i), text="t", label=int(i < 3)) for i in range(10)]
    >>> [i.id for i in balanced_sample(items, per_class=None, seed=0)][:3]
    ['0', '1', '2']
    >>> len(balanced_sample(items, per_class=2, seed=0))
    4
    """
    pools: dict[int, list[LabelledText]] = {1: [], 0: []}
    for item in items:
        pools[item.label].append(item)  # empty texts stay: each metric counts them as excluded
    size = min(len(pools[1]), len(pools[0]))
    if size == 0:
        raise CrevalError("Each set needs at least one text (creative and uncreative).")
    if per_class is not None:
        size = min(size, per_class)
    rng = random.Random(seed)
    out: list[LabelledText] = []
    for label in (1, 0):
        pool = pools[label]
        chosen = sorted(rng.sample(range(len(pool)), size))
        out.extend(pool[i] for i in chosen)
    return out
