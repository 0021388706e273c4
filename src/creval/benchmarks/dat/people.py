"""People measured by the run's own scorer: a DAT score placed among Olson et al.'s people.

The people's word lists (study 2 of Olson et al. 2021, 8,572 people; see
:mod:`creval.benchmarks.dat.humans`) are re-scored with the run's :class:`DATScorer` (same
vectors, dictionary, validity rules and number of words), and the model's mean is placed
among them (:func:`creval.metrics.percentile.human_percentile`). The files' ``dat`` column
(GloVe 840B) is never used for this: a score is only comparable with scores of the same
scorer. The re-scored values are cached on disk per scorer identity and data digest.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.benchmarks.dat.humans import PEOPLE_ENV, read_people, resolve_people_root
from creval.errors import CrevalError
from creval.records import Scores

if TYPE_CHECKING:
    from creval.benchmarks.dat.scoring import DATScorer

#: Bump when the re-scoring itself changes (the cache key includes it).
CACHE_VERSION = 1
SOURCE = ("Olson et al. 2021 (PNAS), as redistributed by github.com/DingNLab/probing_creativity "
          "(creval data fetch dat-humans)")
HOW_TO_GET = (f"Get it with `creval data fetch dat-humans` (writes data/dat-humans, found from "
              f"the folder you run creval in), set ${PEOPLE_ENV}, or pass --people PATH.")

#: Spearman rank correlation of per-person scores with the official (GloVe 840B) ones over
#: the 8,572 people of study 2, by (vectors model, dictionary: "default" is the packaged
#: stand-in, "words.txt" Olson's list): bench/dat_embedder_fidelity.py, bench/README.md.
FIDELITY: dict[tuple[str, str], float] = {
    ("glove.6B.50d", "default"): 0.880,
    ("glove.6B.50d", "words.txt"): 0.900,
}


@dataclass(frozen=True)
class PeopleScores:
    """The people's scores under one scorer: ``scores`` holds the scored people only."""

    scores: tuple[float, ...]
    people: int
    studies: tuple[str, ...]
    key: str
    cached: bool


def scorer_identity(scorer: DATScorer) -> dict[str, Any]:
    """What decides a person's score: variant, counts, placeholders and the resources
    (vectors identity, dictionary and, for a file, its size and modification time)."""
    resources = dict(scorer.resources)
    dictionary = resources.get("dictionary")
    if isinstance(dictionary, str) and Path(dictionary).is_file():
        st = Path(dictionary).stat()
        resources["dictionary_file"] = [str(Path(dictionary).resolve()), st.st_size, st.st_mtime_ns]
    return {"version": CACHE_VERSION, "variant": scorer.variant, "lang": scorer.lang,
            "words": scorer.words, "minimum": scorer.minimum,
            "placeholders": sorted(scorer.placeholders), "resources": resources}


def _data_digest(root: Path, studies: Sequence[str]) -> str:
    digest = hashlib.sha256()
    for study in studies:
        path = root / "human-level" / f"{study}.tsv"
        digest.update(study.encode() + (path.read_bytes() if path.is_file() else b""))
    return digest.hexdigest()


def _cache_dir() -> Path:
    from creval._util.paths import cache_root

    return cache_root() / "dat-people"


