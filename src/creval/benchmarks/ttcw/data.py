"""The TTCW data (Chakrabarty et al., CHI 2024; ``salesforce/creativity_eval``,
``Art_or_Artifice/``, BSD-3-Clause) read from its folder as released.

- ``tests/ttcw_all_tests.json``: the 14 tests (``ttcw_idx``, ``torrance_dimension``,
  ``category``, ``question``, ``full_prompt``: the background and the question).
- ``stories/ttcw_short_stories.json``: 48 stories; the 12 New Yorker ones are links only.
- ``annotations/ttcw_annotations.json``: three experts' Yes/No verdict per story and test.
- ``data/annotations_<name>.jsonl``: the released LLM judges' answers (``id`` =
  ``story_<story_id>_test<idx>``, ``response``: free text starting with Yes or No).
- ``prompts/with_background.txt``: the paper's judge prompt ([STORY], [BACKGROUND], [QUESTION]).

A verdict is read strictly (:func:`parse_verdict`): an answer that gives none is recorded
unparsed, never guessed.

>>> parse_verdict("**Yes**, the ending is earned."), parse_verdict("No. It is abrupt.")
(True, False)
>>> parse_verdict("Content Blocked") is None
True
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from creval.errors import CrevalError

__all__ = [
    "DIMENSIONS", "RELEASED_JUDGES", "Story", "TTCWData", "TTCWTest", "item_key", "load_ttcw",
    "parse_verdict", "starter_data",
]

#: Torrance's dimensions, in the paper's order.
DIMENSIONS = ("Fluency", "Flexibility", "Originality", "Elaboration")
#: File stem of each released LLM judge -> the model the paper names.
RELEASED_JUDGES = {
    "cgpt": "GPT-3.5", "gpt4": "GPT-4", "gemini-pro": "Gemini Pro", "claudev13": "Claude 1.3",
    "claudev2": "Claude 2", "claudev21": "Claude 2.1", "claude3-opus": "Claude 3 Opus",
}
NEW_YORKER = "NewYorker"
_LEAD = re.compile(r"^[\s*_#>\"'`]*(yes|no)\b", re.IGNORECASE)
_LAST = re.compile(r"^[\s*_#>]*(?:final\s+)?(?:answer|verdict)?\s*[:\-]?\s*[*_]*(yes|no)[*_.!\s]*$",
                   re.IGNORECASE)


@dataclass(frozen=True)
class TTCWTest:
    idx: int
    dimension: str
    category: str
    question: str
    #: The background and the question as the paper wrote them.
    full_prompt: str


@dataclass(frozen=True)
class Story:
    story_id: str
    plot_idx: int
    name: str
    plot: str
    #: The text (None for a New Yorker story, released as a link only).
    content: str | None
    #: Who wrote it: NewYorker, Claude, GPT3.5 or GPT4.
    source: str


@dataclass(frozen=True)
class TTCWData:
    folder: Path
    tests: list[TTCWTest]
    stories: list[Story]
    #: (story_id, test idx) -> [(expert, verdict)], in file order
    experts: dict[tuple[str, int], list[tuple[int, bool]]]
    #: creval's starter set (our stories and one rater's verdicts), not the paper's data.
    starter: bool = False

    def test(self, idx: int) -> TTCWTest:
        return next(t for t in self.tests if t.idx == idx)

    def written_by_llms(self) -> list[Story]:
        return [s for s in self.stories if s.content is not None]

    def plots(self) -> list[Story]:
        """The New Yorker stories, one per plot: what ``ttcw`` asks a model to write from."""
        return [s for s in self.stories if s.source == NEW_YORKER]

    def released(self, stem: str) -> dict[tuple[str, int], str]:
        """A released judge's answers: (story_id, test idx) -> response text."""
        return _released_file(str(self.folder / "data" / f"annotations_{stem}.jsonl"))

    def published_prompt(self) -> str:
        return _read(self.folder / "prompts" / "with_background.txt")


def item_key(story_id: str, idx: int) -> str:
    """The unit key of one story and test.

    >>> item_key("0_GPT4", 3)
    '0_GPT4-t03'
    """
    return f"{story_id}-t{idx:02d}"


def parse_verdict(text: str) -> bool | None:
    """True for Yes, False for No: the answer's first word, or else a last line that is the
    answer alone (``Answer: No``); None when neither says it.

    >>> parse_verdict("Reasoning first.\\n\\nAnswer: no"), parse_verdict("Yesterday I read it")
    (False, None)
    """
    found = _LEAD.match(text)
    if found is None:
        lines = [line for line in text.strip().splitlines() if line.strip()]
        found = _LAST.match(lines[-1]) if lines else None
    return None if found is None else found.group(1).lower() == "yes"


