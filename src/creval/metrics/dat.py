"""Divergent Association Task (DAT) scoring: Olson et al. (2021) and the all-valid variant.

Two variants, both pure functions over words and vectors (no files, no models):

* :func:`dat_olson` follows the published scorer (``dat.py`` in
  jayolson/divergent-association-task): each answer is cleaned and matched against a
  vocabulary (:func:`olson_validate`), invalid words are skipped, repeats are dropped after
  validation, the first ``minimum`` (7) distinct valid words are scored and the score is the
  mean pairwise cosine distance x 100. Fewer than ``minimum`` valid words: no score.
* :func:`dat_all_valid` follows the Japanese paper (Fukuda et al. 2025): the answer must be
  exactly ``expected`` (10) valid, distinct words, otherwise the response is invalid (excluded
  from the mean and counted); the score is the mean pairwise cosine distance, not scaled.

A :class:`DATResult` records the words used, those rejected and why, and why there is no
score; :func:`summarize_dat` aggregates many trials.

>>> import numpy as np
>>> vocab = {"cat", "dog", "tree"}
>>> vecs = {"cat": [1.0, 0.0, 0.0], "dog": [0.0, 1.0, 0.0], "tree": [0.0, 0.0, 1.0]}
>>> r = dat_olson(["Cat", "dog!", "cat", "x", "tree"], vocabulary=vocab, vectors=vecs, minimum=3)
>>> r.used, r.duplicates, [tuple(i) for i in r.invalid], r.score
(('cat', 'dog', 'tree'), ('cat',), [('x', 'too short')], 100.0)
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Container, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple, TypedDict

import numpy as np
from numpy.typing import ArrayLike

from creval.metrics.distance import mean_pairwise_cosine_distance

__all__ = [
    "DATResult", "DATSummary", "InvalidWord", "dat_all_valid", "dat_olson",
    "olson_candidates", "olson_clean", "olson_validate", "summarize_dat",
]  # fmt: skip

VARIANT_OLSON = "olson"
VARIANT_ALL_VALID = "all-valid"

# Why one word was rejected (Olson variant).
TOO_SHORT = "too short"
NOT_IN_VOCABULARY = "not in vocabulary"
NO_VECTOR = "no vector"
PLACEHOLDER = "placeholder from the prompt"

# Why a whole response has no score.
TOO_FEW_VALID = "too few valid words"
WRONG_COUNT = "wrong number of words"
INVALID_WORDS = "invalid words"
DUPLICATE_WORDS = "duplicate words"

_OLSON_STRIP = re.compile(r"[^a-zA-Z\- ]+")

Vectors = Callable[[Sequence[str]], ArrayLike] | Mapping[str, ArrayLike]


class InvalidWord(NamedTuple):
    """A rejected answer word and the reason."""

    word: str
    reason: str


@dataclass(frozen=True)
class DATResult:
    """The outcome of scoring one DAT response.

    ``words`` are the answers as given; ``valid`` the distinct valid ones in order (Olson:
    in their validated form); ``used`` those scored (empty without a score); ``invalid`` the
    rejected ones with reasons; ``duplicates`` one entry per repeat of a valid word.
    ``reason`` says why there is no score (a few fixed phrases, good for counting) and
    ``detail`` explains it.
    """

    variant: str
    words: tuple[str, ...]
    valid: tuple[str, ...]
    used: tuple[str, ...]
    invalid: tuple[InvalidWord, ...]
    duplicates: tuple[str, ...]
    score: float | None
    reason: str | None = None
    detail: str | None = None

    @property
    def scored(self) -> bool:
        """True when the response has a score."""
        return self.score is not None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (invalid words as ``{"word", "reason"}`` objects)."""
        data = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        data["invalid"] = [i._asdict() for i in self.invalid]
        return data


def olson_clean(word: str) -> str:
    """Olson's cleaning: drop every character but ASCII letters, hyphen and space; trim; lower.

    >>> olson_clean("  Violin. ")
    'violin'
    >>> olson_clean("naïve")  # the accented letter is dropped, not transliterated
    'nave'
    """
    if not isinstance(word, str):
        raise ValueError(f"A DAT word must be a string, got {type(word).__name__}: {word!r}.")
    return _OLSON_STRIP.sub("", word).strip().lower()


