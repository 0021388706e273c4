"""The ``similarity`` backend (NoveltyBench's same/different classifier) on a tiny DeBERTa-v2
classifier built and saved inside the tests, loaded by path through ``get_entailment``
exactly as the hub model would be, and held against the paper's procedure written out here
pair by pair (one unpadded input, no attention mask, as its ``src/partition.py``)."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from creval.errors import CrevalError  # noqa: E402
from creval.metrics.partition import partition  # noqa: E402
from creval.nli import get_entailment, partition_texts  # noqa: E402
from creval.nli.similarity import SimilarityEntailment, short_text_verdict  # noqa: E402
from nli.tiny_nli import build_tokenizer  # noqa: E402

LONG = [
    "a cat sleeps on the warm mat and nobody is outside today",
    "an animal is sleeping on the mat while the dog runs in the park",
    "she ties the rope to the branch and climbs up the tree",
    "use the rope to climb the tree and then boil the water",
    "boil the water with the kettle while the cat sleeps on the mat",
    "the dog runs in the park and nobody is outside today",
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised two-output DeBERTa-v2 classifier and its tokenizer."""
    import torch
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

    path = tmp_path_factory.mktemp("similarity")
    tokenizer = build_tokenizer()
    config = DebertaV2Config(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=300, type_vocab_size=2,
        initializer_range=1.0, num_labels=2, pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(3)
    DebertaV2ForSequenceClassification(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@functools.cache
def _loaded(path: Path) -> tuple[Any, Any]:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    return AutoTokenizer.from_pretrained(path), AutoModelForSequenceClassification.from_pretrained(path).eval()


def paper_score(path: Path, s1: str, s2: str) -> float:
    """The probability of "same", computed as NoveltyBench's classifier_score does."""
    import torch

    tokenizer, model = _loaded(path)
    input_ids = [tokenizer.cls_token_id]
    for s in (s1, s2):
        input_ids.extend(tokenizer.encode(s, truncation=True, max_length=128, add_special_tokens=False))
        input_ids.append(tokenizer.sep_token_id)
    prompt_len = input_ids.index(tokenizer.sep_token_id) + 1
    token_type_ids = [0] * prompt_len + [1] * (len(input_ids) - prompt_len)
    with torch.no_grad():
        out = model(input_ids=torch.tensor([input_ids]), token_type_ids=torch.tensor([token_type_ids]))
    return float(out.logits.softmax(-1)[0, 1])


def _classify(backend: Any, pairs: list[tuple[str, str]]) -> list[Any]:
    return list(asyncio.run(backend.classify(pairs)))


def test_scores_are_the_papers_single_pair_scores_batched_and_padded(tiny: Path) -> None:
    pairs = [(a, b) for a in LONG for b in LONG if a < b]
    backend = get_entailment(f"similarity:{tiny}", batch_size=4)
    results = _classify(backend, pairs)
    for (a, b), result in zip(pairs, results, strict=True):
        assert result.score == pytest.approx(paper_score(tiny, a, b), abs=1e-5)
        assert result.label == ("entailment" if result.score > 0.102 else "neutral")
        assert result.approximate and result.label != "contradiction"


def test_the_verdict_is_symmetric_and_scored_in_the_order_first_asked(tiny: Path) -> None:
    a, b = LONG[0], LONG[3]
    forward = _classify(SimilarityEntailment(str(tiny)), [(a, b), (b, a)])
    assert forward[0] == forward[1]
    assert forward[0].score == pytest.approx(paper_score(tiny, a, b), abs=1e-5)
    backward = _classify(SimilarityEntailment(str(tiny)), [(b, a)])
    assert backward[0].score == pytest.approx(paper_score(tiny, b, a), abs=1e-5)
    assert backward[0].score != pytest.approx(forward[0].score, abs=1e-6)  # the order matters


def test_the_threshold_decides_same_above_it(tiny: Path) -> None:
    pairs = [(a, b) for a in LONG for b in LONG if a < b]
    scores = sorted(r.score for r in _classify(SimilarityEntailment(str(tiny)), pairs))
    labels = [r.label for r in _classify(SimilarityEntailment(str(tiny), threshold=scores[7]), pairs)]
    assert len(set(scores)) == len(pairs) == 15
    assert labels.count("entailment") == 7  # strictly above the threshold, as the paper's ">"


def test_short_texts_follow_the_papers_word_rule_without_the_model(tiny: Path) -> None:
    backend = SimilarityEntailment(str(tiny))
    results = _classify(backend, [("the cat", "a cat"), ("blue", "red"), ("Paris", "paris")])
    assert [r.label for r in results] == ["entailment", "neutral", "entailment"]
    assert all(r.score is None and r.raw for r in results)
    assert backend._model is None  # nothing needed the model
    assert short_text_verdict("one two three", "one four five six") is False  # 2 * 1 < 4


def test_partition_equals_the_papers_greedy_loop(tiny: Path) -> None:
    texts = LONG + [LONG[1], "the cat", "a cat"]
    ours = asyncio.run(partition_texts(texts, get_entailment(f"similarity:{tiny}")))

    def same(a: str, b: str) -> bool:
        rule = short_text_verdict(a, b)
        return rule if rule is not None else paper_score(tiny, a, b) > 0.102

    expected: list[int] = [-1] * len(texts)
    classes = 0
    for i in range(len(texts)):
        if expected[i] >= 0:
            continue
        expected[i] = classes
        for j in range(i + 1, len(texts)):
            if expected[j] == -1 and (texts[j] == texts[i] or same(texts[i], texts[j])):
                expected[j] = classes
        classes += 1
    assert list(ours.class_ids) == expected
    assert 1 < ours.n_classes < len(texts)
    assert partition(texts, lambda a, b: "entailment" if same(*sorted((a, b), key=texts.index))
                     else "neutral").class_ids == ours.class_ids


def test_spec_identity_and_errors(tiny: Path, tmp_path: Path) -> None:
    backend = get_entailment(f"similarity:{tiny}")
    identity = backend.identity()
    assert identity["backend"] == "similarity" and identity["threshold"] == 0.102
    assert identity["tokenizer"] == str(tiny) and identity["max_tokens_per_text"] == 128
    assert get_entailment("similarity").spec == "similarity"
    with pytest.raises(CrevalError, match="cannot load"):
        _classify(get_entailment(f"similarity:{tmp_path / 'absent'}"), [(LONG[0], LONG[1])])
    with pytest.raises(CrevalError, match="threshold"):
        SimilarityEntailment(str(tiny), threshold=1.5)
