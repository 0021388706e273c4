"""English DAT placed among Chen and Ding's five released models and Olson's people, every
list re-scored by the run's own scorer.

Chen and Ding (Findings of EMNLP 2023) released the word lists five models gave (gpt-4,
gpt-3.5-turbo, oa-30b, vicuna-13b, chatglm-6b) under greedy decoding and under top-p 0.9 at
temperature 0.7 (``dat-humans/models/``, MIT licence, read at run time from the folder
``creval data fetch dat-humans`` writes, never packaged); Olson et al.'s people (study 2,
8,572 people) are in the same folder. Scored by the official scorer (GloVe 840B) their
numbers cannot stand beside a run scored with other vectors; re-scored by **the run's own
scorer** (same vectors, dictionary and validity rule) they can, as ``creval compare
--homogeneity`` and ``human_percentile`` already do.

Two protocols, one per released condition, hold them (:func:`released_protocols`): a run is
placed among them only when its decoding matches (temperature 0.7 and top-p 0.9, or
temperature 0 for greedy), one answer per trial and Olson's rule of the first 7 valid words
of 10, in English (the comparability rules, :mod:`creval.evaluation.compare.comparability`, say every
difference). The people carry no decoding, but share the protocols so that one placement
holds one set of conditions.

A placement is **unpaired**: a DAT trial is one draw of one prompt, so trials are
exchangeable and nothing pairs trial 3 of the run with list 3 of a model; the evaluation layer
places the run (:mod:`creval.evaluation.compare.placement`) among the lists this module
declares and re-scores, read through the benchmark's hooks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.records.references import (
    DataSource,
    LocatedInputs,
    PaperReferences,
    Protocol,
    Reference,
)

if TYPE_CHECKING:
    from creval.benchmarks.dat.scoring import DATScorer
    from creval.reader import Run

PAPER = ("Chen and Ding 2023 (Findings of EMNLP), released DAT word lists "
         "(github.com/DingNLab/probing_creativity, MIT), and Olson et al. 2021 (PNAS) study 2")
SOURCE = "dat-humans (creval data fetch dat-humans), re-scored by this run's scorer"
PEOPLE = "people (Olson et al. study 2)"
#: protocol id -> (released setting, temperature, top_p or None: any, as greedy ignores it)
CONDITIONS: dict[str, tuple[str, float, float | None]] = {
    "dat-en-released-top-p": ("top_p", 0.7, 0.9),
    "dat-en-released-greedy": ("greedy", 0.0, None),
}
#: The validity rule and answers of Chen and Ding (Olson's scorer: the first 7 valid words of
#: 10, one answer per trial), in English.
_FIXED: dict[str, Any] = {"lang": "en", "variant": ("auto", "olson"), "minimum": 7, "words": 10,
                          "attempts": (None, 1), "constrain_answers": False, "prompt_file": None}


#: The options a DAT scorer is built from (the released lists are re-scored once per set).
_SCORER_OPTIONS = ("lang", "variant", "vectors", "dictionary", "embedder", "minimum", "words",
                   "reject_proper_nouns", "constrain_answers", "prompt_file")


def dat_unit(lang: str, variant: str | None = None) -> str:
    """The unit of a DAT value: ``x100`` (Olson: mean cosine distance x 100) or ``0-1`` (the
    Japanese paper's all-valid variant: the mean cosine distance itself).

    >>> dat_unit("en"), dat_unit("ja"), dat_unit("en", "all-valid")
    ('x100', '0-1', '0-1')
    """
    olson = variant == "olson" or (variant in (None, "auto") and lang == "en")
    return "x100" if olson else "0-1"


def released_protocols(options: Mapping[str, Any]) -> dict[str, Protocol]:
    """The English DAT protocols of the released lists, held against a run with ``options``:
    the scoring resources (vectors, dictionary) are the run's own, since every released list
    is re-scored by the run's scorer; options without effect in English (the Japanese
    embedder, proper nouns) and how many trials and repeats follow the run."""
    same = {k: options.get(k) for k in ("vectors", "dictionary", "embedder", "reject_proper_nouns",
                                        "max_tokens", "repeats") if k in options}
    inferred = {
        "vectors": "every released list and person is re-scored by this run's scorer",
        "dictionary": "every released list and person is re-scored by this run's scorer",
        "prompt_file": "creval's wording of Olson's instruction; the released lists answered "
                       "Chen and Ding's wording of the same instruction",
        "max_tokens": "not stated by Chen and Ding; an answer cut short is an invalid trial",
    }
    out = {}
    for pid, (setting, temperature, top_p) in CONDITIONS.items():
        described = ("greedy decoding (temperature 0)" if setting == "greedy"
                     else f"top-p {top_p} at temperature {temperature}")
        opts = {**same, **_FIXED, "temperature": temperature,
                "top_p": top_p if top_p is not None else options.get("top_p", 1.0)}
        notes = dict(inferred)
        if top_p is None:
            notes["top_p"] = "greedy decoding takes the likeliest token whatever top-p is"
        out[pid] = Protocol(
            id=pid, benchmark="dat", data="none", items=None, judge=None,
            description=f"English DAT, Chen and Ding's five models' released lists ({described}) "
                        "and Olson's people, every list re-scored by this run's scorer (Olson's "
                        "rule: the first 7 valid words of 10, x100); placed with an unpaired "
                        "test (trials are exchangeable).",
            options=opts, inferred={k: v for k, v in notes.items() if k in opts})
    return out


@dataclass(frozen=True)
class Group:
    """One released model's (or the people's) lists under one protocol, re-scored."""

    subject: str
    kind: str
    lists: int
    values: tuple[float, ...]


def _scorer(options: Mapping[str, Any]) -> DATScorer:
    from creval.benchmarks.dat import DATOptions
    from creval.benchmarks.dat.scoring import DATScorer

    known = {k: v for k, v in options.items() if k in DATOptions.model_fields}
    return DATScorer.from_options(DATOptions.model_validate(known))


@lru_cache(maxsize=8)
def _released_scores(root: str, setting: str, options_json: str) -> tuple[tuple[str, int, tuple[float, ...]], ...]:
    """Per model: (model, lists, valid scores) of one released setting, re-scored (once per
    process per scorer and folder)."""
    from creval.benchmarks.dat.humans import read_model_words

    scorer = _scorer(json.loads(options_json))
    by_model: dict[str, list[float | None]] = {}
    for lists in read_model_words(Path(root), setting):
        result = scorer.score_words([w.lower() for w in lists.words])
        by_model.setdefault(lists.model, []).append(None if result.score is None else float(result.score))
    return tuple((m, len(v), tuple(x for x in v if x is not None)) for m, v in by_model.items())


def released_groups(root: Path, options: Mapping[str, Any]) -> dict[str, list[Group]]:
    """Protocol id -> the released models' and the people's re-scored lists, for a run with
    ``options`` (its scorer)."""
    from creval.benchmarks.dat.people import people_scores

    key = json.dumps({k: options[k] for k in _SCORER_OPTIONS if k in options}, sort_keys=True,
                     default=str)
    people = people_scores(_scorer(options), root)
    out: dict[str, list[Group]] = {}
    for pid, (setting, _, _) in CONDITIONS.items():
        try:
            released = _released_scores(str(root), setting, key)
        except CrevalError:  # a folder of people only (no models/): the people still stand
            released = ()
        groups = [Group(m, "model", n, values) for m, n, values in released if values]
        out[pid] = [*groups, Group(PEOPLE, "human", people.people, people.scores)]
    return out


def _root(options: Mapping[str, Any], located: LocatedInputs) -> Path | None:
    """The dat-humans folder the run read, found by the digests it recorded (its recorded
    path, else the default places, as the evaluation layer located it); None when the run
    recorded one that no place holds any more. A run that recorded none (written before the
    record) takes the folder its options and the defaults give now."""
    from creval.benchmarks.dat.humans import resolve_people_root

    if "people" in located.recorded:
        return Path(located.found["people"]) if "people" in located.found else None
    try:
        return resolve_people_root(options.get("people"))
    except CrevalError:
        return None


def _eligible(options: Mapping[str, Any]) -> bool:
    """An English run scored by Olson's variant (the released lists are English)."""
    variant = options.get("variant", "auto")
    return options.get("lang", "en") == "en" and variant in ("auto", "olson")


