"""How much of a measure's spread is the items, the model's sampling and the judge.

A run with repeats holds, for each item ``i``, several samples ``j`` of the model's answer,
and, for judged measures, several judgements ``k`` of some samples. The nested random-effects
model (Searle, Casella and McCulloch 1992, *Variance Components*, ch. 4-5)::

    y_ijk = mu + a_i + b_ij + e_ijk,   a ~ N(0, s2_items), b ~ N(0, s2_samples), e ~ N(0, s2_judge)

splits the variance of one value into ``items`` (which item it is), ``samples`` (which answer
the model drew for it) and ``judge`` (which verdict the judge gave that answer).
:func:`variance_components` estimates the three with the ANOVA (method-of-moments) estimator
for unbalanced nested designs: the sums of squares between items, between samples within
items and between judgements within samples, set equal to their expectations (the
coefficients below). On balanced data with positive estimates it equals REML, which is what
``statsmodels`` ``MixedLM`` fits (the tests hold it against that). A negative estimate is set
to 0, as is usual; the note says so.

A level that the design does not repeat cannot be told apart from the one above it: with
one value per sample (no judge, or a judge asked once) the ``judge`` component is None and
``samples`` holds the judge's noise too; with one sample per item, ``samples`` is None.

``reliability`` is the intraclass correlation ICC(1): the share of the items, which is the
correlation between two independent draws (new sample, new verdict) of the same item, the
test-retest reliability of one draw. :func:`retest_reliability` is the same idea for people tested
twice. :func:`noise_floor` is the smallest difference between two runs over the same items
that sampling and judging alone would not produce at the given confidence.

>>> split = variance_components([1.0, 2.0, 4.0, 5.0, 9.0, 11.0],
...                             items=["a", "a", "b", "b", "c", "c"])
>>> round(split.items, 4), round(split.samples, 4), split.judge   # (MSA 37.1667 - MSW 1) / 2
(18.0833, 1.0, None)
>>> round(split.reliability, 4)                                     # 18.0833 / 19.0833
0.9476
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "RetestResult", "VarianceSplit", "bootstrap_split", "noise_floor", "retest_reliability",
    "variance_components",
]


@dataclass(frozen=True)
class VarianceSplit:
    """Estimated variance components of one measure (in its squared units).

    ``samples`` is None when no item has two samples; ``judge`` is None when no sample has two
    values (the level above then holds that noise too). ``truncated`` names components whose
    estimate was negative and set to 0.
    """

    items: float
    samples: float | None
    judge: float | None
    n_items: int
    n_samples: int
    n_values: int
    truncated: tuple[str, ...] = ()

    @property
    def total(self) -> float:
        """The variance of one value: the sum of the components."""
        return self.items + (self.samples or 0.0) + (self.judge or 0.0)

    def shares(self) -> dict[str, float | None]:
        """Each component over the total (None where the level was not repeated; all None
        when the total is 0)."""
        total = self.total
        parts = {"items": self.items, "samples": self.samples, "judge": self.judge}
        if total <= 0:
            return {name: None for name in parts}
        return {name: None if v is None else v / total for name, v in parts.items()}

    @property
    def reliability(self) -> float | None:
        """ICC(1): items / total, the test-retest correlation of one draw; None if total is 0."""
        total = self.total
        return None if total <= 0 else self.items / total

    @property
    def noise(self) -> float:
        """The variance of one draw of an item around that item's mean: samples + judge."""
        return (self.samples or 0.0) + (self.judge or 0.0)


def _labels(values: Sequence[object], name: str, n: int) -> list[Hashable]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{name} must be a sequence of labels, got {type(values).__name__}.")
    if len(values) != n:
        raise ValueError(f"{name} has {len(values)} labels for {n} values; give one per value.")
    for i, v in enumerate(values):
        if not isinstance(v, Hashable):
            raise ValueError(f"{name}[{i}] must be a hashable label, got {type(v).__name__}.")
    return list(values)


def _values(values: Sequence[float]) -> np.ndarray:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"values must be a sequence of numbers, got {type(values).__name__}.")
    out = np.empty(len(values), dtype=float)
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ValueError(f"values[{i}] must be a number, got {v!r}.")
        if not math.isfinite(float(v)):
            raise ValueError(f"values[{i}] is {v}: drop missing values before the split.")
        out[i] = float(v)
    return out


def _codes(labels: list[Hashable]) -> np.ndarray:
    index: dict[Hashable, int] = {}
    return np.array([index.setdefault(label, len(index)) for label in labels], dtype=int)