def olson_candidates(word: str) -> list[str]:
    """The spellings Olson's scorer tries, in order; empty if the cleaned word is too short.

    With a space: runs of spaces become one hyphen, then are removed. Without one: the word,
    then (if it has hyphens) the word with hyphens removed.

    >>> olson_candidates("cul de sac")
    ['cul-de-sac', 'culdesac']
    >>> olson_candidates("top-hat")
    ['top-hat', 'tophat']
    >>> olson_candidates("3D")  # cleans to 'd': one letter is too short
    []
    """
    clean = olson_clean(word)
    if len(clean) <= 1:
        return []
    if " " in clean:
        return [re.sub(r" +", "-", clean), re.sub(r" +", "", clean)]
    if "-" in clean:
        return [clean, re.sub(r"-+", "", clean)]
    return [clean]


def olson_validate(word: str, vocabulary: Container[str]) -> str | None:
    """The first of :func:`olson_candidates` that is in ``vocabulary``, else None.

    In Olson's scorer the vocabulary is the dictionary words that also have a GloVe vector.

    >>> olson_validate("Cul de sac", {"cul-de-sac"})
    'cul-de-sac'
    >>> olson_validate("e-mail", {"email"})
    'email'
    >>> olson_validate("hot dog", {"hot", "dog"}) is None
    True
    """
    for candidate in olson_candidates(word):
        if candidate in vocabulary:
            return candidate
    return None


def _check_words(words: Sequence[str]) -> tuple[str, ...]:
    if isinstance(words, str):
        raise ValueError(
            f"words must be a list of words, not one string: use parse_word_list({words!r}) "
            "or wrap it in a list."
        )
    out = tuple(words)
    for i, w in enumerate(out):
        if not isinstance(w, str):
            raise ValueError(f"words must be strings; item {i} is a {type(w).__name__}: {w!r}.")
    return out


def _check_options(count: int, *, name: str, scale: float) -> None:
    if isinstance(count, bool) or not isinstance(count, int) or count < 2:
        raise ValueError(f"{name} must be an integer of at least 2 (a pair), got {count!r}.")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < math.inf:
        raise ValueError(f"scale must be a positive finite number, got {scale!r}.")


def _common(
    variant: str,
    words: tuple[str, ...],
    valid: list[str],
    invalid: list[InvalidWord],
    dups: list[str],
) -> dict[str, Any]:
    """The DATResult fields shared by the scored and the unscored outcome."""
    return {
        "variant": variant,
        "words": words,
        "valid": tuple(valid),
        "invalid": tuple(invalid),
        "duplicates": tuple(dups),
    }