def people_scores(scorer: DATScorer, root: Path, *, studies: Sequence[str] = ("study2",),
                  cache_dir: Path | None = None, use_cache: bool = True) -> PeopleScores:
    """Every person of ``studies`` scored by ``scorer``; read from the cache when this scorer
    and these files were scored before (``use_cache=False`` scores again and rewrites it)."""
    identity = {"scorer": scorer_identity(scorer), "data": _data_digest(root, studies),
                "studies": list(studies)}
    key = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()[:24]
    path = (cache_dir or _cache_dir()) / f"{key}.json"
    if use_cache and path.is_file():
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            values = [float(v) for v in saved["scores"] if v is not None]
            return PeopleScores(tuple(values), int(saved["people"]), tuple(studies), key, True)
        except (ValueError, KeyError, TypeError):
            pass  # a damaged cache file: score again
    people = read_people(root, studies)
    scored = [scorer.score_words(list(p.words)).score for p in people]
    rounded = [None if s is None else round(float(s), 6) for s in scored]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
        tmp.write_text(json.dumps({"identity": identity, "people": len(people), "scores": rounded}),
                       encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache: the values are still right, only slower next time
    return PeopleScores(tuple(v for v in rounded if v is not None), len(people), tuple(studies),
                        key, False)


def _not_comparable(scorer: DATScorer) -> str | None:
    if scorer.variant == "olson" and scorer.minimum > 10:
        return f"the people gave 10 words, fewer than --minimum {scorer.minimum}"
    if scorer.variant != "olson" and scorer.words != 10:
        return f"the people gave 10 words and the all-valid variant here needs {scorer.words}"
    return None


def fidelity_note(scorer: DATScorer) -> str:
    """How closely this scorer ranks people as the official scorer does, where measured."""
    vectors = scorer.resources.get("vectors") or {}
    model = str(vectors.get("model") or vectors.get("file") or "")
    dictionary = str(scorer.resources.get("dictionary", ""))
    for (vec, dic), rho in FIDELITY.items():
        if vec == model and (dic == dictionary or Path(dictionary).name == dic
                             or (dic == "default" and dictionary.startswith("english-words"))):
            return (f"Fidelity of this scorer: Spearman {rho:.3f} between its per-person scores "
                    "and the official GloVe 840B ones over the people of study 2 that both score "
                    "(bench/dat_embedder_fidelity.py).")
    return ("Fidelity of this scorer to the official GloVe 840B one was not measured; "
            "bench/dat_embedder_fidelity.py measures it.")


def trial_groups(scores: Scores) -> list[str] | None:
    """The trial of each valid value of ``dat_mean`` when the run has repeats (a trial's
    repeats are resampled together), else None (each trial alone).

    >>> s = Scores().with_extra(trials=[{"key": "trial-00000", "score": 70.0},
    ...     {"key": "trial-00000~r1", "score": 72.0}, {"key": "trial-00001", "score": None}])
    >>> trial_groups(s)
    ['trial-00000', 'trial-00000']
    """
    keys = [str(t.get("key", "")) for t in scores.extra("trials", []) if t.get("score") is not None]
    if not any("~r" in k for k in keys):
        return None
    return [k.split("~r", 1)[0] for k in keys]


def _interval_words(covers: str, trials: int) -> str:
    """How the percentile's interval was drawn, in the note's words."""
    if covers == "groups of trials and people":
        return ("95% interval over trials (each with its repeats taken as one) and people "
                "(creval.metrics.percentile).")
    return "95% interval over trials and people (creval.metrics.percentile)."


def place_among_people(scores: Scores, scorer: DATScorer, people: str | None) -> Scores:
    """``scores`` with ``human_percentile`` (and ``_low``/``_high``) among the people
    re-scored by ``scorer``, or a note saying why there is none and how to get it."""
    from creval.metrics.percentile import human_percentile

    if scorer.lang != "en":
        return scores  # the people answered in English: nothing to place a Japanese run among
    why = _not_comparable(scorer)
    model = [float(v) for v in scores.per_item.get("dat_mean", []) if v is not None]
    try:
        root = None if why else resolve_people_root(people)
        if why is None and root is None:
            why = f"the people's data (dat-humans) is not here. {HOW_TO_GET}"
        if why is None and not model:
            why = "the run has no valid trial"
        found = None if why is not None or root is None else people_scores(scorer, root)
    except CrevalError as exc:  # a wrong --people: said, and the run's own scores kept
        note = f"People's percentile: not computed: {exc}"
        return scores.model_copy(update={"notes": [*scores.notes, note],
                                         "warnings": [*scores.warnings, note]})
    if found is None or root is None:
        return scores.model_copy(update={"notes": [*scores.notes, f"People's percentile: not computed: {why}"]})
    if not found.scores:
        note = f"People's percentile: not computed: none of the {found.people} people has a valid list under this scorer."
        return scores.model_copy(update={"notes": [*scores.notes, note]})
    r = human_percentile(model, list(found.scores), groups=trial_groups(scores))
    mean = sum(found.scores) / len(found.scores)
    sd = math.sqrt(sum((v - mean) ** 2 for v in found.scores) / max(len(found.scores) - 1, 1))
    headline = {**scores.headline, "human_percentile": round(r.percentile, 2),
                "human_percentile_low": None if r.low is None else round(r.low, 2),
                "human_percentile_high": None if r.high is None else round(r.high, 2)}
    shown = (f"({r.reason})" if r.low is None or r.high is None
             else f"[{r.low:.1f}, {r.high:.1f}]")
    note = (f"People's percentile: the model's mean {r.mean:.2f} is above {r.percentile:.1f}% "
            f"{shown} of {len(found.scores):,} people (study 2 of Olson et al. "
            f"2021; {found.people - len(found.scores):,} of {found.people:,} without a valid list), "
            f"their words re-scored by the same scorer as the model (people's mean {mean:.2f}, sd {sd:.2f}); "
            f"{_interval_words(r.covers, r.n_model)} Not compared with the files' official scores "
            f"(other vectors). {fidelity_note(scorer)}")
    extra = {"source": SOURCE, "root": str(root), "studies": list(found.studies),
             "people": found.people, "scored": len(found.scores), "mean": round(mean, 4),
             "sd": round(sd, 4), "cache_key": found.key, "percentile_kind": "mean",
             "confidence": r.confidence, "interval_covers": r.covers}
    updated = scores.model_copy(update={"headline": headline, "notes": [*scores.notes, note]})
    return updated.with_extra(people=extra)
