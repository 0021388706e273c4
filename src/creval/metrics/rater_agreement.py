"""Agreement of several raters, and a judge's agreement with a reference with intervals over
clusters of items (TTCW: the 14 tests of one story are one cluster).

* :func:`fleiss_kappa`: Fleiss' (1971) kappa of a fixed number of raters per item over any
  hashable labels: ``(P_bar - P_e) / (1 - P_e)``, where ``P_bar`` is the mean over items of
  the share of agreeing rater pairs and ``P_e`` the sum of the squared overall label shares.
  Chakrabarty et al. (CHI 2024) report it for their three experts per TTCW test.
* :func:`clustered_agreement`: accuracy and Cohen's kappa of a judge against a reference
  label per item (:func:`creval.metrics.agreement.cohen_kappa`), each with an interval from a
  jackknife over whole clusters (stories: each left out in turn) and Student's t at
  ``clusters - 1`` degrees of freedom, so that the interval reflects that the items of one
  story are not independent; none below :data:`MIN_CLUSTERS` clusters. Simulated coverage
  (``bench/README.md``): the percentile bootstrap over stories creval used before covered
  51% at 2 stories, 83-85% at 5 and 93% at 10-30; this interval 95-97% from 5.

Range: kappa is at most 1 (perfect agreement), 0 at chance, negative below chance;
accuracy is a fraction in [0, 1].

>>> round(fleiss_kappa([["y", "y", "y"], ["n", "n", "n"], ["y", "n", "n"]]), 4)
0.55
>>> r = clustered_agreement(["y", "n", "y", "n"], ["y", "n", "n", "n"], ["s1", "s1", "s2", "s2"])
>>> r.accuracy, r.kappa, r.clusters, r.reason
(0.75, 0.5, 2, '2 stories: too few for an interval (needs 5)')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from creval.metrics.agreement import cohen_kappa

__all__ = ["MIN_CLUSTERS", "ClusteredAgreement", "clustered_agreement", "fleiss_kappa"]

#: Fewest clusters (stories) for an interval of a judge's accuracy or kappa.
MIN_CLUSTERS = 5


def _labels(values: object, name: str) -> list[Hashable]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{name} must be a sequence of labels, got {type(values).__name__}.")
    out = []
    for i, v in enumerate(values):
        if v is None or not isinstance(v, Hashable):
            raise ValueError(f"{name}[{i}] must be a hashable label (not None), got {v!r}.")
        out.append(v)
    return out


def fleiss_kappa(ratings: Sequence[Sequence[Hashable]]) -> float | None:
    """Fleiss' kappa of ``ratings[i]``, the labels the raters gave item ``i`` (the same number
    of raters, at least two, on every item). None when every rating is one and the same label
    (``P_e = 1``: agreement beyond chance is undefined).

    Hand calculation (3 raters, 3 items): agreeing pairs 3/3, 3/3, 1/3, so ``P_bar = 7/9``;
    label shares y 4/9, n 5/9, so ``P_e = 41/81``; kappa = (63/81 - 41/81) / (40/81) = 0.55.

    >>> fleiss_kappa([["y", "y", "y"], ["n", "n", "n"], ["y", "n", "n"]])
    0.55
    >>> fleiss_kappa([["y", "y"], ["y", "y"]]) is None
    True
    """
    if isinstance(ratings, (str, bytes)) or not isinstance(ratings, Sequence) or not ratings:
        raise ValueError("ratings must be a non-empty sequence of items, each a list of labels.")
    rows = [_labels(r, f"ratings[{i}]") for i, r in enumerate(ratings)]
    raters = len(rows[0])
    if raters < 2:
        raise ValueError("Fleiss' kappa needs at least two raters per item.")
    for i, row in enumerate(rows):
        if len(row) != raters:
            raise ValueError(f"ratings[{i}] has {len(row)} labels; every item needs {raters} "
                             "(the same number of raters per item).")
    total = Counter(label for row in rows for label in row)
    agree = [(sum(c * c for c in Counter(row).values()) - raters) / (raters * (raters - 1))
             for row in rows]
    p_bar = sum(agree) / len(rows)
    p_e = sum((c / (len(rows) * raters)) ** 2 for c in total.values())
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


@dataclass(frozen=True)
class ClusteredAgreement:
    """A judge's accuracy and Cohen's kappa against a reference over ``n`` items in
    ``clusters`` clusters, each with its interval (None where undefined: kappa when both raters
    used one label; intervals below :data:`MIN_CLUSTERS` clusters, ``reason`` then says why)."""

    n: int
    clusters: int
    accuracy: float
    accuracy_low: float | None
    accuracy_high: float | None
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    confidence: float
    resamples: int
    reason: str | None = None


def _kappa_of(p_o: object, a_share: object, b_share: object) -> object:
    """Vectorised binary-or-multiclass kappa from agreement and per-label shares."""
    import numpy as np

    p_e = (np.asarray(a_share) * np.asarray(b_share)).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p_e < 1.0, (np.asarray(p_o) - p_e) / (1.0 - p_e), np.nan)


def clustered_agreement(
    judge: Sequence[Hashable], reference: Sequence[Hashable], clusters: Sequence[Hashable], *,
    confidence: float = 0.95, resamples: int = 2000, seed: int = 0,
) -> ClusteredAgreement:
    """Accuracy and Cohen's kappa of ``judge`` against ``reference`` (one label each per item),
    with intervals from a jackknife over the clusters (``clusters[i]`` names item ``i``'s):
    each cluster is left out in turn, the spread of the leave-one-out values gives the
    standard error, and Student's t at ``clusters - 1`` degrees of freedom the interval
    (clipped to [0, 1] for accuracy, [-1, 1] for kappa). ``resamples`` and ``seed`` are kept
    for callers of the percentile bootstrap used before and change nothing.

    >>> r = clustered_agreement(["y"] * 10, ["y", "n"] * 5, list("aabbccddee"))
    >>> r.accuracy, r.kappa, r.kappa_low, r.kappa_high  # the judge said y to all: kappa is 0
    (0.5, 0.0, None, None)
    """
    import numpy as np

    a, b, c = (_labels(judge, "judge"), _labels(reference, "reference"),
               _labels(clusters, "clusters"))
    if not len(a) == len(b) == len(c):
        raise ValueError(f"judge, reference and clusters must have one value per item, got "
                         f"{len(a)}, {len(b)} and {len(c)}.")
    if not a:
        raise ValueError("clustered_agreement needs at least one item.")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}.")
    labels = sorted(set(a) | set(b), key=repr)
    code = {label: j for j, label in enumerate(labels)}
    names = list(dict.fromkeys(c))
    cluster_of = np.array([names.index(x) for x in c])
    # per cluster: items, agreements, and label counts of each rater
    size = np.bincount(cluster_of, minlength=len(names)).astype(float)
    agree = np.bincount(cluster_of, weights=[float(x == y) for x, y in zip(a, b, strict=True)],
                        minlength=len(names))
    count_a = np.zeros((len(names), len(labels)))
    count_b = np.zeros((len(names), len(labels)))
    np.add.at(count_a, (cluster_of, np.array([code[x] for x in a])), 1.0)
    np.add.at(count_b, (cluster_of, np.array([code[x] for x in b])), 1.0)
    point = cohen_kappa(a, b)
    accuracy = float(agree.sum() / size.sum())
    low = high = k_low = k_high = None
    reason = None
    if len(names) < MIN_CLUSTERS:
        reason = f"{len(names)} stories: too few for an interval (needs {MIN_CLUSTERS})"
    else:
        from scipy.stats import t

        n = size.sum() - size  # leave-one-cluster-out sums
        p_o = (agree.sum() - agree) / n
        kappas = np.asarray(_kappa_of(p_o, (count_a.sum(axis=0) - count_a) / n[:, None],
                                      (count_b.sum(axis=0) - count_b) / n[:, None]))
        q = float(t.ppf((1 + confidence) / 2, len(names) - 1))
        low, high = _jackknife(accuracy, p_o, q, 0.0)
        if point.kappa is not None and not np.isnan(kappas).any() and np.ptp(kappas) > 0:
            k_low, k_high = _jackknife(point.kappa, kappas, q, -1.0)
        elif point.kappa is not None:
            reason = "kappa did not vary when a story was left out (or was undefined): no interval"
    return ClusteredAgreement(len(a), len(names), accuracy, low, high, point.kappa, k_low, k_high,
                              confidence, resamples, reason)


def _jackknife(estimate: float, leave_one_out: object, q: float, floor: float) -> tuple[float, float]:
    """``estimate +- q * se``, ``se`` the jackknife standard error, kept within [floor, 1]."""
    import numpy as np

    values = np.asarray(leave_one_out, dtype=float)
    m = len(values)
    se = float(np.sqrt((m - 1) / m * ((values - values.mean()) ** 2).sum()))
    return max(floor, estimate - q * se), min(1.0, estimate + q * se)