def released_references(run: Run, measure: str, located: LocatedInputs
                        ) -> list[tuple[Protocol, list[tuple[Reference, tuple[float, ...]]]]]:
    """For an English DAT run's ``dat_mean``: each protocol of :func:`released_protocols` with
    its references (the five released models and the people, each valued at the mean of its
    re-scored valid lists) and the lists' scores behind each. Empty when the run is not an
    English Olson-scored DAT run, or the dat-humans folder is not found or not readable
    (a report never fails for it)."""
    options = dict(run.manifest.options)
    if run.benchmark != "dat" or measure != "dat_mean" or not _eligible(options):
        return []
    root = _root(options, located)
    if root is None:
        return []
    try:
        found = released_groups(root, options)
    except CrevalError:  # unreadable people's files: no placement, never a failed report
        return []
    protocols = released_protocols(options)
    return [(protocols[pid], [
        (Reference(PAPER, "004", g.subject, g.kind,  # type: ignore[arg-type]
                   "dat", measure, sum(g.values) / len(g.values), pid,
                   f"{SOURCE}: {len(g.values)} of {g.lists} lists valid"), g.values)
        for g in groups if g.values]) for pid, groups in found.items()]


def released_missing(run: Run, located: LocatedInputs) -> str:
    """Why a DAT run has no released lists to stand among."""
    from creval.benchmarks.dat.people import HOW_TO_GET

    options = dict(run.manifest.options)
    if not _eligible(options):
        return ("the released lists are English and scored by Olson's rule (x100); this run is "
                f"lang={options.get('lang')}, variant={options.get('variant')}")
    if run.scores is None:
        return "the run has no scores yet"
    if "people" in located.recorded and located.problems:
        return f"the dat-humans folder this run read is not found unchanged: {located.problems[0]}"
    return f"the released lists (dat-humans) were not found. {HOW_TO_GET}"


