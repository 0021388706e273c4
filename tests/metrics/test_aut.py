"""creval.metrics.aut: flexibility against scikit-learn's clustering, elaboration by hand."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import AgglomerativeClustering

from creval.metrics.aut import elaboration, flexibility


@pytest.mark.parametrize("threshold", [0.2, 0.5, 0.9])
def test_flexibility_is_the_number_of_average_linkage_clusters(threshold: float) -> None:
    rng = np.random.default_rng(4)
    centres = rng.normal(size=(3, 8))
    vectors = np.vstack([c + rng.normal(scale=0.3, size=(4, 8)) for c in centres])
    ref = AgglomerativeClustering(n_clusters=None, distance_threshold=threshold,
                                  metric="cosine", linkage="average").fit(vectors)
    assert flexibility(vectors, threshold=threshold) == ref.n_clusters_


def test_elaboration_and_bad_input() -> None:
    assert elaboration(["use it as a doorstop", "paperweight"]) == (5 + 1) / 2
    with pytest.raises(ValueError, match="zero vector"):
        flexibility([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="threshold"):
        flexibility([[1.0, 0.0]], threshold=2.5)
