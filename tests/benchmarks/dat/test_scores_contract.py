"""DAT's per_item: the scored trials whose mean is dat_mean (invalid trials left out)."""

from __future__ import annotations

from creval.benchmarks.base import get_benchmark
from creval.benchmarks.dat.scoring import DATScorer
from tests.benchmarks.scores_contract import assert_per_item_means

GOOD = "1. cat\n2. volcano\n3. spoon\n4. democracy\n5. glacier\n6. violin\n7. tax\n8. pepper\n9. comet\n10. sock"
OTHER = "1. dog\n2. piano\n3. ocean\n4. shoe\n5. fire\n6. book\n7. moon\n8. tree\n9. salt\n10. bridge"


def test_dat_mean_is_the_mean_of_the_valid_trials() -> None:
    bench = get_benchmark("dat")
    options = bench.parse_options({})
    scores = DATScorer.from_options(options).score_answers(  # type: ignore[arg-type]
        [("trial-0", GOOD), ("trial-1", "Default output"), ("trial-2", OTHER)])
    assert scores.headline["valid_trials"] == 2 and scores.headline["invalid_trials"] == 1
    assert len(scores.per_item["dat_mean"]) == 2
    assert_per_item_means(scores)