REFERENCES = "seed004-ttct.json"
#: DAT's options that do not change what is measured, each with why.
NOT_COMPARED = {
    "trials": "how many trials: the valid trials behind the value are compared with the "
              "paper's count",
    "people": "where the people's word lists are read from, to place the run among people "
              "(human_percentile, re-scored by the run's own scorer); not how dat_mean is "
              "measured",
    "random_lists": "the random-word control shown beside dat_mean, not how it is measured",
    "random_pos": "the random-word control shown beside dat_mean, not how it is measured",
    "norms": "where the 100,000 people's norms are read from, shown beside dat_mean; not how it "
             "is measured",
}


def references() -> list[PaperReferences]:
    from creval.records.references import packaged_references

    return [packaged_references(REFERENCES)]


def unit_of(protocol: Protocol) -> str | None:
    """The unit of DAT values under ``protocol`` (x100 or 0-1)."""
    variant = protocol.options.get("variant")
    lang = protocol.options.get("lang")
    return dat_unit(lang if isinstance(lang, str) else "en",
                    variant[-1] if isinstance(variant, tuple) else variant)


def data_source() -> DataSource:
    from creval.benchmarks.dat.fetch import UPSTREAM_COMMIT, UPSTREAM_FILES

    return DataSource(
        "dat-humans", "People's DAT word lists (Olson et al. 2021) and five models' lists from "
        "GitHub DingNLab/probing_creativity", "creval.benchmarks.dat.fetch:fetch_dat_humans",
        url="https://github.com/DingNLab/probing_creativity", commit=UPSTREAM_COMMIT,
        digests={local: sha for local, (_, sha) in UPSTREAM_FILES.items()}, licence="MIT")
