"""Pearson and Spearman with p-values, and the task x criterion correlation table."""

from __future__ import annotations

import math
from typing import Any

import pytest

from creval.metrics.stats import Correlation, correlation_table, pearson, spearman


def test_pearson_hand_calculation_n4() -> None:
    # x deviations (-1.5, -0.5, 0.5, 1.5), y = 1, 3, 2, 4 deviations (-1.5, 0.5, -0.5, 1.5):
    # sum of products 2.25 - 0.25 - 0.25 + 2.25 = 4, sums of squares 5 and 5, so r = 0.8.
    # With n = 4 the null density of r is flat on [-1, 1], so the two-sided p = 1 - |r|.
    c = pearson([1, 2, 3, 4], [1, 3, 2, 4])
    assert (c.r, c.p, c.n, c.note) == (pytest.approx(0.8), pytest.approx(0.2), 4, None)
    neg = pearson([1, 2, 3, 4], [4, 2, 3, 1])
    assert neg.r == pytest.approx(-0.8) and neg.p == pytest.approx(0.2)


def test_pearson_perfectly_linear() -> None:
    c = pearson([0.5, 1.5, 2.5, 10.0], [3.0, 5.0, 7.0, 22.0])  # y = 2x + 2
    assert c.r == pytest.approx(1.0) and c.p == pytest.approx(0.0, abs=1e-12) and c.n == 4


def test_spearman_with_ties_hand_calculation() -> None:
    # Ranks of x = 1, 2, 2, 3 are 1, 2.5, 2.5, 4; y is already ranked 1..4. Pearson of the
    # ranks: products (-1.5)(-1.5) + 0 + 0 + (1.5)(1.5) = 4.5 over sqrt(4.5 * 5), r = 0.94868.
    # scipy's p uses t = r sqrt(2 / (1 - r^2)) with 2 df, for which p = 1 - |r| exactly.
    c = spearman([1, 2, 2, 3], [10, 20, 30, 40])
    assert c.r == pytest.approx(4.5 / math.sqrt(22.5))
    assert c.p == pytest.approx(1 - 4.5 / math.sqrt(22.5))


def test_spearman_monotone_not_linear() -> None:
    x = [1, 2, 3, 4, 5, 6]
    y = [v**3 for v in x]
    assert spearman(x, y).r == pytest.approx(1.0)
    r = pearson(x, y).r
    assert r is not None and r < 0.95  # the cubic is not a line


def test_constant_input_gives_none_and_a_note() -> None:
    for fn in (pearson, spearman):
        c = fn([1, 2, 3], [2, 2, 2])
        assert c == Correlation(r=None, p=None, n=3, note="y is constant: the correlation is "
                                "undefined")  # fmt: skip
        assert fn([4, 4, 4], [1, 2, 3]).note == "x is constant: the correlation is undefined"


@pytest.mark.parametrize(
    ("x", "y", "message"),
    [
        ([1, 2, 3], [1, 2], "same length"),
        ([1, 2], [1, 2], "at least 3 pairs"),
        ([1, 2, float("nan")], [1, 2, 3], r"x\[2\] must be a finite number"),
        ([1, 2, 3], [1, "2", 3], r"y\[1\] must be a finite number"),
        ([1, 2, 3], [True, 2, 3], r"y\[0\] must be a finite number"),
        ("123", [1, 2, 3], "x must be a sequence"),
    ],
)
def test_validation(x: Any, y: Any, message: str) -> None:
    for fn in (pearson, spearman):
        with pytest.raises(ValueError, match=message):
            fn(x, y)


def test_correlation_table_filters_models_and_reports_small_cells() -> None:
    a: dict[str, dict[str, dict[str, float | None]]] = {
        "m1": {"uses": {"fluency": 1.0, "originality": 2.0}, "stories": {"fluency": 3.0}},
        "m2": {"uses": {"fluency": 2.0, "originality": 2.0}, "stories": {"fluency": None}},
        "m3": {"uses": {"fluency": 3.0, "originality": 2.0}, "stories": {"fluency": 1.0}},
        "m4": {"uses": {"fluency": 4.0, "originality": 1.0}},
        "only_a": {"uses": {"fluency": 100.0}},
    }
    b = {"m1": 10.0, "m2": 20.0, "m3": 30.0, "m4": 40.0, "only_b": 0.0}
    rows = correlation_table(a, b)
    assert [(r["task"], r["criterion"], r["n"]) for r in rows] == [
        ("uses", "fluency", 4), ("uses", "originality", 4), ("stories", "fluency", 2),
    ]  # fmt: skip
    uses = rows[0]
    assert uses["pearson_r"] == pytest.approx(1.0) and uses["spearman_r"] == pytest.approx(1.0)
    assert uses["note"] is None
    # originality 2, 2, 2, 1 vs 10..40: ranks 3, 3, 3, 1 -> r = -sqrt(0.6) (hand: deviations
    # of x are 0.5, 0.5, 0.5, -1.5 and of y -1.5, -0.5, 0.5, 1.5; sum of products -3,
    # sums of squares 3 and 5).
    assert rows[1]["pearson_r"] == pytest.approx(-3 / math.sqrt(15))
    assert rows[2] == {"task": "stories", "criterion": "fluency", "n": 2, "pearson_r": None,
                       "pearson_p": None, "spearman_r": None, "spearman_p": None,
                       "note": "only 2 models with both scores"}  # fmt: skip


