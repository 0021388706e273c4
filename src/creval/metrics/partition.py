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

How many verdicts a comparison costs is chosen by ``lookup``; the classes never depend on it:

* ``both`` (default, the papers' code): both directions of every comparison are looked up,
  so the count does not depend on the order verdicts come back in.
* ``lazy``: one direction first (the one with the shorter premise, the likelier to fail);
  the other only when the first does not already rule equivalence out (strict: the first is
  not ``entailment``; lenient: it is ``contradiction``). Same classes, fewer calls: a
  comparison between different meanings usually costs one call instead of two.

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
>>> partition(["a1", "b1", "a2", "c1", "b2"], same, lookup="lazy").entailment_calls
8
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["LOOKUPS", "MODES", "Partition", "equivalent", "partition", "partition_steps"]

Mode = Literal["strict", "lenient"]
MODES: tuple[str, ...] = ("strict", "lenient")
Lookup = Literal["both", "lazy"]
LOOKUPS: tuple[str, ...] = ("both", "lazy")
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
    * ``lookup``: ``both`` or ``lazy`` (how many directions a comparison asked; see the
      module docstring); it changes ``entailment_calls``, never ``class_ids``.
    """

    class_ids: tuple[int, ...]
    entailment_calls: int
    mode: str
    lookup: str = "both"

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


def check_lookup(lookup: str) -> Lookup:
    if lookup not in LOOKUPS:
        raise ValueError(f"lookup must be 'both' or 'lazy', got {lookup!r}.")
    return lookup  # type: ignore[return-value]


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not one string.")
    texts = list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"texts[{i}] must be a string, got {type(t).__name__}.")
    return texts


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
        _check_label(label)
    if mode == "strict":
        return forward == backward == "entailment"
    return "contradiction" not in (forward, backward) and not forward == backward == "neutral"


def _verdict_function(implies: Implies) -> Callable[[str, str], str]:
    """``implies`` as a function; a mapping that lacks a pair raises a clear error."""
    if isinstance(implies, Mapping):
        relation = implies

        def from_mapping(a: str, b: str) -> str:
            if (a, b) not in relation:
                raise ValueError(
                    f"The entailment relation has no verdict for premise {a!r} and "
                    f"hypothesis {b!r}; it must cover every pair the greedy algorithm compares."
                )
            return relation[(a, b)]

        return from_mapping
    if callable(implies):
        return implies
    raise TypeError(
        "implies must be a callable implies(premise, hypothesis) -> label or a mapping "
        f"{{(premise, hypothesis): label}}, got {type(implies).__name__}."
    )


def _decided(first: str, mode: Mode) -> bool:
    """Whether the first directed verdict alone already rules equivalence out."""
    return first != "entailment" if mode == "strict" else first == "contradiction"


def _check_label(label: str) -> str:
    if label not in _LABELS:
        raise ValueError(f"An entailment verdict must be one of {', '.join(_LABELS)}, got {label!r}.")
    return label


def _directions(rep: str, text: str, lookup: Lookup) -> tuple[tuple[str, str], tuple[str, str]]:
    """The two ordered pairs of a comparison, the one to ask first first.

    ``both`` keeps the papers' order (representative as premise first). ``lazy`` asks first
    the direction with the shorter premise: a shorter text entails a longer one less often
    (the longer one usually says more), so that direction is the likelier to fail and end
    the comparison after one call. The order changes only how many calls are made, never
    the verdicts or the classes.
    """
    forward, backward = (rep, text), (text, rep)
    if lookup == "lazy" and len(text) < len(rep):
        return backward, forward
    return forward, backward


def _joins(directions: tuple[tuple[str, str], tuple[str, str]],
           relation: Mapping[tuple[str, str], str], mode: Mode, lookup: Lookup) -> bool:  # fmt: skip
    first, second = directions
    if lookup == "lazy" and _decided(relation[first], mode):
        return False  # the second direction was never asked
    return equivalent(relation[first], relation[second], mode=mode)


def partition_steps(
    texts: Sequence[str], *, mode: str = "strict", lookup: str = "both"
) -> Generator[list[tuple[str, str]], Mapping[tuple[str, str], str], Partition]:
    """The greedy partition as batches of entailment questions (for batched, async backends).

    A generator: it yields a list of ordered ``(premise, hypothesis)`` pairs, expects their
    verdicts back via ``send({pair: label})``, and returns the :class:`Partition` (as
    ``StopIteration.value``). Class by class, the first unassigned sample becomes the next
    representative and every later unassigned sample is compared with it, which needs the
    same comparisons as visiting the samples in order. With ``lookup="both"`` each
    representative costs one batch (both directions of every pair); with ``"lazy"`` two (the
    first direction of every pair, then the second direction of the pairs it did not rule
    out). No pair is asked twice; identical texts need no question.

    >>> same = lambda a, b: "entailment" if a[0] == b[0] else "neutral"
    >>> steps = partition_steps(["a1", "b1", "a2"], lookup="lazy")
    >>> pairs = next(steps)
    >>> pairs
    [('a1', 'b1'), ('a1', 'a2')]
    >>> pairs = steps.send({p: same(*p) for p in pairs})
    >>> pairs
    [('a2', 'a1')]
    >>> try:
    ...     steps.send({p: same(*p) for p in pairs})
    ... except StopIteration as done:
    ...     done.value
    Partition(class_ids=(0, 1, 0), entailment_calls=3, mode='strict', lookup='lazy')
    """
    mode = check_mode(mode)
    lookup = check_lookup(lookup)
    texts = _check_texts(texts)
    relation: dict[tuple[str, str], str] = {}

    def ask(pairs: list[tuple[str, str]]) -> Generator[list[tuple[str, str]], Any, None]:
        todo = [p for p in dict.fromkeys(pairs) if p not in relation]
        if todo:
            answers = yield todo
            for pair in todo:
                if pair not in answers:
                    raise ValueError(f"No verdict was sent for the pair {pair!r}.")
                relation[pair] = _check_label(answers[pair])

    class_ids: list[int] = [-1] * len(texts)
    unassigned, n_classes = list(range(len(texts))), 0
    while unassigned:
        rep, rest = texts[unassigned[0]], unassigned[1:]
        class_ids[unassigned[0]] = n_classes
        order = {j: _directions(rep, texts[j], lookup) for j in rest if texts[j] != rep}
        if lookup == "both":
            yield from ask([pair for first_second in order.values() for pair in first_second])
        else:
            yield from ask([first for first, _ in order.values()])
            yield from ask([second for first, second in order.values()
                            if not _decided(relation[first], mode)])  # fmt: skip
        for j in rest:
            if j not in order or _joins(order[j], relation, mode, lookup):
                class_ids[j] = n_classes
        unassigned = [j for j in rest if class_ids[j] < 0]
        n_classes += 1
    ids = tuple(class_ids)
    return Partition(class_ids=ids, entailment_calls=len(relation), mode=mode, lookup=lookup)


def partition(
    texts: Sequence[str], implies: Implies, *, mode: str = "strict", lookup: str = "both"
) -> Partition:
    """Cluster ``texts`` greedily by bidirectional entailment (see the module docstring).

    Parameters
    ----------
    texts : the samples, in order (order matters: earlier samples become representatives).
    implies : ``implies(premise, hypothesis)`` returning ``"entailment"``, ``"neutral"`` or
        ``"contradiction"``, or a mapping from ``(premise, hypothesis)`` to such a label.
    mode : ``"strict"`` (default) or ``"lenient"``.
    lookup : ``"both"`` (default: both directions of every comparison, as the papers) or
        ``"lazy"`` (the second direction only when the first leaves the comparison open);
        the classes are the same, only ``entailment_calls`` differs.

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
    check_lookup(lookup)
    texts = _check_texts(texts)
    verdict = _verdict_function(implies)
    steps = partition_steps(texts, mode=mode, lookup=lookup)
    try:
        pairs = next(steps)
        while True:
            pairs = steps.send({pair: verdict(*pair) for pair in pairs})
    except StopIteration as done:
        result: Partition = done.value
        return result
