"""Read the ``dat-humans`` folder: people's DAT word lists and five models' released lists.

The folder is what ``creval data fetch dat-humans`` writes (github.com/DingNLab/probing_creativity,
Chen and Ding, Findings of EMNLP 2023, redistributing the studies of Olson et al. 2021)::

    human-level/study1a.tsv, study1b.tsv, study2.tsv   one person a row: id, dat, word.1..word.10
    human-level/study1c.tsv                            50 people tested twice: dat.0, dat.2
    models/greedy_search/data_greedy.txt               blocks: model name, then its words
    models/top_p/MODEL.txt                             blocks: temperature, then words (top-p 0.9)
    models/temperature/MODEL.json                      JSON lines {"t", "p", "ans", "words"}

The ``dat`` column is the official scorer's value (GloVe 840B vectors). A model scored with
other vectors must be compared with the people's words re-scored by the same scorer, never
with that column.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

from creval.errors import CrevalError

#: Environment variable naming the dat-humans folder.
PEOPLE_ENV = "CREVAL_DAT_HUMANS"
#: The folder ``creval data fetch dat-humans`` writes by default (relative to the working directory).
FETCH_DIR = Path("data") / "dat-humans"
#: Studies with word lists, and the number of word columns.
WORD_STUDIES = ("study1a", "study1b", "study2")
WORD_COLUMNS = tuple(f"word.{i}" for i in range(1, 11))
SETTINGS = ("greedy", "top_p", "temperature")
Setting = Literal["greedy", "top_p", "temperature"]
#: The sampling of the released top-p lists (the repository's README).
TOP_P_TEMPERATURE = 0.7
TOP_P_P = 0.9
_HOW = "Fetch the data with `creval data fetch dat-humans`, or pass the folder that holds it."


@dataclass(frozen=True)
class Person:
    """One person's DAT answer: blank or ``NA`` words dropped, order kept; ``dat`` is the
    official scorer's value (None where the file has none)."""

    id: str
    study: str
    words: tuple[str, ...]
    dat: float | None


@dataclass(frozen=True)
class ModelWords:
    """One word list a model gave, with how it was sampled (None: greedy)."""

    model: str
    setting: Setting
    temperature: float | None
    top_p: float | None
    words: tuple[str, ...]


def _missing(path: Path, what: str) -> CrevalError:
    return CrevalError(f"{what} not found: {path} does not exist. {_HOW}")


def _number(text: str | None) -> float | None:
    text = (text or "").strip()
    if not text or text.upper() == "NA":
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _word(text: str | None) -> str | None:
    text = (text or "").strip()
    return None if not text or text.upper() == "NA" else text


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise _missing(path, "People's DAT file")
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def read_people(root: Path, studies: Sequence[str] = ("study2",)) -> list[Person]:
    """The people of ``studies`` (any of study1a, study1b, study2), in file order."""
    root = Path(root)
    people: list[Person] = []
    for study in studies:
        if study not in WORD_STUDIES:
            hint = " (study1c has scores but no words: see read_retest)" if study == "study1c" else ""
            raise CrevalError(f"Unknown DAT study {study!r}{hint}; choose from {', '.join(WORD_STUDIES)}.")
        path = root / "human-level" / f"{study}.tsv"
        rows = _rows(path)
        if rows and not set(WORD_COLUMNS) <= set(rows[0]):
            raise CrevalError(f"{path} has no word.1..word.10 columns; is it the dat-humans "
                              f"layout? {_HOW}")
        for row in rows:
            words = tuple(w for w in (_word(row.get(c)) for c in WORD_COLUMNS) if w is not None)
            people.append(Person(id=(row.get("id") or "").strip(), study=study, words=words,
                                 dat=_number(row.get("dat"))))
    return people


def read_retest(root: Path) -> list[tuple[float, float]]:
    """Study 1C: (first test, second test two weeks later) for each person with both."""
    path = Path(root) / "human-level" / "study1c.tsv"
    pairs = []
    for row in _rows(path):
        first, second = _number(row.get("dat.0")), _number(row.get("dat.2"))
        if first is not None and second is not None:
            pairs.append((first, second))
    return pairs


