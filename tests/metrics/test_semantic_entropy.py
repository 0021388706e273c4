"""Semantic entropy estimators pinned to hand calculations, and the paper's default checked
against Farquhar et al.'s (2024) Rao-Blackwellised semantic entropy."""

from __future__ import annotations

import math
import random

import pytest

from creval.metrics.semantic_entropy import (
    SolutionEntropy,
    aggregate_steps,
    class_probabilities,
    discrete_semantic_entropy,
    rao_blackwell_entropy,
    semantic_entropy,
    sequence_logprob,
    solution_semantic_entropy,
    step_semantic_entropies,
)

LN = math.log


def test_discrete_by_hand() -> None:
    # Classes of sizes 3 and 1 out of 4: -(3/4 ln 3/4 + 1/4 ln 1/4) = 0.215762 + 0.346574.
    assert discrete_semantic_entropy([5, 5, 5, 9]) == pytest.approx(0.5623351446, abs=1e-9)
    assert semantic_entropy([0, 0, 0, 1], estimator="discrete") == pytest.approx(
        -(0.75 * LN(0.75) + 0.25 * LN(0.25))
    )
    # All distinct: ln n (nats), the maximum. One class: 0.
    assert discrete_semantic_entropy(list(range(10))) == pytest.approx(2.302585093, abs=1e-9)
    assert discrete_semantic_entropy([2] * 10) == 0.0


def test_probability_weighted_by_hand() -> None:
    # Token log-probs -> sums: [-1,-1] -> -2 ; [-0.5] -> -0.5 ; [-2,-3] -> -5.
    # Class 0 = {s0}, class 1 = {s1, s2}.
    # P(c0) = e^-2 / (e^-2 + e^-0.5 + e^-5) = 0.135335 / (0.135335 + 0.606531 + 0.006738)
    #       = 0.135335 / 0.748604 = 0.180784 ; P(c1) = 0.819216.
    # H = -(0.180784 ln 0.180784 + 0.819216 ln 0.819216) = 0.309222 + 0.163357 = 0.472580.
    lp = [[-1.0, -1.0], [-0.5], [-2.0, -3.0]]
    probs = class_probabilities([0, 1, 1], [-2.0, -0.5, -5.0])
    assert probs[0] == pytest.approx(0.180784, abs=1e-6)
    assert semantic_entropy([0, 1, 1], lp, estimator="probability_weighted") == pytest.approx(
        0.472580, abs=1e-6
    )


def test_length_normalised_by_hand() -> None:
    # Same samples, means: [-1,-1] -> -1 ; [-0.5] -> -0.5 ; [-2,-3] -> -2.5.
    # P(c0) = e^-1 / (e^-1 + e^-0.5 + e^-2.5) = 0.367879 / (0.367879 + 0.606531 + 0.082085)
    #       = 0.367879 / 1.056495 = 0.348207 ; P(c1) = 0.651793.
    # H = -(0.348207 ln 0.348207 + 0.651793 ln 0.651793) = 0.367344 + 0.278986 = 0.646330.
    lp = [[-1.0, -1.0], [-0.5], [-2.0, -3.0]]
    assert semantic_entropy([0, 1, 1], lp) == pytest.approx(0.646330, abs=1e-6)
    assert semantic_entropy([0, 1, 1], lp, estimator="length_normalised") == semantic_entropy(
        [0, 1, 1], lp
    )


def test_length_normalisation_removes_the_length_penalty() -> None:
    # Two classes whose samples have the same per-token log-probability (-0.5) but lengths
    # 2 and 20: length-normalised sees equal classes (ln 2); the joint probability almost
    # ignores the long one.
    lp = [[-0.5] * 2, [-0.5] * 20]
    assert semantic_entropy([0, 1], lp) == pytest.approx(LN(2))
    weighted = semantic_entropy([0, 1], lp, estimator="probability_weighted")
    p_long = math.exp(-10) / (math.exp(-1) + math.exp(-10))
    assert weighted == pytest.approx(-(p_long * LN(p_long) + (1 - p_long) * LN(1 - p_long)))
    assert weighted < 0.01


def test_invariances() -> None:
    rng = random.Random(3)
    for _ in range(30):
        n = rng.randint(1, 10)
        ids = [rng.randrange(4) for _ in range(n)]
        seq = [rng.uniform(-8, 0) for _ in range(n)]
        h = rao_blackwell_entropy(ids, seq)
        # Renaming classes and shifting every log-probability by a constant change nothing.
        assert rao_blackwell_entropy([c + 100 for c in ids], seq) == pytest.approx(h)
        assert rao_blackwell_entropy(ids, [s - 3.0 for s in seq]) == pytest.approx(h)
        assert 0.0 <= h <= LN(len(set(ids))) + 1e-12


def test_very_small_probabilities_do_not_underflow() -> None:
    # exp(-2000) is 0.0 in floating point; log-sum-exp keeps the classes equal.
    assert rao_blackwell_entropy([0, 1], [-2000.0, -2000.0]) == pytest.approx(LN(2))
    lp = [[-5.0] * 400, [-5.0] * 400, [-5.0] * 400]
    assert semantic_entropy([0, 1, 1], lp, estimator="probability_weighted") == pytest.approx(
        discrete_semantic_entropy([0, 1, 1])
    )


