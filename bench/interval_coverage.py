"""Simulated coverage of creval's intervals (issue 36), with the methods it used before.

The grid of ``tests/metrics/test_interval_coverage.py`` with more replications: for each
distribution and n, the share of nominal-95% intervals that cover the true value, among the
samples where an interval is printed ("-": none is printed at that n). Columns: creval's
interval of a mean (t with Hall's skewness correction, from 10 items), the plain t interval
and the percentile bootstrap creval printed before; the percentile among people (from 10
trials); the difference of two means (Welch with Hall's correction, from 30 a side, and the
plain Welch); a sweep trend (bootstrap interval and p of the same resamples, from 30 pairs);
the AUROC and Cohen's d of two sets (from 5 texts a set) beside the percentile bootstrap
printed before; a correlation's Fisher z interval (Pearson and Spearman, from 10 pairs); a
judge's agreement over stories (percentile bootstrap against a cluster jackknife); Zou's
difference of two correlations.

Run: ``.venv/bin/python bench/interval_coverage.py`` (about 15 minutes on 2 busy cores).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from creval.metrics.intervals import MIN_ITEMS, difference_intervals  # noqa: E402
from creval.metrics.trend import spearman_trend  # noqa: E402
from tests.metrics.test_interval_coverage import (  # noqa: E402
    CASES,
    DISTRIBUTIONS,
    SIZES,
    _trend_truth,
    _trend_y,
    mean_coverage,
    percentile_coverage,
)

REPS = 20_000


def _plain(draw, mean: float, n: int, seed: int) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The plain t interval and the percentile bootstrap of the mean (2,000 samples x 1,000
    resamples), at every n."""
    rng = np.random.default_rng(seed)
    x = draw(rng, (REPS, n))
    m, se = x.mean(1), x.std(1, ddof=1) / np.sqrt(n)
    q = stats.t.ppf(0.975, n - 1)
    spread = se > 0
    t = ((m - q * se <= mean) & (mean <= m + q * se))[spread].mean()
    boot = []
    for row in x[:2000]:
        means = row[rng.integers(0, n, size=(1000, n))].mean(1)
        lo, hi = np.quantile(means, [0.025, 0.975])
        boot.append(lo <= mean <= hi)
    return f"{t:.3f}", f"{np.mean(boot):.3f}"


def _cell(value: float) -> str:
    return "-" if np.isnan(value) else f"{value:.3f}"