def variance_components(
    values: Sequence[float],
    *,
    items: Sequence[Hashable],
    samples: Sequence[Hashable] | None = None,
) -> VarianceSplit:
    """Split the variance of ``values`` into items, samples within items and judge within
    samples (ANOVA estimator for unbalanced nested designs; see the module docstring).

    ``items[v]`` labels the item of value ``v``; ``samples[v]`` its sample (a label that may
    repeat across items: it is read within its item). Without ``samples``, every value is its
    own sample (no judge level). Needs at least two items and one item with two values.

    >>> split = variance_components([1, 3, 2, 4, 10, 12, 11, 13],
    ...                             items=[0, 0, 0, 0, 1, 1, 1, 1], samples=[0, 0, 1, 1] * 2)
    >>> round(split.items, 4), round(split.samples, 4), round(split.judge, 4)
    (40.0, 0.0, 2.0)
    >>> split.truncated   # MSB 1 < MSE 2: the samples' estimate was negative
    ('samples',)
    """
    y = _values(values)
    n = len(y)
    item_codes = _codes(_labels(items, "items", n))
    sample_labels = list(range(n)) if samples is None else _labels(samples, "samples", n)
    sample_codes = _codes(list(zip(item_codes.tolist(), sample_labels, strict=True)))
    a, b = int(item_codes.max(initial=-1)) + 1, int(sample_codes.max(initial=-1)) + 1
    if a < 2:
        raise ValueError(f"items: the split needs at least two items, got {a}.")
    if b == a and n == b:
        raise ValueError("items: every item has one value; repeat at least one item "
                         "(several samples or judgements) to split its variance.")
    return _estimate(y, item_codes, sample_codes)


def _estimate(y: np.ndarray, item_codes: np.ndarray, sample_codes: np.ndarray) -> VarianceSplit:
    """The ANOVA estimates from codes 0..a-1 (items) and 0..b-1 (samples, unique per item)."""
    n = len(y)
    a, b = int(item_codes.max()) + 1, int(sample_codes.max()) + 1
    # per sample and per item: counts and sums
    n_ij = np.bincount(sample_codes, minlength=b).astype(float)
    item_of_sample = np.zeros(b, dtype=int)
    item_of_sample[sample_codes] = item_codes
    n_i = np.bincount(item_codes, minlength=a).astype(float)
    mean_ij = np.bincount(sample_codes, weights=y, minlength=b) / n_ij
    mean_i = np.bincount(item_codes, weights=y, minlength=a) / n_i
    grand = float(y.mean())
    ss_a = float(np.sum(n_i * (mean_i - grand) ** 2))
    ss_b = float(np.sum(n_ij * (mean_ij - mean_i[item_of_sample]) ** 2))
    ss_e = float(np.sum((y - mean_ij[sample_codes]) ** 2))
    df_a, df_b, df_e = a - 1, b - a, n - b
    # expected mean squares: E[MSE] = s2e; E[MSB] = s2e + (N - k1) / df_b * s2b;
    # E[MSA] = s2e + (k1 - k2) / df_a * s2b + (N - k3) / df_a * s2a, with
    # k1 = sum_i (sum_j n_ij^2) / n_i, k2 = sum_ij n_ij^2 / N, k3 = sum_i n_i^2 / N
    sq_i = np.bincount(item_of_sample, weights=n_ij**2, minlength=a)
    k1 = float(np.sum(sq_i / n_i))
    k2 = float(np.sum(n_ij**2)) / n
    k3 = float(np.sum(n_i**2)) / n
    truncated: list[str] = []

    def clip(name: str, value: float) -> float:
        if value < 0:
            truncated.append(name)
            return 0.0
        return value

    ms_a = ss_a / df_a
    if df_e > 0 and df_b > 0:  # three levels
        ms_e, ms_b = ss_e / df_e, ss_b / df_b
        judge: float | None = ms_e
        sample_var = clip("samples", (ms_b - ms_e) / ((n - k1) / df_b))
        item_var = clip("items", (ms_a - ms_e - (k1 - k2) / df_a * sample_var) / ((n - k3) / df_a))
        return VarianceSplit(item_var, sample_var, judge, a, b, n, tuple(truncated))
    # two levels: the repeated level is the residual (judge when one sample per item)
    ms_w = (ss_b + ss_e) / (df_b + df_e)
    item_var = clip("items", (ms_a - ms_w) / ((n - k3) / df_a))
    if df_b > 0:
        return VarianceSplit(item_var, ms_w, None, a, b, n, tuple(truncated))
    return VarianceSplit(item_var, None, ms_w, a, b, n, tuple(truncated))