def _read(path: Path) -> str:
    if not path.is_file():
        raise CrevalError(f"{path} does not exist: --data must be the TTCW folder "
                          "(Art_or_Artifice of salesforce/creativity_eval; `creval data fetch ttcw`).")
    return path.read_text(encoding="utf-8")


def _json(path: Path) -> Any:
    try:
        return json.loads(_read(path))
    except json.JSONDecodeError as exc:
        raise CrevalError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}).") from None


def _field(row: Any, key: str, where: str) -> Any:
    if not isinstance(row, dict) or key not in row:
        raise CrevalError(f"{where}: missing field {key!r}.")
    return row[key]


@cache
def _released_file(path: str) -> dict[tuple[str, int], str]:
    out: dict[tuple[str, int], str] = {}
    for n, line in enumerate(_read(Path(path)).splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        found = re.fullmatch(r"story_(.+)_test(\d+)", str(_field(row, "id", f"{path}:{n}")))
        if found is None:
            raise CrevalError(f"{path}:{n}: id {row['id']!r} is not story_<story_id>_test<N>.")
        out[(found.group(1), int(found.group(2)))] = str(_field(row, "response", f"{path}:{n}"))
    return out


def starter_data(*, judged: bool = False) -> TTCWData:
    """The 14 tests in creval's own wording (shipped), and with ``judged`` two stories of our
    own with one rater's verdicts (ours, not the experts'): what runs offline."""
    from importlib import resources

    folder = resources.files("creval") / "data" / "ttcw"
    text = (folder / "starter_tests.json").read_text("utf-8")
    tests = [TTCWTest(int(t["ttcw_idx"]), t["torrance_dimension"], t["category"], t["question"],
                      t["full_prompt"]) for t in json.loads(text)["tests"]]
    if not judged:
        return TTCWData(Path("creval-starter"), tests, [], {}, starter=True)
    raw = json.loads((folder / "starter_judged.json").read_text("utf-8"))
    stories = [Story(s["story_id"], int(s["story_idx"]), s["story_name"], s["plot"], s["content"],
                     s["story_id"].split("_", 1)[1]) for s in raw["stories"]]
    experts: dict[tuple[str, int], list[tuple[int, bool]]] = defaultdict(list)
    for row in raw["annotations"]:
        experts[(row["story_id"], int(row["ttcw_idx"]))].append(
            (int(row["expert_idx"]), row["binary_verdict"] == "Yes"))
    return TTCWData(Path("creval-starter"), tests, stories, dict(experts), starter=True)


def load_ttcw(folder: str | Path) -> TTCWData:
    """The tests, stories and expert verdicts of the TTCW folder."""
    base = Path(folder)
    if not base.is_dir():
        raise CrevalError(f"TTCW folder {base} does not exist: pass --data with the folder "
                          "holding tests/, stories/ and annotations/ (`creval data fetch ttcw`).")
    return _load(str(base.resolve()))


@cache
def _load(folder: str) -> TTCWData:
    base = Path(folder)
    tests_file = base / "tests" / "ttcw_all_tests.json"
    tests = [TTCWTest(int(_field(t, "ttcw_idx", str(tests_file))), str(t["torrance_dimension"]),
                      str(t["category"]), str(t["question"]).strip(), str(t["full_prompt"]))
             for t in _json(tests_file)]
    stories_file = base / "stories" / "ttcw_short_stories.json"
    stories = []
    for row in _json(stories_file):
        sid = str(_field(row, "story_id", str(stories_file)))
        content = str(row.get("content") or "")
        link = content.startswith("http") and "\n" not in content
        stories.append(Story(sid, int(row["story_idx"]), str(row["story_name"]), str(row["plot"]),
                             None if link else content, sid.split("_", 1)[1]))
    ann_file = base / "annotations" / "ttcw_annotations.json"
    experts: dict[tuple[str, int], list[tuple[int, bool]]] = defaultdict(list)
    for row in _json(ann_file):
        verdict = str(_field(row, "binary_verdict", str(ann_file)))
        if verdict not in ("Yes", "No"):
            raise CrevalError(f"{ann_file}: binary_verdict {verdict!r} is not Yes or No.")
        experts[(str(row["story_id"]), int(row["ttcw_idx"]))].append(
            (int(row["expert_idx"]), verdict == "Yes"))
    return TTCWData(base, tests, stories, dict(experts))