def means_table() -> None:
    print("| data | n | creval (as printed: t + Hall; Clopper-Pearson for 0/1) | printed "
          "| plain t | percentile bootstrap (before) | percentile among people |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, (draw, mean) in DISTRIBUTIONS.items():
        for n in SIZES:
            ours, printed = mean_coverage(draw, mean, n, REPS, seed=100 + n)
            t, boot = _plain(draw, mean, n, seed=200 + n)
            people, _ = percentile_coverage(draw, mean, n, 5000, seed=300 + n)
            print(f"| {name} | {n} | {_cell(ours)} | {printed:.3f} | {t} | {boot} "
                  f"| {_cell(people)} |")


def differences_table() -> None:
    print("\n| a - b | n a side | creval (Welch + Hall, from 30) | plain Welch |")
    print("| --- | --- | --- | --- |")
    for case, (ka, kb) in CASES.items():
        (da, ma), (db, mb) = DISTRIBUTIONS[ka], DISTRIBUTIONS[kb]
        for n in SIZES[1:]:
            rng = np.random.default_rng(n)
            a, b = da(rng, (REPS, n)), db(rng, (REPS, n))
            _, low, high = difference_intervals(a, b)
            ok = ~np.isnan(low)
            ours = ((low <= ma - mb) & (ma - mb <= high))[ok].mean() if n >= 30 else np.nan
            ci = stats.ttest_ind(a, b, axis=1, equal_var=False).confidence_interval(0.95)
            okw = ~np.isnan(ci.low)
            welch = ((ci.low <= ma - mb) & (ma - mb <= ci.high))[okw].mean()
            print(f"| {case} | {n} | {_cell(ours)} | {welch:.3f} |")


def trend_table(reps: int = 600) -> None:
    print("\n| noise | swept values x items | pairs | creval trend interval (from 30) |")
    print("| --- | --- | --- | --- |")
    rng = np.random.default_rng(8)
    for noise in ("exponential", "0/1", "Likert"):
        for k, per in ((3, 2), (5, 2), (3, 4), (3, 10), (5, 6)):
            levels = np.linspace(0.2, 1.2, k)
            x = np.repeat(levels, per)
            truth = _trend_truth(levels, noise, 0.3)
            hits = printed = 0
            for rep in range(reps if k * per >= 30 else 50):
                y = _trend_y(rng, x, noise, 0.3)
                if y.min() == y.max():
                    continue
                t = spearman_trend(x.tolist(), y.tolist(), resamples=500, seed=rep)
                if t.low is None or t.high is None:
                    continue
                printed += 1
                hits += t.low <= truth <= t.high
            cell = f"{hits / printed:.3f}" if printed else "-"
            print(f"| {noise} | {k} x {per} | {k * per} | {cell} |")


def separation_table(reps: int = 10_000, boot: int = 1000) -> None:
    """AUROC (DeLong on the logit scale) and Cohen's d (noncentral t) from 5 texts a set,
    beside the percentile bootstrap printed before (500 samples x ``boot`` resamples)."""
    from creval.metrics.separation import _auroc_rows, _cohens_d_rows
    from creval.metrics.separation_ci import auroc_intervals, cohens_d_intervals
    from tests.metrics.test_interval_coverage_more import SETS

    print("\n| creative vs uncreative | n a set | AUROC: creval (DeLong, logit) | AUROC: percentile "
          "bootstrap (before) | d: creval (noncentral t) | d: percentile bootstrap (before) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, (dp, dn, true_a, true_d) in SETS.items():
        for n in SIZES:
            rng = np.random.default_rng(400 + n)
            pos, neg = dp(rng, (reps, n)), dn(rng, (reps, n))
            cells = []
            for rows, boot_rows, truth in ((auroc_intervals, _auroc_rows, true_a),
                                           (cohens_d_intervals, _cohens_d_rows, true_d)):
                _, low, high = rows(pos, neg)
                ok = ~np.isnan(low)
                cells.append(_cell(((low <= truth) & (truth <= high))[ok].mean() if ok.any() else np.nan))
                hits = []
                for p, q in zip(pos[:500], neg[:500], strict=True):
                    values = boot_rows(p[rng.integers(0, n, (boot, n))], q[rng.integers(0, n, (boot, n))])
                    values = values[np.isfinite(values)]
                    if len(values):
                        lo, hi = np.quantile(values, [0.025, 0.975])
                        hits.append(lo <= truth <= hi)
                cells.append(f"{np.mean(hits):.3f}")
            print(f"| {name} | {n} | " + " | ".join(cells) + " |")


def correlation_table(reps: int = 20_000) -> None:
    """Fisher z intervals of Pearson's r and Spearman's rho (Bonett and Wright), from 10 pairs."""
    from creval.metrics.correlation import MIN_PAIRS
    from tests.metrics.test_interval_coverage_more import _correlated

    print("\n| scorer vs people | n pairs | Pearson (Fisher z) | Spearman (Fisher z, Bonett-Wright) |")
    print("| --- | --- | --- | --- |")
    for kind in ("exponential", "lognormal", "Likert ratings", "beta"):
        rng = np.random.default_rng(500)
        bx, by = _correlated(kind, rng, (1_000_000,))
        truths = {"pearson": float(np.corrcoef(bx, by)[0, 1]),
                  "spearman": float(stats.spearmanr(bx[:300_000], by[:300_000]).statistic)}
        for n in SIZES:
            if n < MIN_PAIRS:
                print(f"| {kind} | {n} | - | - |")
                continue
            x, y = _correlated(kind, rng, (reps, n))
            cells = []
            for method, truth in truths.items():
                a, b = ((stats.rankdata(x, axis=-1), stats.rankdata(y, axis=-1)) if method == "spearman"
                        else (x, y))
                ac, bc = a - a.mean(-1, keepdims=True), b - b.mean(-1, keepdims=True)
                with np.errstate(invalid="ignore", divide="ignore"):
                    r = (ac * bc).sum(-1) / np.sqrt((ac**2).sum(-1) * (bc**2).sum(-1))
                se = np.sqrt((1 + r * r / 2) / (n - 3)) if method == "spearman" else 1 / np.sqrt(n - 3)
                z, q = np.arctanh(np.clip(r, -1 + 1e-12, 1 - 1e-12)), stats.norm.ppf(0.975)
                hit = (np.tanh(z - q * se) <= truth) & (truth <= np.tanh(z + q * se))
                cells.append(f"{hit[np.isfinite(r)].mean():.3f}")
            print(f"| {kind} | {n} | " + " | ".join(cells) + " |")



def agreement_table(reps: int = 600) -> None:
    """TTCW-judges' accuracy and kappa over stories: the percentile bootstrap over stories
    creval printed before (1,000 resamples) beside creval's cluster jackknife with Student's t
    (``clustered_agreement``)."""
    from creval.metrics.rater_agreement import clustered_agreement
    from tests.metrics.test_interval_coverage_more import _judge_stories

    tests = np.random.default_rng(9).normal(0.0, 1.0, (1, 14))
    judge, experts = _judge_stories(np.random.default_rng(1), 100_000, tests)
    truth = _agreement_sums(np.stack([np.full(100_000, 14), (judge == experts).sum(1),
                                      judge.sum(1), experts.sum(1)], -1).sum(0))
    print("\n| stories (x 14 tests) | accuracy: percentile bootstrap (before) | kappa: percentile "
          "bootstrap (before) | accuracy: creval (jackknife + t, from 5) | kappa: creval |")
    print("| --- | --- | --- | --- | --- |")
    rng = np.random.default_rng(2)
    for c in SIZES:
        boot, ours, printed = np.zeros(2), np.zeros(2), np.zeros(2)
        for _ in range(reps):
            j, e = _judge_stories(rng, c, tests)
            per = np.stack([np.full(c, 14), (j == e).sum(1), j.sum(1), e.sum(1)], -1).astype(float)
            draws = _agreement_sums(per[rng.integers(0, c, (1000, c))].sum(1))
            for k in range(2):
                values = draws[k][np.isfinite(draws[k])]
                lo, hi = np.quantile(values, [0.025, 0.975]) if len(values) else (np.nan, np.nan)
                boot[k] += lo <= truth[k] <= hi
            r = clustered_agreement(j.ravel().tolist(), e.ravel().tolist(),
                                    np.repeat(np.arange(c), 14).tolist())
            for k, (lo, hi) in enumerate(((r.accuracy_low, r.accuracy_high), (r.kappa_low, r.kappa_high))):
                if lo is not None and hi is not None:
                    printed[k] += 1
                    ours[k] += lo <= truth[k] <= hi
        cells = [f"{v / reps:.3f}" for v in boot]
        cells += [f"{o / p:.3f}" if p else "-" for o, p in zip(ours, printed, strict=True)]
        print(f"| {c} | " + " | ".join(cells) + " |")


def _agreement_sums(sums: np.ndarray) -> np.ndarray:
    """(accuracy, kappa) from summed (items, agreements, judge's Yes, experts' Yes)."""
    n = sums[..., 0]
    p, a, b = sums[..., 1] / n, sums[..., 2] / n, sums[..., 3] / n
    chance = a * b + (1 - a) * (1 - b)
    with np.errstate(all="ignore"):
        return np.array([p, (p - chance) / (1 - chance)])


def zou_table(reps: int = 3000) -> None:
    """Zou's interval of the difference of two scorers' correlations with people's ratings."""
    from creval.metrics.correlation import correlation_difference
    from tests.metrics.test_interval_coverage_more import _two_scorers

    print("\n| people's ratings vs two scorers | n responses | Pearson (Zou) | Spearman (Zou, "
          "Bonett-Wright) |")
    print("| --- | --- | --- | --- |")
    for kind in ("skewed noise", "bounded scores"):
        rng = np.random.default_rng(21)
        y, a, b = _two_scorers(kind, rng, 400_000)
        ranks = [stats.rankdata(v) for v in (y, a, b)]
        truths = {"pearson": np.corrcoef(y, a)[0, 1] - np.corrcoef(y, b)[0, 1],
                  "spearman": np.corrcoef(ranks[0], ranks[1])[0, 1] - np.corrcoef(ranks[0], ranks[2])[0, 1]}
        for n in (10, 30):
            cells = []
            for method, truth in truths.items():
                hits = printed = 0
                for _ in range(reps):
                    d = correlation_difference(*(v.tolist() for v in _two_scorers(kind, rng, n)),
                                               method=method)  # type: ignore[arg-type]
                    if d.low is not None and d.high is not None:
                        printed += 1
                        hits += d.low <= truth <= d.high
                cells.append(f"{hits / printed:.3f}")
            print(f"| {kind} | {n} | " + " | ".join(cells) + " |")

def homogeneity_table(reps: int = 1000) -> None:
    """Homogeneity's cells (within A, within B, across) over items and over one item's
    answers: creval's interval (``None`` below its minimum, shown "-")."""
    from creval.metrics.homogeneity import homogeneity
    from tests.metrics.test_interval_coverage_last import (
        ANSWERS,
        DIMS,
        _cells,
        _covered,
        one_item_answers,
        similarity_items,
    )

    print("\n| homogeneity | data | n | within A | within B | across |")
    print("| --- | --- | --- | --- | --- | --- |")
    labels = ["A"] * ANSWERS + ["B"] * ANSWERS
    centre = np.random.default_rng(3).normal(0.0, 1.0, DIMS)
    for kind in ("skewed", "bounded"):
        rng = np.random.default_rng(36)
        truth = similarity_items(kind, rng, 200_000)[1].mean(0)
        for n in SIZES:
            hits = [_covered(_cells(homogeneity([(S, labels) for S in similarity_items(kind, rng, n)[0]],
                                                permutations=0)), truth) for _ in range(reps)]
            cells = np.mean([h for h in hits if h is not None], 0) if any(h is not None for h in hits) else [np.nan] * 3
            print(f"| over items | {kind} | {n} | " + " | ".join(_cell(c) for c in cells) + " |")
        big = 3000
        S = one_item_answers(kind, rng, big, centre)
        off = ~np.eye(big, dtype=bool)
        truth = np.array([S[:big, :big][off].mean(), S[big:, big:][off].mean(), S[:big, big:].mean()])
        for n in (*SIZES, 50, 100):
            hits = [_covered(_cells(homogeneity([(one_item_answers(kind, rng, n, centre), ["A"] * n + ["B"] * n)],
                                                unit="answer", permutations=0)), truth) for _ in range(reps)]
            cells = np.mean([h for h in hits if h is not None], 0) if any(h is not None for h in hits) else [np.nan] * 3
            print(f"| over one item's answers | {kind} | {n} | " + " | ".join(_cell(c) for c in cells) + " |")


if __name__ == "__main__":
    print(f"nominal 95%; creval prints an interval of a mean from {MIN_ITEMS} items\n")
    means_table()
    differences_table()
    trend_table()
    separation_table()
    correlation_table()
    agreement_table()
    zou_table()
    homogeneity_table()