def bootstrap_split(
    values: Sequence[float],
    *,
    items: Sequence[Hashable],
    samples: Sequence[Hashable] | None = None,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, tuple[float, float] | None]:
    """Percentile intervals of the shares and the reliability of :func:`variance_components`,
    from resampling the items with replacement (each drawn item keeps all its samples and
    judgements, the usual bootstrap of a nested design). A share that the design does not
    estimate is None; resamples whose items all have one value are skipped.

    >>> values = [1.0, 2.0, 4.0, 5.0, 9.0, 11.0, 3.0, 3.5]
    >>> ci = bootstrap_split(values, items=[0, 0, 1, 1, 2, 2, 3, 3], resamples=200)
    >>> ci["judge"] is None and 0.0 <= ci["reliability"][0] <= ci["reliability"][1] <= 1.0
    True
    """
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 10:
        raise ValueError(f"resamples must be an integer of at least 10, got {resamples!r}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}.")
    point = variance_components(values, items=items, samples=samples)  # validates
    y = _values(values)
    item_codes = _codes(list(items))
    sample_labels = list(range(len(y))) if samples is None else list(samples)
    sample_codes = _codes(list(zip(item_codes.tolist(), sample_labels, strict=True)))
    members = [np.flatnonzero(item_codes == i) for i in range(point.n_items)]
    rng = np.random.default_rng(seed)
    names = ("items", "samples", "judge", "reliability")
    draws: dict[str, list[float]] = {name: [] for name in names}
    sizes = np.array([len(m) for m in members])
    for _ in range(resamples):
        chosen = rng.integers(0, point.n_items, size=point.n_items)
        rows = np.concatenate([members[i] for i in chosen])
        new_items = np.repeat(np.arange(point.n_items), sizes[chosen])
        if len(rows) == point.n_items:
            continue  # every drawn item has one value: no split
        # a drawn item's samples are new samples: number them by (draw, sample)
        _, new_samples = np.unique(new_items * point.n_samples + sample_codes[rows],
                                   return_inverse=True)
        split = _estimate(y[rows], new_items, new_samples.ravel())
        shares = split.shares()
        if shares["items"] is None:
            continue
        shares["reliability"] = shares["items"]
        for name in names:
            share = shares[name]
            if share is not None:
                draws[name].append(float(share))
    tail = (1 - confidence) / 2 * 100
    point_shares = {**point.shares(), "reliability": point.reliability}
    return {name: None if point_shares[name] is None or not draws[name] else
            (float(np.percentile(draws[name], tail)), float(np.percentile(draws[name], 100 - tail)))
            for name in names}


def noise_floor(split: VarianceSplit, *, n_items: int, confidence: float = 0.95) -> float:
    """The smallest difference between the means of two runs over the same ``n_items`` items
    (one draw per item each) that sampling and judging noise alone would stay below with
    probability ``confidence``: ``z * sqrt(2 * (samples + judge) / n_items)``.

    >>> split = VarianceSplit(items=4.0, samples=1.5, judge=0.5, n_items=50, n_samples=100,
    ...                       n_values=150)
    >>> round(noise_floor(split, n_items=50), 4)   # 1.96 * sqrt(2 * 2 / 50)
    0.5544
    """
    from scipy.stats import norm

    if isinstance(n_items, bool) or not isinstance(n_items, int) or n_items < 1:
        raise ValueError(f"n_items must be a positive integer, got {n_items!r}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}.")
    z = float(norm.ppf(0.5 + confidence / 2))
    return z * math.sqrt(2 * split.noise / n_items)


@dataclass(frozen=True)
class RetestResult:
    """People (or items) measured twice: the Pearson correlation of the two measurements with
    its Fisher-z interval (None below :data:`RETEST_MIN_INTERVAL` subjects), the spread of one
    measurement around the person's own level (``within_sd`` = sd of the differences /
    sqrt 2) and the mean change (second - first)."""

    r: float
    low: float | None
    high: float | None
    n: int
    within_sd: float
    mean_change: float


#: Fewest subjects for the retest correlation's interval: the Fisher z interval's simulated
#: coverage is checked from 10 pairs (``metrics.correlation.MIN_PAIRS``; bench/README.md).
RETEST_MIN_INTERVAL = 10


def retest_reliability(
    first: Sequence[float], second: Sequence[float], *, confidence: float = 0.95
) -> RetestResult:
    """Test-retest reliability of a measure taken twice on the same ``n`` subjects.

    >>> result = retest_reliability([1.0, 2.0, 3.0, 4.0], [1.5, 1.5, 3.5, 4.5])
    >>> round(result.r, 4), round(result.within_sd, 4), result.mean_change, result.low
    (0.9467, 0.3536, 0.25, None)
    """
    from scipy.stats import norm

    x, y = _values(first), _values(second)
    if len(x) != len(y):
        raise ValueError(f"first has {len(x)} values and second {len(y)}; pair them per subject.")
    if len(x) < 4:
        raise ValueError(f"first: test-retest needs at least 4 subjects, got {len(x)}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}.")
    if np.std(x) == 0 or np.std(y) == 0:
        raise ValueError("first: a test with no variance has no correlation.")
    r = float(np.corrcoef(x, y)[0, 1])
    z, half = math.atanh(min(max(r, -0.999999), 0.999999)), float(norm.ppf(0.5 + confidence / 2))
    se = 1 / math.sqrt(len(x) - 3)
    diff = y - x
    enough = len(x) >= RETEST_MIN_INTERVAL
    return RetestResult(r, math.tanh(z - half * se) if enough else None,
                        math.tanh(z + half * se) if enough else None, len(x),
                        float(np.std(diff, ddof=1) / math.sqrt(2)), float(diff.mean()))