def _matrix(words: Sequence[str], vectors: Vectors) -> np.ndarray:
    """Stack the vectors of ``words``: ``(len(words), d)``."""
    if isinstance(vectors, Mapping):
        rows = [np.asarray(vectors[w], dtype=np.float64).ravel() for w in words]
        sizes = {r.size for r in rows}
        if len(sizes) > 1:
            raise ValueError(f"The word vectors have different lengths: {sorted(sizes)}.")
        return np.stack(rows)
    arr = np.asarray(vectors(list(words)), dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != len(words):
        raise ValueError(
            f"The vector function must return one row per word, shape ({len(words)}, d); "
            f"it returned shape {arr.shape}."
        )
    return arr


def dat_olson(
    words: Sequence[str],
    *,
    vocabulary: Container[str],
    vectors: Vectors,
    minimum: int = 7,
    scale: float = 100.0,
    placeholders: Collection[str] = (),
) -> DATResult:
    """DAT score as in Olson et al. (2021): mean pairwise cosine distance of 7 words x 100.

    Parameters
    ----------
    words : the answers, in order (typically 10).
    vocabulary : the valid words (Olson: ``words.txt`` entries matching
        ``^[a-z][a-z-]*[a-z]$``; see :mod:`creval.benchmarks.dat.dictionary`).
    vectors : a mapping word -> vector, or a function ``words -> (n, d) array``. With a
        mapping, a word must also be a key to be valid (Olson's vocabulary is the dictionary
        joined with GloVe). A function is only called for the words scored, so the
        vocabulary must then hold only words it can embed.
    minimum : how many distinct valid words are scored (default 7); fewer: no score.
    scale : multiplier of the mean distance (Olson: 100, so scores lie in 0..200).
    placeholders : words of the prompt's answer format (``noun`` in ``1. noun``); an answer
        that is one of them (after cleaning) copied the template and is invalid.

    Examples
    --------
    Two words with orthogonal vectors have cosine distance 1; three words at the corners of
    a right angle, ``a=(1,0)``, ``b=(0,1)``, ``c=(1,1)``, have distances 1, 0.2929 and 0.2929,
    mean 0.5286, score 52.86:

    >>> v = {"sun": [1, 0], "ink": [0, 1], "fog": [1, 1]}
    >>> dat_olson(["sun", "ink"], vocabulary=v, vectors=v, minimum=2).score
    100.0
    >>> round(dat_olson(["sun", "ink", "fog"], vocabulary=v, vectors=v, minimum=3).score, 2)
    52.86
    >>> r = dat_olson(["sun", "sun", "moon"], vocabulary=v, vectors=v, minimum=2)
    >>> r.score, r.reason, r.detail
    (None, 'too few valid words', '1 distinct valid word(s); 2 needed')
    >>> v["noun"] = [0, 2]
    >>> [tuple(i) for i in dat_olson(["noun", "sun"], vocabulary=v, vectors=v, minimum=2,
    ...                              placeholders={"noun"}).invalid]
    [('noun', 'placeholder from the prompt')]
    """
    given = _check_words(words)
    _check_options(minimum, name="minimum", scale=scale)
    mapping = vectors if isinstance(vectors, Mapping) else None
    if mapping is None and not callable(vectors):
        raise ValueError("vectors must be a mapping word -> vector or a function words -> array.")
    valid: list[str] = []
    invalid: list[InvalidWord] = []
    duplicates: list[str] = []
    for word in given:
        candidates = olson_candidates(word)
        if olson_clean(word) in placeholders:
            invalid.append(InvalidWord(word, PLACEHOLDER))
            continue
        if not candidates:
            invalid.append(InvalidWord(word, TOO_SHORT))
            continue
        known = [c for c in candidates if c in vocabulary]
        hit = next((c for c in known if mapping is None or c in mapping), None)
        if hit is None:
            invalid.append(InvalidWord(word, NO_VECTOR if known else NOT_IN_VOCABULARY))
        elif hit in valid:
            duplicates.append(hit)
        else:
            valid.append(hit)
    common = _common(VARIANT_OLSON, given, valid, invalid, duplicates)
    if len(valid) < minimum:
        detail = f"{len(valid)} distinct valid word(s); {minimum} needed"
        return DATResult(**common, used=(), score=None, reason=TOO_FEW_VALID, detail=detail)
    used = tuple(valid[:minimum])
    score = mean_pairwise_cosine_distance(_matrix(used, vectors)) * scale
    return DATResult(**common, used=used, score=score)


def _dedup_key(word: str) -> str:
    return unicodedata.normalize("NFKC", word).strip().casefold()


def dat_all_valid(
    words: Sequence[str],
    *,
    is_valid: Callable[[str], str | None],
    embed: Callable[[Sequence[str]], ArrayLike],
    expected: int = 10,
    scale: float = 1.0,
) -> DATResult:
    """DAT score as in the Japanese paper: all ``expected`` words valid and distinct, else invalid.

    Parameters
    ----------
    words : the parsed answer (see :func:`creval.benchmarks.dat.lists.parse_word_list`).
    is_valid : a function word -> None to accept it, or a string saying why not (for example
        :class:`creval.benchmarks.dat.ja.JapaneseNounChecker`).
    embed : a function words -> ``(n, d)`` array, called once and only for a valid response.
    expected : the required number of words (default 10).
    scale : multiplier of the mean pairwise cosine distance (the paper: 1, unscaled).

    Notes
    -----
    Repeats are compared after NFKC normalisation and case folding. A response is rejected
    for the first problem in this order: wrong number of words, invalid words, duplicates.

    Examples
    --------
    Orthogonal vectors: every pair at distance 1, so the score is 1.

    >>> import numpy as np
    >>> ok = lambda w: None if w.isalpha() else "not a word"
    >>> emb = lambda ws: np.eye(len(ws))
    >>> dat_all_valid(["傘", "砂糖", "地図"], is_valid=ok, embed=emb, expected=3).score
    1.0
    >>> r = dat_all_valid(["傘", "砂糖", "、"], is_valid=ok, embed=emb, expected=3)
    >>> r.score, r.reason, [tuple(i) for i in r.invalid]
    (None, 'invalid words', [('、', 'not a word')])
    """
    given = _check_words(words)
    _check_options(expected, name="expected", scale=scale)
    invalid: list[InvalidWord] = []
    valid: list[str] = []
    duplicates: list[str] = []
    seen: set[str] = set()
    for word in given:
        why = is_valid(word)
        if why is not None and not isinstance(why, str):
            raise ValueError(
                "is_valid must return None for a valid word or a string saying why it is "
                f"invalid; it returned {why!r} for {word!r}."
            )
        if why is not None:
            invalid.append(InvalidWord(word, why))
        elif _dedup_key(word) in seen:
            duplicates.append(word)
        else:
            seen.add(_dedup_key(word))
            valid.append(word)
    common = _common(VARIANT_ALL_VALID, given, valid, invalid, duplicates)
    problems = [
        (len(given) != expected, WRONG_COUNT, f"expected {expected} words, got {len(given)}"),
        (bool(invalid), INVALID_WORDS, "; ".join(f"{i.word!r}: {i.reason}" for i in invalid)),
        (bool(duplicates), DUPLICATE_WORDS, "repeated: " + ", ".join(duplicates)),
    ]
    for failed, reason, detail in problems:
        if failed:
            return DATResult(**common, used=(), score=None, reason=reason, detail=detail)
    score = mean_pairwise_cosine_distance(_matrix(given, embed)) * scale
    return DATResult(**common, used=given, score=score)


class DATSummary(TypedDict):
    """Aggregate of many DAT trials (see :func:`summarize_dat`)."""

    variant: str | None
    n: int
    n_valid: int
    n_invalid: int
    mean: float | None
    std: float | None
    n_unique_words: int
    invalid_reasons: dict[str, int]
    invalid_word_reasons: dict[str, int]


def summarize_dat(results: Iterable[DATResult]) -> DATSummary:
    """Mean and sample standard deviation of the scored trials, and counts of the rest.

    Invalid responses are excluded from the mean and counted by reason, as in the Japanese
    paper. ``std`` uses ``ddof=1`` and is None for fewer than 2 scored trials; ``mean`` is
    None when nothing was scored. ``n_unique_words`` counts distinct words used across the
    scored trials.

    Examples
    --------
    Scores 0.5 and 0.7: mean 0.6, sample variance ``(0.01 + 0.01) / 1``, std ``0.1414``.

    >>> def trial(score, words=("a", "b")):
    ...     reason = None if score is not None else "invalid words"
    ...     used = words if score is not None else ()
    ...     return DATResult("all-valid", words, words, used, (), (), score, reason)
    >>> s = summarize_dat([trial(0.5), trial(0.7, ("a", "c")), trial(None)])
    >>> round(s["mean"], 4), round(s["std"], 4), s["n_valid"], s["n_invalid"]
    (0.6, 0.1414, 2, 1)
    >>> s["invalid_reasons"], s["n_unique_words"]
    ({'invalid words': 1}, 3)
    """
    items = list(results)
    for i, r in enumerate(items):
        if not isinstance(r, DATResult):
            raise ValueError(
                f"results must be DATResult objects; item {i} is a {type(r).__name__}."
            )
    variants = sorted({r.variant for r in items})
    if len(variants) > 1:
        raise ValueError(f"Cannot summarise a mix of DAT variants: {', '.join(variants)}.")
    scores = np.array([r.score for r in items if r.score is not None], dtype=np.float64)
    reasons = Counter(r.reason or "unknown" for r in items if r.score is None)
    word_reasons = Counter(i.reason for r in items for i in r.invalid)
    unique = {w for r in items if r.score is not None for w in r.used}
    return DATSummary(
        variant=variants[0] if variants else None,
        n=len(items),
        n_valid=int(scores.size),
        n_invalid=len(items) - int(scores.size),
        mean=float(scores.mean()) if scores.size else None,
        std=float(scores.std(ddof=1)) if scores.size >= 2 else None,
        n_unique_words=len(unique),
        invalid_reasons=dict(reasons.most_common()),
        invalid_word_reasons=dict(word_reasons.most_common()),
    )
