"""The :class:`Entailment` protocol, its result type and small pure helpers.

An entailment backend reads (premise, hypothesis) pairs and says, for each, whether the
premise entails the hypothesis, contradicts it, or neither (``neutral``). Backends work in
batches: :meth:`Entailment.classify` takes every pair at once so that a cross-encoder runs
them through the model together and an LLM backend sends them concurrently.

>>> canonical_label("ENTAILMENT")
'entailment'
>>> canonical_label("Not_Entailment")
'neutral'
>>> canonical_label("LABEL_0") is None
True
>>> NLIResult(label="neutral", approximate=True).label
'neutral'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from creval.errors import CrevalError

__all__ = [
    "LABELS",
    "Entailment",
    "Label",
    "NLIResult",
    "canonical_label",
    "check_pairs",
]

Label = Literal["entailment", "neutral", "contradiction"]
#: The three labels every backend answers with.
LABELS: tuple[Label, ...] = ("entailment", "neutral", "contradiction")

# Spellings of label names found in NLI model configs (compared after lower-casing and
# turning '-' and ' ' into '_'). Binary "not entailment" models say nothing about
# contradiction, so their negative class counts as neutral.
_ALIASES: dict[str, Label] = {
    "entailment": "entailment",
    "entails": "entailment",
    "entailed": "entailment",
    "neutral": "neutral",
    "contradiction": "contradiction",
    "contradicts": "contradiction",
    "contradictory": "contradiction",
    "not_entailment": "neutral",
    "non_entailment": "neutral",
    "no_entailment": "neutral",
}


class NLIResult(BaseModel):
    """One pair's verdict.

    * ``label``: ``entailment``, ``neutral`` or ``contradiction``.
    * ``probabilities``: the backend's probability for each label, when it has them.
    * ``approximate``: True when the backend is not an entailment model at all (the
      embedding-similarity fallback), so the label only approximates entailment.
    * ``failure``: why the backend could not give a verdict (an LLM answer that did not
      parse); the label is then ``neutral`` and ``raw`` holds what the backend said.
    * ``score``: the backend's raw score when it has one (the cosine similarity of the
      embedding fallback).
    """

    model_config = ConfigDict(frozen=True)
    label: Label
    probabilities: dict[str, float] | None = None
    approximate: bool = False
    failure: str | None = None
    raw: str | None = None
    score: float | None = None

    @property
    def failed(self) -> bool:
        """True when the label is a stand-in because the backend gave no usable verdict."""
        return self.failure is not None


@runtime_checkable
class Entailment(Protocol):
    """A batched entailment classifier. ``spec`` is the string it was built from."""

    spec: str

    def identity(self) -> dict[str, Any]:
        """What makes this backend's verdicts its own (for manifests and caches)."""
        ...

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        """One result per ``(premise, hypothesis)`` pair, in order."""
        ...


def canonical_label(name: str) -> Label | None:
    """The canonical label for a model's label name, or None when it says nothing usable.

    >>> [canonical_label(n) for n in ("entailment", "Neutral", "CONTRADICTION", "not-entailment")]
    ['entailment', 'neutral', 'contradiction', 'neutral']
    >>> canonical_label("positive") is None
    True
    """
    key = re.sub(r"[\s\-]+", "_", str(name).strip().lower())
    return _ALIASES.get(key)


def check_pairs(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Validate ``pairs`` (a sequence of ``(premise, hypothesis)`` string pairs) as a list.

    >>> check_pairs([("a", "b")])
    [('a', 'b')]
    >>> check_pairs([("a",)])
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: Entailment pair 0 must be a (premise, hypothesis) pair of strings, got ('a',).
    """
    if isinstance(pairs, (str, bytes)):
        raise CrevalError("classify() takes a list of (premise, hypothesis) pairs, not a string.")
    out: list[tuple[str, str]] = []
    for i, pair in enumerate(pairs):
        if (
            not isinstance(pair, (tuple, list))
            or len(pair) != 2
            or not all(isinstance(t, str) for t in pair)
        ):
            raise CrevalError(
                f"Entailment pair {i} must be a (premise, hypothesis) pair of strings, got {pair!r}."
            )
        out.append((pair[0], pair[1]))
    return out
