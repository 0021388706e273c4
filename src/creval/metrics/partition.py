"""Greedy clustering of texts into meaning classes by bidirectional entailment.

This is the clustering of semantic entropy (Kuhn et al. 2023; Farquhar et al. 2024; the
step-wise creativity paper, Appendix C.3.3). Samples are visited in order; each is compared
with the *representative* (first member) of each existing class, in order of creation, and
joins the first class whose representative it is equivalent to; otherwise it founds a new
class. Two texts ``a`` and ``b`` are equivalent when the two directed verdicts
``implies(a, b)`` and ``implies(b, a)`` satisfy the mode:

* ``strict``: both are ``entailment``;
* ``lenient``: neither is ``contradiction`` and they are not both ``neutral``
  (Farquhar et al.'s non-strict setting).

Both directions are always looked up (no short-cut after a failed first direction), as in the
papers, so the number of verdicts needed does not depend on the order they come back in.
Identical texts are equivalent without a lookup. Each ordered pair is looked up at most once.

The verdicts come from ``implies``: a sync callable ``implies(premise, hypothesis) -> label``
or a mapping ``{(premise, hypothesis): label}`` computed beforehand (the async driver
:func:`creval.nli.partition_texts` fills one in batches and then calls this function).

>>> same = lambda a, b: "entailment" if a[0] == b[0] else "neutral"
>>> p = partition(["a1", "b1", "a2", "c1", "b2"], same)
>>> p.class_ids
(0, 1, 0, 2, 1)
>>> p.sizes, p.entailment_calls
((2, 2, 1), 12)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["MODES", "Partition", "equivalent", "partition"]

Mode = Literal["strict", "lenient"]
MODES: tuple[str, ...] = ("strict", "lenient")
_LABELS = ("entailment", "neutral", "contradiction")

Implies = Callable[[str, str], str] | Mapping[tuple[str, str], str]


@dataclass(frozen=True)
class Partition:
    """The classes of a set of samples.

    * ``class_ids[i]``: the class of sample ``i``; classes are numbered 0, 1, ... in order of
      creation, so class ``c``'s representative is its lowest-index member.
    * ``entailment_calls``: how many ordered (premise, hypothesis) verdicts the greedy
      algorithm needed (what a cached entailment backend classifies).
    * ``mode``: ``strict`` or ``lenient``.
    """

    class_ids: tuple[int, ...]
    entailment_calls: int
    mode: str

    @property
    def n_classes(self) -> int:
        return max(self.class_ids) + 1 if self.class_ids else 0

    @property
    def sizes(self) -> tuple[int, ...]:
        """Number of samples in each class, by class id."""
        counts = [0] * self.n_classes
        for c in self.class_ids:
            counts[c] += 1
        return tuple(counts)

    @property
    def representatives(self) -> tuple[int, ...]:
        """Index of each class's first member, by class id."""
        first: dict[int, int] = {}
        for i, c in enumerate(self.class_ids):
            first.setdefault(c, i)
        return tuple(first[c] for c in range(self.n_classes))

    def members(self, class_id: int) -> tuple[int, ...]:
        """Indices of the samples in class ``class_id``."""
        return tuple(i for i, c in enumerate(self.class_ids) if c == class_id)


def check_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise ValueError(f"mode must be 'strict' or 'lenient', got {mode!r}.")
    return mode  # type: ignore[return-value]


def equivalent(forward: str, backward: str, *, mode: str = "strict") -> bool:
    """Whether two directed verdicts make a pair equivalent under ``mode``.

    >>> equivalent("entailment", "neutral", mode="strict")
    False
    >>> equivalent("entailment", "neutral", mode="lenient")
    True
    >>> equivalent("neutral", "neutral", mode="lenient")
    False
    >>> equivalent("entailment", "contradiction", mode="lenient")
    False
    """
    check_mode(mode)
    for label in (forward, backward):
        if label not in _LABELS:
            raise ValueError(
                f"An entailment verdict must be one of {', '.join(_LABELS)}, got {label!r}."
            )
    if mode == "strict":
        return forward == backward == "entailment"
    return "contradiction" not in (forward, backward) and not forward == backward == "neutral"


def _lookup(implies: Implies) -> tuple[Callable[[str, str], str], dict[tuple[str, str], str]]:
    """A memoised verdict function over ``implies`` and the memo it fills."""
    memo: dict[tuple[str, str], str] = {}
    get: Callable[[str, str], str]

    if isinstance(implies, Mapping):
        relation = implies

        def from_mapping(a: str, b: str) -> str:
            if (a, b) not in relation:
                raise ValueError(
                    f"The entailment relation has no verdict for premise {a!r} and "
                    f"hypothesis {b!r}; it must cover every pair the greedy algorithm compares."
                )
            return relation[(a, b)]

        get = from_mapping
    elif callable(implies):
        get = implies
    else:
        raise TypeError(
            "implies must be a callable implies(premise, hypothesis) -> label or a mapping "
            f"{{(premise, hypothesis): label}}, got {type(implies).__name__}."
        )

    def verdict(a: str, b: str) -> str:
        if (a, b) not in memo:
            memo[(a, b)] = get(a, b)
        return memo[(a, b)]

    return verdict, memo


def partition(texts: Sequence[str], implies: Implies, *, mode: str = "strict") -> Partition:
    """Cluster ``texts`` greedily by bidirectional entailment (see the module docstring).

    Parameters
    ----------
    texts : the samples, in order (order matters: earlier samples become representatives).
    implies : ``implies(premise, hypothesis)`` returning ``"entailment"``, ``"neutral"`` or
        ``"contradiction"``, or a mapping from ``(premise, hypothesis)`` to such a label.
    mode : ``"strict"`` (default) or ``"lenient"``.

    Examples
    --------
    In lenient mode, one-way entailment with a neutral reverse is enough:

    >>> verdicts = {("x", "y"): "entailment", ("y", "x"): "neutral",
    ...             ("x", "z"): "neutral", ("z", "x"): "neutral"}
    >>> partition(["x", "y", "z"], verdicts, mode="lenient").class_ids
    (0, 0, 1)
    >>> partition(["x", "y", "z"], verdicts, mode="strict").class_ids
    Traceback (most recent call last):
    ...
    ValueError: The entailment relation has no verdict for premise 'y' and hypothesis 'z'; it must cover every pair the greedy algorithm compares.
    >>> partition([], verdicts).n_classes
    0
    """
    check_mode(mode)
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not one string.")
    texts = list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"texts[{i}] must be a string, got {type(t).__name__}.")
    verdict, memo = _lookup(implies)
    representatives: list[str] = []
    class_ids: list[int] = []
    for text in texts:
        for c, rep in enumerate(representatives):
            if text == rep or equivalent(verdict(rep, text), verdict(text, rep), mode=mode):
                class_ids.append(c)
                break
        else:
            class_ids.append(len(representatives))
            representatives.append(text)
    return Partition(class_ids=tuple(class_ids), entailment_calls=len(memo), mode=mode)
