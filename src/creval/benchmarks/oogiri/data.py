"""Oogiri prompts: the Oogiri-GO row format, our grouped starter format, and the test split.

**Oogiri-GO rows** (Zhong et al., CLoT, CVPR 2024; Hugging Face ``zhongshsh/CLoT-Oogiri-GO``,
files ``en.jsonl``, ``cn.jsonl``, ``jp.jsonl`` and ``images.zip``): one human response per
line, ``{"type": "T2T"|"I2T"|"IT2T", "question": str|null, "image": id|null, "text": str,
"star": likes|null}``. Rows are grouped into prompts: a T2T prompt by its question, an image
prompt by its image id. A row with neither is excluded and counted.

**Grouped format** (our starter set, and any file whose lines have ``responses``): one
prompt per line, ``{"id", "type", "question", "image", "responses": [{"text", "star"}],
"literal", "rewrite"}``. ``literal`` is a plain, humourless answer (the caption-like
distractor of 2T1) and ``rewrite`` a retelling of the most-liked response without its joke
(the 4T1 distractor); when absent the rewriter model writes them during the run.

**Split.** Oogiri-GO has no official split; the paper used a random 95 % / 5 % one. We
split *prompts* (not rows), so that no test prompt has responses in the training part:
sorted prompt ids are shuffled with ``random.Random(seed)`` and the first
``ceil(test_share * prompts)`` are the test set. The starter set is all test.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from creval.benchmarks.common import jsonl_objects, text_digest
from creval.errors import CrevalError

GameType = Literal["T2T", "I2T", "IT2T"]
#: creval's language code -> the Oogiri-GO file name.
LANG_FILES = {"en": "en.jsonl", "zh": "cn.jsonl", "ja": "jp.jsonl"}
STARTER = {"en": "starter_en.jsonl"}
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".gif")


class OogiriRow(BaseModel):
    """One line of Oogiri-GO."""

    model_config = ConfigDict(extra="ignore")
    type: GameType
    question: str | None = None
    image: str | int | None = None
    text: str = Field(min_length=1)
    star: float | None = Field(default=None, ge=0)


class _Response(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)
    star: float | None = Field(default=None, ge=0)


class _Grouped(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str | int
    type: GameType = "T2T"
    question: str | None = None
    image: str | None = None
    responses: list[_Response] = Field(min_length=1)
    literal: str | None = None
    rewrite: str | None = None


@dataclass(frozen=True)
class Response:
    text: str
    star: float | None


@dataclass(frozen=True)
class Prompt:
    """One Oogiri prompt with its human responses, most liked first (unrated last)."""

    id: str
    type: str
    question: str | None
    image: str | None
    responses: tuple[Response, ...]
    literal: str | None = None
    rewrite: str | None = None

    @property
    def needs_image(self) -> bool:
        return self.image is not None

    def rated(self) -> list[Response]:
        return [r for r in self.responses if r.star is not None]


@dataclass
class Loaded:
    """Prompts and what was left out of them (reason -> count)."""

    prompts: list[Prompt]
    source: str
    excluded: dict[str, int] = field(default_factory=dict)
    split: dict[str, Any] = field(default_factory=dict)


def _by_likes(responses: list[Response]) -> tuple[Response, ...]:
    # Stable: equal likes keep file order; unrated responses go last.
    return tuple(sorted(responses, key=lambda r: -1.0 if r.star is None else -r.star))


def group_rows(rows: list[OogiriRow]) -> tuple[list[Prompt], dict[str, int]]:
    """Group Oogiri-GO rows into prompts; rows with no question and no image are counted."""
    groups: dict[str, tuple[OogiriRow, list[Response]]] = {}
    excluded: dict[str, int] = {}
    for row in rows:
        image = None if row.image is None else str(row.image)
        if image is not None:
            key = f"img-{image}"
        elif row.question and row.question.strip():
            key = "q-" + text_digest(row.question.strip())
        else:
            excluded["row without question or image"] = excluded.get("row without question or image", 0) + 1
            continue
        groups.setdefault(key, (row, []))[1].append(Response(row.text.strip(), row.star))
    prompts = [
        Prompt(id=key, type=first.type, question=first.question,
               image=None if first.image is None else str(first.image), responses=_by_likes(resp))
        for key, (first, resp) in groups.items()
    ]
    return prompts, excluded


def split_prompts(
    prompts: list[Prompt], *, seed: int, test_share: float
) -> tuple[list[Prompt], dict[str, Any]]:
    """The test prompts of a reproducible random split, and a record of the split.

    >>> ps = [Prompt(str(i), "T2T", "q", None, (Response("a", 1),)) for i in range(40)]
    >>> test, info = split_prompts(ps, seed=0, test_share=0.05)
    >>> len(test), info["train"], info["test_ids"] == [p.id for p in test]
    (2, 38, True)
    """
    if not 0.0 < test_share < 1.0:
        raise CrevalError(f"--test-share must be between 0 and 1, got {test_share}.")
    ids = sorted(p.id for p in prompts)
    random.Random(seed).shuffle(ids)
    n_test = math.ceil(test_share * len(ids))
    chosen = set(ids[:n_test])
    test = [p for p in prompts if p.id in chosen]
    test.sort(key=lambda p: ids.index(p.id))
    info = {"seed": seed, "test_share": test_share, "prompts": len(ids), "train": len(ids) - n_test,
            "test": n_test, "test_ids": [p.id for p in test]}
    return test, info


def _read_lines(path: Path) -> list[str]:
    if not path.is_file():
        raise CrevalError(f"Oogiri file {path} does not exist. Pass a JSONL file or a folder "
                          "with en.jsonl/cn.jsonl/jp.jsonl to --source, or run "
                          "`creval data fetch oogiri`.")
    return path.read_text(encoding="utf-8").splitlines()


def _parse(lines: list[str], source: str) -> tuple[list[Prompt], dict[str, int], bool]:
    objects = jsonl_objects(lines, source)
    if not objects:
        raise CrevalError(f"{source} holds no items.")
    grouped = "responses" in objects[0][1]
    if not grouped:
        rows = []
        for number, value in objects:
            try:
                rows.append(OogiriRow.model_validate(value))
            except ValidationError as exc:
                err = exc.errors()[0]
                raise CrevalError(
                    f"{source}:{number}: field {'.'.join(map(str, err['loc']))!r}: {err['msg']}. "
                    "Oogiri-GO lines have type (T2T/I2T/IT2T), question, image, text, star."
                ) from None
        prompts, excluded = group_rows(rows)
        return prompts, excluded, False
    prompts, seen = [], set()
    for number, value in objects:
        try:
            item = _Grouped.model_validate(value)
        except ValidationError as exc:
            err = exc.errors()[0]
            raise CrevalError(
                f"{source}:{number}: field {'.'.join(map(str, err['loc']))!r}: {err['msg']}. "
                "Grouped lines have id, type, question or image, responses [{text, star}], "
                "and optionally literal and rewrite."
            ) from None
        if not (item.question or item.image):
            raise CrevalError(f"{source}:{number}: give a question or an image.")
        if str(item.id) in seen:
            raise CrevalError(f"{source}:{number}: duplicate id {item.id!r}; ids must be unique.")
        seen.add(str(item.id))
        responses = _by_likes([Response(r.text.strip(), r.star) for r in item.responses])
        prompts.append(Prompt(str(item.id), item.type, item.question, item.image, responses,
                              item.literal, item.rewrite))
    return prompts, {}, True


def load_prompts(
    source: str | None, lang: str, *, seed: int = 0, test_share: float = 0.05
) -> Loaded:
    """The test prompts of ``source`` (None: our starter set; a folder; or a JSONL file)."""
    if source is None:
        if lang not in STARTER:
            raise CrevalError(f"There is no starter set in {lang!r} (only: {', '.join(STARTER)}). "
                              "Pass Oogiri-GO data with --source (see `creval data fetch oogiri`).")
        text = (resources.files("creval") / "data" / "oogiri" / STARTER[lang]).read_text("utf-8")
        prompts, excluded, _ = _parse(text.splitlines(), f"starter set {STARTER[lang]}")
        return Loaded(prompts, f"starter:{STARTER[lang]}", excluded,
                      {"note": "the starter set is a test set; no split"})
    path = Path(source)
    if path.is_dir():
        path = path / LANG_FILES[lang]
    prompts, excluded, grouped = _parse(_read_lines(path), str(path))
    if grouped:
        return Loaded(prompts, str(path), excluded, {"note": "grouped file used whole; no split"})
    test, info = split_prompts(prompts, seed=seed, test_share=test_share)
    return Loaded(test, str(path), excluded, info)


def find_image(images_dir: Path, image_id: str) -> Path | None:
    """The file of ``image_id`` in ``images_dir`` (any usual image suffix), or None."""
    for suffix in ("", *IMAGE_SUFFIXES):
        candidate = images_dir / f"{image_id}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def image_data_url(path: Path) -> str:
    """A ``data:`` URL of an image file (for backends that accept images)."""
    import base64
    import mimetypes

    mime = mimetypes.guess_type(path.name)[0] or "image/jpeg"
    return f"data:{mime};base64," + base64.b64encode(path.read_bytes()).decode("ascii")
