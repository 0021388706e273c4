"""Open-ended scores: per-solution values behind semantic_entropy and each judge's overall
(their plain mean is the headline), and a check for a judge criterion that never varies."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from creval.benchmarks.openended.scoring import score_openended
from creval.runner.store import Record


def _candidate(text: str, lp_sum: float | None, n: int) -> dict[str, object]:
    return {"raw": text, "text": text, "finished": False, "valid": True, "n_tokens": n,
            "logprob_sum": lp_sum, "logprob_mean": None if lp_sum is None else lp_sum / n}


def _record(i: int, *, safety: bool | None, judged: bool = True, logprobs: bool = True) -> Record:
    a, b = f"Lever the lid with spoon number {i}.", f"Wrap band {i} around the jar for grip."
    lp = (lambda x: x) if logprobs else (lambda x: None)
    step = {"step": 1, "greedy": None, "chosen": a,
            "candidates": [_candidate(a, lp(-1.0 - i / 10), 2), _candidate(b, lp(-2.0), 3)]}
    verdict = {"verdicts": {"feasibility": True, "safety": safety},
               "overall": (1.0 + (0.0 if safety is None else float(safety))) / (1 if safety is None else 2),
               "parse_failures": [], "usage": {}, "total_usage": {}}
    return Record(key=f"macgyver-{i}", status="ok", unit={"id": str(i)},
                  output={"steps": [step], "solution_steps": [a], "solution": a,
                          "stop_reason": "max_steps", "logprobs": "model" if logprobs else "none",
                          "verdicts": {"multiagent": verdict} if judged else {}})


def _options() -> SimpleNamespace:
    return SimpleNamespace(entailment="embedding:0.95", partition_mode="strict", entailment_lookup="lazy",
                           diversity_embedder="minilm", single_candidate="zero")


def _plain_mean(values: list[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept)


def test_per_item_means_are_the_headline_and_an_always_yes_criterion_is_flagged() -> None:
    records = [_record(i, safety=[True, False, None][i % 3]) for i in range(11)]
    records.append(_record(11, safety=True, judged=False, logprobs=False))
    scores = score_openended(records, _options(), domain="macgyver")
    assert set(scores.per_item) == {"semantic_entropy", "multiagent_overall"}
    for key, values in scores.per_item.items():
        assert len(values) == 12
        assert _plain_mean(values) == pytest.approx(scores.headline[key])
    # the unjudged solution, and the one without log-probabilities, have no value
    assert scores.per_item["multiagent_overall"][11] is None
    assert scores.per_item["semantic_entropy"][11] is None
    (check,) = scores.judge_checks
    assert check.check == "no_variance" and check.items == 11
    assert check.judge == "multiagent judge (macgyver; verdicts 1 = YES, 0 = NO)"
    assert check.detail == "feasibility was 1 on all 11 judgements (sd 0)"


def test_fewer_than_ten_verdicts_are_not_flagged() -> None:
    records = [_record(i, safety=True) for i in range(9)]
    assert score_openended(records, _options(), domain="macgyver").judge_checks == []
