"""What DAT declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from creval.benchmarks.families import TTCT
from creval.records import Record, Scores
from creval.records.declarations import (
    Answer,
    AnswerGroup,
    AnswerText,
    BatteryMember,
    Items,
    Measure,
    PresetEntry,
    Separation,
    SweepPair,
    SweepPairing,
    file_need,
    hub_model_need,
    unrounded,
)


def dat_units(options: dict[str, Any]) -> str:
    """The scale of DAT's score under ``options``: ``x100`` (Olson) or ``0-1`` (all-valid).

    >>> dat_units({"lang": "ja", "variant": "auto"}), dat_units({}), dat_units({"variant": "all-valid"})
    ('0-1', 'x100', '0-1')
    """
    variant = options.get("variant", "auto")
    if variant == "auto":
        variant = "all-valid" if options.get("lang", "en") == "ja" else "olson"
    return "0-1" if variant == "all-valid" else "x100"


BATTERY = BatteryMember(
    TTCT, 2,
    (Measure("dat_mean", "divergent", "DAT score"),),
    {"smoke": dict(trials=30), "standard": dict(trials=100), "paper": dict(trials=100)},
    takes_lang=True,
    separations=(
        Separation("dat_mean", 1.8, 1.3,
                   "seed 004 Table 6 on the x100 scale of the Olson variant: per-trial sd 1.4-1.8; "
                   "calm3-22b 51.4 vs GPT-4o 52.7", units="x100"),
        Separation("dat_mean", 0.018, 0.013,
                   "seed 004 Table 6 as printed (0-1, the all-valid variant): per-trial sd "
                   "0.014-0.018; calm3-22b 0.514 vs GPT-4o 0.527", units="0-1"),
    ),
    units=dat_units,
)

#: Environment variables naming local copies of the files the English DAT paper used.
GLOVE_840B_ENV = "CREVAL_GLOVE_840B"
OLSON_WORDS_ENV = "CREVAL_OLSON_WORDS"
GLUCOSE = "pkshatech/GLuCoSE-base-ja-v2"


def paper_preset(lang: str) -> PresetEntry:
    """``--preset paper``: the Japanese paper's embedder, or the English paper's GloVe 840B
    and Olson's word list (local files named by the environment)."""
    if lang == "ja":
        return PresetEntry(options={"embedder": f"st:{GLUCOSE}"}, needs=(hub_model_need(GLUCOSE),),
                           protocol="dat-ja")
    return PresetEntry(
        options={"vectors": f"glove:{os.environ.get(GLOVE_840B_ENV, '')}",
                 "dictionary": os.environ.get(OLSON_WORDS_ENV, "")},
        needs=(file_need(GLOVE_840B_ENV, "GloVe 840B 300d (glove.840B.300d.txt)"),
               file_need(OLSON_WORDS_ENV, "Olson et al.'s words.txt")),
    )

#: People's studies with word lists taken as the ``people`` group of homogeneity.
PEOPLE_STUDIES = ("study1a", "study1b")


def _words(ws: Iterable[str]) -> frozenset[str]:
    return frozenset(w.strip().lower() for w in ws if w.strip())


def answer_words(output: dict[str, Any], options: dict[str, Any]) -> list[Any]:
    """The parsed, lower-cased words of one answer, as one set (none when it has no word)."""
    from creval.benchmarks.dat import render_word_list
    from creval.benchmarks.dat.lists import parse_word_list
    from creval.judges.structured import as_text

    text = str(output.get("text", ""))
    if options.get("constrain_answers"):
        text = as_text(text, render_word_list)
    return [frozenset(w.strip().lower() for w in parse_word_list(text) if w.strip())]


def reference_groups(root: Path, run: Any) -> list[AnswerGroup]:
    """The people (studies 1A and 1B) and the five models' top-p lists as groups."""
    from creval.benchmarks.dat.humans import read_model_words, read_people

    people: list[Answer] = [w for p in read_people(root, PEOPLE_STUDIES) if (w := _words(p.words))]
    groups: list[AnswerGroup] = [("people", "people", {"prompt": people},
                                  f"{root} ({', '.join(PEOPLE_STUDIES)})")]
    by_model: dict[str, list[Answer]] = {}
    for lst in read_model_words(root, "top_p"):
        if w := _words(lst.words):
            by_model.setdefault(lst.model, []).append(w)
    for model, lists in by_model.items():
        groups.append((f"published:{model}", "published", {"prompt": lists},
                       f"{root} (top-p 0.9, T 0.7)"))
    return groups


def _people_root(path: Path | None) -> Path | None:
    from creval.benchmarks.dat.humans import resolve_people_root

    return resolve_people_root(path)


ANSWER_TEXT = AnswerText(
    texts=answer_words, homogeneity=True, pooled=True, measure="words",
    references_from="people", references=reference_groups, references_folder=_people_root,
    not_free_text="DAT answers are lists of ten words, not texts to compare",
)


def sweep_pairs(records: list[Record], scores: Scores) -> list[SweepPair]:
    """The DAT score (mean over valid trials) against the valid-answer rate (trials whose
    answer gave a score, over the trials answered)."""
    rows = [r for r in scores.table if "score" in r]
    scored = unrounded(rows, "score", list(scores.per_item.get("dat_mean", [])))
    return [SweepPair("dat_mean", "DAT score", "valid_rate", "valid-answer rate", scored,
                      [0.0 if s is None else 1.0 for s in scored])]


SWEEP = SweepPairing(sweep_pairs)


def people_folders() -> list[Path]:
    """Where the scorer finds the people's folder when ``--people`` is unset."""
    from creval.benchmarks.dat.humans import default_people_folders

    return default_people_folders()


def items_behind(measure: str, scores: Scores) -> Items | None:
    """The valid trials (an invalid trial is not in the mean)."""
    head = scores.headline
    if not isinstance(head.get("valid_trials"), int | float):
        return None
    valid = int(head["valid_trials"])
    invalid = int(head.get("invalid_trials") or 0)
    return Items(valid, valid + invalid, max(scores.units.total, valid + invalid), "valid trials")