def _blocks(path: Path) -> list[list[str]]:
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    blocks = [[line.strip() for line in block.split("\n") if line.strip()]
              for block in text.split("\n\n")]
    return [block for block in blocks if len(block) >= 2]


def _greedy(root: Path) -> list[ModelWords]:
    path = root / "models" / "greedy_search" / "data_greedy.txt"
    if not path.is_file():
        raise _missing(path, "Models' greedy word lists")
    return [ModelWords(model=b[0], setting="greedy", temperature=None, top_p=None,
                       words=tuple(b[1:])) for b in _blocks(path)]


def _top_p(root: Path) -> list[ModelWords]:
    folder = root / "models" / "top_p"
    if not folder.is_dir():
        raise _missing(folder, "Models' top-p word lists")
    lists = []
    for path in sorted(folder.glob("*.txt")):
        for block in _blocks(path):
            temperature = _number(block[0])
            lists.append(ModelWords(model=path.stem, setting="top_p",
                                    temperature=TOP_P_TEMPERATURE if temperature is None else temperature,
                                    top_p=TOP_P_P, words=tuple(block[1:])))
    return lists


def _temperature(root: Path) -> list[ModelWords]:
    folder = root / "models" / "temperature"
    if not folder.is_dir():
        raise _missing(folder, "Models' temperature word lists")
    lists = []
    for path in sorted(folder.glob("*.json")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                words = tuple(str(w).strip() for w in row["words"] if str(w).strip())
                lists.append(ModelWords(model=path.stem, setting="temperature",
                                        temperature=float(row["t"]), top_p=float(row["p"]),
                                        words=words))
            except (ValueError, KeyError, TypeError) as exc:
                raise CrevalError(f"{path} line {number} is not a JSON object with t, p and "
                                  f"words ({exc}). {_HOW}") from None
    return lists


def read_model_words(root: Path, setting: str | None = None) -> list[ModelWords]:
    """The models' released word lists of one ``setting`` (greedy, top_p, temperature), or all."""
    if setting is not None and setting not in SETTINGS:
        raise CrevalError(f"Unknown setting {setting!r}; choose from {', '.join(SETTINGS)}.")
    readers = {"greedy": _greedy, "top_p": _top_p, "temperature": _temperature}
    chosen = SETTINGS if setting is None else (cast(Setting, setting),)
    return [words for name in chosen for words in readers[name](Path(root))]


def _check(path: Path, source: str) -> Path:
    if not (path / "human-level").is_dir():
        raise CrevalError(f"{path} (from {source}) is not a dat-humans folder: it has no "
                          f"human-level/ folder. {_HOW}")
    return path


def resolve_people_root(path: Path | str | None) -> Path | None:
    """The dat-humans folder: ``path``, else ``$CREVAL_DAT_HUMANS``, else ``data/dat-humans``
    (where ``creval data fetch dat-humans`` writes) if it exists, else None. A folder named
    explicitly (argument or variable) that is not a dat-humans folder is an error."""
    if path is not None and str(path).strip():
        return _check(Path(path).expanduser(), "the people option")
    env = os.environ.get(PEOPLE_ENV, "").strip()
    if env:
        return _check(Path(env).expanduser(), f"${PEOPLE_ENV}")
    if (FETCH_DIR / "human-level").is_dir():
        return FETCH_DIR.resolve()
    return None


def people_folder(path: Path | str | None, lang: str) -> Path | None:
    """The dat-humans folder an English run reads its people from (:func:`resolve_people_root`),
    for the run to record with the SHA-256 of each file; None for another language, when
    there is none, or when the folder named is wrong (the run says so in its notes)."""
    if lang != "en":
        return None
    try:
        return resolve_people_root(path)
    except CrevalError:
        return None


def default_people_folders() -> list[Path]:
    """Where the people are looked for when no folder is named: ``$CREVAL_DAT_HUMANS``, then
    ``data/dat-humans`` (those that exist). ``creval verify`` looks there for the files a run
    recorded when they are no longer at the recorded path."""
    env = os.environ.get(PEOPLE_ENV, "").strip()
    found = [Path(env).expanduser()] if env else []
    return [p.resolve() for p in [*found, FETCH_DIR] if (p / "human-level").is_dir()]
