"""The Alternative Uses Task's data: people's rated responses (Ocsai), the published scorers'
scores of the same test responses, our starter objects, and parsing a model's list of uses.

People's responses come from ``massivetexts/ocsai`` (MIT), ``data/ocsai1/`` (train, val and
test splits; one response per line, the human originality rating 1-5 times 10), fetched with
``creval data fetch ocsai`` (:mod:`creval.benchmarks.aut.fetch`) and read from the folder
``--people`` names (default: ``data/ocsai`` when it exists). The published scorers' scores
(``results/logprobs_<model>_ocsai1.csv``) list the test responses in the test file's order.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from creval.errors import CrevalError

SPLITS = {s: f"ocsai1/finetune-gt_main2_prepared_{s}.jsonl" for s in ("train", "val", "test")}
#: The published scorers whose per-response scores Ocsai released (logprobs CSVs).
PUBLISHED = ("gpt-4o", "gpt-4o-mini", "ocsai-chatgpt", "ocsai-davinci2")
DEFAULT_PEOPLE = Path("data") / "ocsai"
_PROMPT = re.compile(r"^AUT Prompt:(?P<object>.*)\nResponse:(?P<use>.*)\nScore:\n?$", re.S)
#: A list marker at the start of a line: ``1.``, ``2)``, ``-``, ``*``, a bullet.
_MARKER = re.compile(r"^\s*(?:\d{1,3}[.)]\s*|[-*\u2022]\s+)")


@dataclass(frozen=True)
class Response:
    """One person's use of an object and its human originality rating (1-5)."""

    object: str
    use: str
    rating: float


def people_folder(path: str | None) -> Path | None:
    """The Ocsai folder ``--people`` names (checked), else ``data/ocsai`` if it is there."""
    if path is None:
        return DEFAULT_PEOPLE if (DEFAULT_PEOPLE / SPLITS["test"]).is_file() else None
    folder = Path(path)
    missing = [f for f in SPLITS.values() if not (folder / f).is_file()]
    if missing:
        raise CrevalError(
            f"{folder} is not an Ocsai data folder ({missing[0]} is missing). Fetch it with "
            "`creval data fetch ocsai --dest FOLDER` and pass that FOLDER to --people.")
    return folder


@functools.lru_cache(maxsize=8)
def load_split(folder: Path, split: str) -> tuple[Response, ...]:
    """People's responses of one split, in the file's order."""
    path = folder / SPLITS[split]
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            match = _PROMPT.match(row["prompt"])
            rating = float(row["completion"]) / 10
        except (ValueError, KeyError, TypeError):
            match, rating = None, 0.0
        if match is None:
            raise CrevalError(f"{path} line {number} is not an Ocsai response "
                              "({'prompt': 'AUT Prompt:...\\nResponse:...\\nScore:\\n', "
                              "'completion': '20'}); fetch the data again.")
        out.append(Response(match["object"].strip(), match["use"].strip(), rating))
    return tuple(out)


def published_scores(folder: Path) -> dict[str, list[float]]:
    """Each published scorer's score of each test response, in the test file's order (the
    ``score_1`` column: the score the model gave, its most likely token). Scorers whose CSV
    is absent are left out; a CSV whose rows are not the test responses is refused."""
    test = load_split(folder, "test")
    out: dict[str, list[float]] = {}
    for name in PUBLISHED:
        path = next((p for p in (folder / "results" / f"logprobs_{name}_ocsai1.csv",
                                 folder / "results" / "logprobs" / f"logprobs_{name}_ocsai1.csv")
                     if p.is_file()), None)
        if path is not None:
            out[name] = _published_column(path, test)
    return out


@functools.lru_cache(maxsize=8)
def _published_column(path: Path, test: tuple[Response, ...]) -> list[float]:
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if len(rows) != len(test) or any(
            r["item"].strip() != t.object or r["response"].strip() != t.use for r, t in zip(rows, test, strict=False)):
        raise CrevalError(f"{path} does not list the test responses of "
                          f"{SPLITS['test']} in order; fetch the data again.")
    return [float(r["score_1"]) for r in rows]


def file_digest(folder: Path, split: str) -> str:
    """The SHA-256 (first 16 digits) of a split's file: what a fitted regressor is keyed by."""
    return hashlib.sha256((folder / SPLITS[split]).read_bytes()).hexdigest()[:16]


def starter_objects() -> list[str]:
    """Our starter objects (shipped, written by us): used when the Ocsai data is absent."""
    text = (resources.files("creval") / "data" / "aut" / "objects.txt").read_text(encoding="utf-8")
    return _objects(text, "the aut starter list")