def test_correlation_table_validation() -> None:
    with pytest.raises(ValueError, match="min_models"):
        correlation_table({}, {}, min_models=2)
    with pytest.raises(ValueError, match="task -> criterion -> score"):
        correlation_table({"m": 3.0}, {"m": 1.0})  # type: ignore[dict-item]
    assert correlation_table({}, {"m": 1.0}) == []


# Seed 004 (Fukuda et al. 2025): per-model scores of Table 3 (criterion means over all tasks)
# and Table 4 (task means over all criteria), DAT (Table 6) and SAT (Table 7), all rounded as
# published. Table 9 and 10 correlate them across the five models; the "All" row and the
# "Mean" column follow from Tables 3 and 4 alone.
MODELS = ("GPT-4o", "Claude 3.5 Sonnet", "calm3-22b", "llm-jp-3-13b", "Swallow-8B")
CRITERIA = ("fluency", "flexibility", "originality", "elaboration", "mean")
TASKS = ("unusual uses", "consequences", "just suppose", "situation", "common problem",
         "improvement", "imaginative stories")  # fmt: skip
TABLE3 = ((4.10, 4.28, 2.73, 3.47, 3.64), (4.29, 4.04, 2.73, 2.87, 3.48),
          (4.16, 4.18, 2.87, 3.86, 3.76), (3.74, 3.79, 2.65, 3.45, 3.41),
          (3.91, 3.45, 2.34, 2.79, 3.12))  # fmt: skip
TABLE4 = ((3.97, 3.69, 3.83, 3.28, 3.48, 4.01, 3.25), (3.73, 3.42, 3.80, 3.08, 3.61, 3.80, 2.93),
          (3.84, 3.92, 3.91, 3.73, 3.45, 4.00, 3.50), (3.08, 3.92, 3.52, 3.69, 3.00, 3.64, 3.01),
          (3.28, 3.33, 3.39, 2.80, 3.08, 3.45, 2.54))  # fmt: skip
DAT = (0.527, 0.530, 0.514, 0.494, 0.505)
SAT = (0.526, 0.579, 0.458, 0.219, 0.193)
TABLE9_ALL = (0.916, 0.670, 0.437, -0.108, 0.466)
TABLE9_MEAN = (0.883, -0.340, 0.722, -0.290, 0.948, 0.633, 0.287)
TABLE10_ALL = (0.908, 0.855, 0.725, 0.170, 0.712)
TABLE10_MEAN = (0.899, -0.017, 0.897, 0.058, 0.981, 0.812, 0.556)


def _paper_scores() -> dict[str, dict[str, dict[str, float]]]:
    out: dict[str, dict[str, dict[str, float]]] = {}
    for model, crit, tasks in zip(MODELS, TABLE3, TABLE4, strict=True):
        out[model] = {"all": dict(zip(CRITERIA, crit, strict=True))}
        out[model] |= {t: {"mean": v} for t, v in zip(TASKS, tasks, strict=True)}
    return out


@pytest.mark.parametrize(
    ("other", "expected_all", "expected_mean"),
    [(DAT, TABLE9_ALL, TABLE9_MEAN), (SAT, TABLE10_ALL, TABLE10_MEAN)],
    ids=["table9-dat", "table10-sat"],
)
def test_reproduces_the_papers_correlations(
    other: tuple[float, ...], expected_all: tuple[float, ...], expected_mean: tuple[float, ...]
) -> None:
    rows = correlation_table(_paper_scores(), dict(zip(MODELS, other, strict=True)))
    got = {(r["task"], r["criterion"]): r for r in rows}
    assert all(r["n"] == 5 for r in rows) and len(rows) == 5 + 7
    expected = {("all", c): v for c, v in zip(CRITERIA, expected_all, strict=True)}
    expected |= {(t, "mean"): v for t, v in zip(TASKS, expected_mean, strict=True)}
    for key, value in expected.items():
        # Inputs are rounded to 2-3 decimals in the paper, which moves r by up to ~0.009.
        assert got[key]["pearson_r"] == pytest.approx(value, abs=0.01), key
    # Bold in the tables (p < 0.05), away from the 0.05 boundary.
    assert got[("all", "fluency")]["pearson_p"] < 0.05
    assert got[("common problem", "mean")]["pearson_p"] < 0.05
    assert got[("all", "elaboration")]["pearson_p"] > 0.5


def test_dat_vs_sat_section_434() -> None:
    # "The Pearson correlation between DAT and SAT was 0.933, with a p-value of 0.021."
    c = pearson(DAT, SAT)
    assert c.r == pytest.approx(0.933, abs=0.002)
    assert c.p == pytest.approx(0.021, abs=0.001)
