"""The partitioner-agreement table on NoveltyBench's published generations (read in place from
../shared/data), checked against partitions and adjusted Rand indices computed here
independently (the greedy loop written out, scikit-learn's ARI)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tests_paths import shared_data_path

from creval.analyses.noveltybench_partitioners import (
    agreement_markdown,
    partitioner_agreement,
    published_models,
    read_published,
)
from creval.errors import CrevalError
from creval.nli import NLIResult, get_entailment

MODELS = ("gpt-4o-2024-11-20", "gemma-2-9b-it")
IDS = ["curated-0", "curated-1", "curated-2"]


@pytest.fixture(scope="module")
def published() -> dict[str, Any]:
    files = published_models(shared_data_path("noveltybench", "site"))
    return {m: read_published(files[m], ids=IDS) for m in MODELS}


class PublishedPartition:
    """Says "entailment" exactly when the published partition put two answers together (the
    paper's classifier replayed from its output, for the ARI = 1 check)."""

    spec = "published"

    def __init__(self, prompts: dict[str, Any]) -> None:
        self.cls = {g: (m, p.id, c) for m, ps in prompts.items() for p in ps
                    for g, c in zip(p.generations, p.partition, strict=True)}

    def identity(self) -> dict[str, Any]:
        return {"backend": "published"}

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        return [NLIResult(label="entailment" if self.cls[a] == self.cls[b] else "neutral")
                for a, b in pairs]


def test_reads_every_published_model_sorted_by_prompt_number() -> None:
    files = published_models(shared_data_path("noveltybench", "site"))
    assert len(files) == 8 and set(MODELS) <= set(files)
    prompts = read_published(files["gpt-4o-2024-11-20"])
    assert len(prompts) == 100 and [p.id for p in prompts[:3]] == IDS
    first = json.loads(files["gpt-4o-2024-11-20"].read_text().splitlines()[0])
    match = next(p for p in prompts if p.id == first["id"])
    assert list(match.generations) == first["generations"]
    assert list(match.partition) == first["partition"]


def test_replaying_the_published_partition_agrees_exactly(published: dict[str, Any]) -> None:
    frame = partitioner_agreement(published, {"published": PublishedPartition(published)})
    assert list(frame["model"]) == list(MODELS)
    assert list(frame["ari"]) == [1.0, 1.0] and list(frame["distinct_error"]) == [0.0, 0.0]
    assert list(frame["exact_distinct"]) == [1.0, 1.0] and list(frame["n_prompts"]) == [3, 3]
    expected = [sum(len(set(p.partition)) for p in published[m]) / 3 for m in MODELS]
    assert list(frame["classes_published"]) == pytest.approx(expected)


def _greedy(sims: Any, threshold: float) -> list[int]:
    """The paper's loop: each answer joins the first class whose first member is similar."""
    labels = [-1] * len(sims)
    for i in range(len(sims)):
        if labels[i] < 0:
            labels[i] = max(labels) + 1
            for j in range(i + 1, len(sims)):
                if labels[j] < 0 and sims[i][j] >= threshold:
                    labels[j] = labels[i]
    return labels


def test_embedding_partitioner_table_matches_an_independent_computation(published: dict[str, Any]) -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    from creval.embed import cosine_matrix, get_embedder

    embedder = get_embedder("minilm")
    frame = partitioner_agreement(
        published, {"embedding:0.7": get_entailment("embedding:0.7", embedder=embedder)}
    )
    for row in frame.to_dict("records"):
        aris, errors = [], []
        for item in published[row["model"]]:
            vectors = embedder.embed(list(item.generations))
            ours = _greedy(cosine_matrix(vectors, vectors).tolist(), 0.7)
            aris.append(sklearn_metrics.adjusted_rand_score(item.partition, ours))
            errors.append(len(set(ours)) - len(set(item.partition)))
        assert row["ari"] == pytest.approx(sum(aris) / 3, abs=1e-9)
        assert row["distinct_error"] == pytest.approx(sum(errors) / 3)
        assert row["exact_distinct"] == sum(e == 0 for e in errors) / 3
        assert row["ari_low"] is None or row["ari_low"] != row["ari_low"]  # 3 prompts: none
    table = agreement_markdown(frame)
    assert "| gemma-2-9b-it | `embedding:0.7` |" in table and table.count("\n") == 4


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="not a directory"):
        published_models(tmp_path / "absent")
    bad = tmp_path / "scores.jsonl"
    bad.write_text(json.dumps({"id": "x-1", "prompt": "p", "generations": ["a", "b"],
                               "partition": [0]}) + "\n")
    with pytest.raises(CrevalError, match="2 generations but 1 partition labels"):
        read_published(bad)
    with pytest.raises(CrevalError, match="at least one"):
        partitioner_agreement({}, {})


class Asymmetric:
    """A deterministic, one-directional judge (A entails B when they start with the same
    letter and B is at most 200 characters longer) that records the pairs asked and how many
    calls overlapped."""

    spec = "asymmetric"

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []
        self.in_flight = self.most_in_flight = 0

    def identity(self) -> dict[str, Any]:
        return {"backend": "asymmetric"}

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        import asyncio

        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        self.asked += pairs
        return [NLIResult(label="entailment" if len(a) + 200 >= len(b) and a[0].lower() == b[0].lower() else "neutral")
                for a, b in pairs]


def test_lazy_lookup_and_prompts_at_once_change_the_cost_not_the_partitions(published: dict[str, Any]) -> None:
    both, lazy = Asymmetric(), Asymmetric()
    frame_both = partitioner_agreement(published, {"j": both})
    frame_lazy = partitioner_agreement(published, {"j": lazy}, lookup="lazy", at_once=3)
    columns = ["ari", "distinct_error", "exact_distinct", "classes_ours"]
    assert frame_lazy[columns].equals(frame_both[columns])
    assert 1 < frame_lazy["classes_ours"].min() < frame_lazy["classes_ours"].max() < 10
    assert len(set(lazy.asked)) == len(lazy.asked) < len(both.asked)
    assert set(lazy.asked) <= set(both.asked)
    assert both.most_in_flight == 1 and lazy.most_in_flight > 1
    with pytest.raises(CrevalError, match="at_once must be at least 1"):
        partitioner_agreement(published, {"j": lazy}, at_once=0)