def load_objects(path: str | None, folder: Path | None) -> list[str]:
    """``--objects`` (a file, one per line, or a comma-separated list), else the Ocsai objects
    (when the data is there), else the starter objects."""
    if path:
        file = Path(path)
        if file.is_file():
            return _objects(file.read_text(encoding="utf-8"), str(file))
        if "," in path or not any(c in path for c in "/\\."):
            return _objects("\n".join(path.split(",")), "--objects")
        raise CrevalError(f"Objects file {file} does not exist. Pass a text file (one object "
                          "per line) or a comma-separated list to --objects.")
    if folder is not None:
        return sorted({r.object for r in load_split(folder, "test")})
    return starter_objects()


def _objects(text: str, source: str) -> list[str]:
    objects = [line.strip() for line in text.splitlines()
               if line.strip() and not line.lstrip().startswith("#")]
    if not objects:
        raise CrevalError(f"{source} lists no object: write one object per line.")
    keys = [object_key(o) for o in objects]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise CrevalError(f"{source} lists an object twice ({', '.join(twice)}).")
    return objects


def object_key(obj: str) -> str:
    """The unit key of an object.

    >>> object_key("Paper clip!")
    'object-paper-clip'
    """
    return "object-" + re.sub(r"[^a-z0-9]+", "-", obj.lower()).strip("-")


def parse_uses(text: str) -> list[str]:
    """The distinct uses an answer lists, in order: list items when there are any (so a
    preamble is not a use), else every non-blank line; emphasis and trailing punctuation
    removed; uses differing only in case or spacing count once.

    >>> parse_uses("Here are some:\\n1. A plant pot.\\n2) a plant pot\\n- **Bird bath**")
    ['A plant pot', 'Bird bath']
    >>> parse_uses("doorstop\\n\\nbook end")
    ['doorstop', 'book end']
    """
    lines = [line for line in text.splitlines() if line.strip()]
    listed = [_MARKER.sub("", line) for line in lines if _MARKER.match(line)]
    uses: list[str] = []
    seen: set[str] = set()
    for item in listed or lines:
        use = " ".join(item.replace("**", "").replace("__", "").split()).strip(" .;,:")
        if use and use.lower() not in seen:
            seen.add(use.lower())
            uses.append(use)
    return uses


def stratified(responses: list[tuple[int, Response]], limit: int | None) -> list[tuple[int, Response]]:
    """At most ``limit`` responses, the same share of each object as in ``responses``
    (largest remainders; at least one per object while the limit allows), each object's
    taken in a fixed pseudo-random order (a hash of the use): the same on every run.

    >>> rs = [(i, Response("brick" if i < 6 else "rope", f"u{i}", 1.0)) for i in range(9)]
    >>> sorted({r.object for _, r in stratified(rs, 3)}), len(stratified(rs, 3))
    (['brick', 'rope'], 3)
    """
    if limit is None or limit >= len(responses):
        return list(responses)
    by_object: dict[str, list[tuple[int, Response]]] = {}
    for item in responses:
        by_object.setdefault(item[1].object, []).append(item)
    total = len(responses)
    quota = {o: limit * len(rs) / total for o, rs in by_object.items()}
    take = {o: min(len(by_object[o]), max(1, int(q))) for o, q in quota.items()}
    for o in sorted(quota, key=lambda o: quota[o] - int(quota[o]), reverse=True):
        if sum(take.values()) >= limit:
            break
        take[o] = min(len(by_object[o]), take[o] + 1)
    chosen = []
    for o, rs in by_object.items():
        order = sorted(rs, key=lambda x: hashlib.sha256(x[1].use.encode()).hexdigest())
        chosen.extend(order[: take[o]])
    chosen.sort(key=lambda x: x[0])
    return chosen[:limit]


def anchors(folder: Path | None, obj: str, *, per_object: int = 4) -> list[Response]:
    """A few of people's rated responses to ``obj`` from the TRAIN split only (never test),
    spread over the rating scale (lowest to highest, evenly), for the judge's prompt."""
    if folder is None or per_object < 1:
        return []
    rated = sorted((r for r in load_split(folder, "train") if r.object == obj.lower().strip()),
                   key=lambda r: (r.rating, r.use))
    if len(rated) <= per_object:
        return rated
    step = (len(rated) - 1) / (per_object - 1) if per_object > 1 else 0
    return [rated[round(i * step)] for i in range(per_object)]