# -- Farquhar et al. (2024) -------------------------------------------------------------------
def _farquhar_log_class_probs(semantic_ids: list[int], log_likelihoods: list[float]) -> list[float]:
    """Their per-class log-probability, from its definition: for each semantic id (in sorted
    order) log sum_{i in class} exp(l_i - log sum_j exp(l_j)), with plain sums of exps."""
    total = math.log(sum(math.exp(v) for v in log_likelihoods))
    out = []
    for uid in sorted(set(semantic_ids)):
        members = [v for v, s in zip(log_likelihoods, semantic_ids, strict=True) if s == uid]
        out.append(math.log(sum(math.exp(v - total) for v in members)))
    return out


def _farquhar_predictive_entropy_rao(log_probs: list[float]) -> float:
    """-sum_c p(c) log p(c) with p(c) = exp(log p(c))."""
    return -sum(math.exp(lp) * lp for lp in log_probs)


def test_paper_default_equals_farquhar_semantic_entropy() -> None:
    rng = random.Random(2024)
    for _ in range(300):
        n = rng.randint(1, 10)
        ids = [rng.randrange(rng.randint(1, n)) for _ in range(n)]
        tokens = [[rng.uniform(-6.0, 0.0) for _ in range(rng.randint(1, 40))] for _ in range(n)]
        # Farquhar et al. length-normalise: a sample's log-likelihood is its mean token log-prob.
        mean_ll = [sum(t) / len(t) for t in tokens]
        expected = _farquhar_predictive_entropy_rao(_farquhar_log_class_probs(ids, mean_ll))
        assert semantic_entropy(ids, tokens) == pytest.approx(expected, abs=1e-9)


# -- steps and solutions ----------------------------------------------------------------------
def test_per_step_values_and_aggregates_by_hand() -> None:
    # Step 0: one class -> 0. Step 1: two equal classes -> ln 2 = 0.693147.
    # Step 2: sizes 2 and 1 -> -(2/3 ln 2/3 + 1/3 ln 1/3) = 0.636514.
    steps = [[0, 0, 0], [0, 1], [0, 0, 1]]
    per = step_semantic_entropies(steps, estimator="discrete")
    assert per == pytest.approx((0.0, 0.693147, 0.636514), abs=1e-6)
    mean = solution_semantic_entropy(steps, estimator="discrete")
    assert isinstance(mean, SolutionEntropy)
    assert mean.value == pytest.approx((0.0 + 0.693147 + 0.636514) / 3, abs=1e-6)
    assert (mean.estimator, mean.aggregate, mean.per_step) == ("discrete", "mean", per)
    assert solution_semantic_entropy(steps, estimator="discrete", aggregate="min").value == 0.0
    assert solution_semantic_entropy(steps, estimator="discrete", aggregate="max").value == per[1]


def test_steps_with_log_probabilities() -> None:
    steps = [[0, 1, 1], [0, 0]]
    lps = [[[-1.0, -1.0], [-0.5], [-2.0, -3.0]], [[-1.0], [-9.0]]]
    per = step_semantic_entropies(steps, lps)
    assert per == pytest.approx((0.646330, 0.0), abs=1e-6)  # step 0 worked above


def test_sequence_logprob() -> None:
    assert sequence_logprob([-1.0, -2.0], length_normalised=True) == -1.5
    assert sequence_logprob([-1.0, -2.0], length_normalised=False) == -3.0
    assert sequence_logprob([0.0], length_normalised=True) == 0.0


def test_validation() -> None:
    with pytest.raises(ValueError, match="class_ids has 2 samples but token_logprobs has 3"):
        semantic_entropy([0, 1], [[-1.0], [-1.0], [-1.0]])
    with pytest.raises(ValueError, match="must be finite"):
        semantic_entropy([0, 1], [[-1.0], [float("-inf")]])
    with pytest.raises(ValueError, match="must be finite"):
        semantic_entropy([0, 1], [[float("nan")], [-1.0]])
    with pytest.raises(ValueError, match="not probabilities"):
        semantic_entropy([0, 1], [[0.5], [0.4]])
    with pytest.raises(ValueError, match="Sample 1: A sample has no token"):
        semantic_entropy([0, 1], [[-1.0], []])
    with pytest.raises(ValueError, match="needs token_logprobs"):
        semantic_entropy([0, 1])
    with pytest.raises(ValueError, match="estimator must be one of"):
        semantic_entropy([0, 1], estimator="naive")
    with pytest.raises(ValueError, match="empty"):
        semantic_entropy([], estimator="discrete")
    with pytest.raises(ValueError, match="integer class id"):
        discrete_semantic_entropy([0, "a"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="sequence_logprobs has 1"):
        class_probabilities([0, 1], [-1.0])
    with pytest.raises(ValueError, match="Step 1: class_ids has 1 samples"):
        step_semantic_entropies([[0], [0]], [[[-1.0]], [[-1.0], [-2.0]]])
    with pytest.raises(ValueError, match="2 steps but steps_token_logprobs has 1"):
        step_semantic_entropies([[0], [0]], [[[-1.0]]])
    with pytest.raises(ValueError, match="how must be one of"):
        aggregate_steps([0.1], how="median")
    with pytest.raises(ValueError, match="No steps"):
        aggregate_steps([])
    # The discrete estimator ignores log-probabilities (it still checks their count).
    assert semantic_entropy([0, 1], [[-1.0], [-50.0]], estimator="discrete") == pytest.approx(LN(2))
