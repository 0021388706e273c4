"""The ``hf:`` entailment backend on tiny NLI classifiers built and saved inside the tests,
loaded by path through ``get_entailment("hf:...")`` exactly as a hub model would be."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from creval.errors import CrevalError  # noqa: E402
from creval.nli import LABELS, Entailment, NLIResult, get_entailment  # noqa: E402
from creval.nli.hf import DEFAULT_NLI_MODEL, HFEntailment  # noqa: E402
from nli.tiny_nli import SENTENCES, save_tiny_nli  # noqa: E402

# Upper-case names in an order unlike tasksource's (entailment, neutral, contradiction).
BERT_LABELS = {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}
DEBERTA_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}
INDEX = {
    "bert": {"contradiction": 0, "entailment": 1, "neutral": 2},
    "deberta": {"entailment": 0, "neutral": 1, "contradiction": 2},
}
PAIRS = [(a, b) for a in SENTENCES[:4] for b in SENTENCES] + [
    ("the cat", "an animal is sleeping on the warm mat today and nobody is outside"),
]


@pytest.fixture(scope="module", params=["bert", "deberta"])
def tiny(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    arch = str(request.param)
    labels = BERT_LABELS if arch == "bert" else DEBERTA_LABELS
    return arch, save_tiny_nli(tmp_path_factory.mktemp(arch), labels, architecture=arch)


def _classify(nli: Entailment, pairs: list[tuple[str, str]]) -> list[NLIResult]:
    return asyncio.run(nli.classify(pairs))


def _reference_probabilities(path: Path, pairs: list[tuple[str, str]]) -> list[list[float]]:
    """Softmax of the raw logits, one pair at a time, straight from transformers."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path).eval()
    rows = []
    with torch.no_grad():
        for premise, hypothesis in pairs:
            enc = tokenizer(premise, hypothesis, return_tensors="pt")
            rows.append(torch.softmax(model(**enc).logits[0], dim=-1).tolist())
    return rows


def test_results_have_one_label_and_three_probabilities_per_pair(tiny: tuple[str, Path]) -> None:
    _, path = tiny
    nli = get_entailment(f"hf:{path}")
    assert isinstance(nli, HFEntailment) and isinstance(nli, Entailment)
    results = _classify(nli, PAIRS)
    assert len(results) == len(PAIRS)
    for r in results:
        assert r.probabilities is not None and set(r.probabilities) == set(LABELS)
        assert sum(r.probabilities.values()) == pytest.approx(1.0, abs=1e-5)
        assert r.label == max(r.probabilities, key=r.probabilities.__getitem__)
        assert not r.approximate and not r.failed
    assert len({r.label for r in results}) > 1, "the tiny model should not be constant"
    assert _classify(nli, []) == []


def test_labels_follow_config_id2label(tiny: tuple[str, Path]) -> None:
    arch, path = tiny
    results = _classify(get_entailment(f"hf:{path}"), PAIRS)
    reference = _reference_probabilities(path, PAIRS)
    for r, ref in zip(results, reference, strict=True):
        assert r.probabilities is not None
        for label, index in INDEX[arch].items():
            assert r.probabilities[label] == pytest.approx(ref[index], abs=1e-5)


def test_deterministic_and_batch_size_does_not_matter(tiny: tuple[str, Path]) -> None:
    _, path = tiny
    first = _classify(get_entailment(f"hf:{path}", batch_size=16), PAIRS)
    again = _classify(get_entailment(f"hf:{path}", batch_size=16), PAIRS)
    assert first == again
    ones = _classify(get_entailment(f"hf:{path}", batch_size=1), PAIRS)
    threes = _classify(get_entailment(f"hf:{path}", batch_size=3), PAIRS)
    for batched, *others in zip(first, ones, threes, strict=True):
        for other in others:
            assert other.label == batched.label
            assert other.probabilities is not None and batched.probabilities is not None
            for label in LABELS:
                assert other.probabilities[label] == pytest.approx(
                    batched.probabilities[label], abs=1e-5
                )


def test_identity_names_labels_and_fingerprints_the_directory(tiny: tuple[str, Path]) -> None:
    arch, path = tiny
    identity = get_entailment(f"hf:{path}").identity()
    assert identity["backend"] == "hf" and identity["model"] == str(path)
    assert identity["labels"] == {str(i): lab for lab, i in INDEX[arch].items()}
    assert len(identity["config_sha256"]) == 64
    assert identity["weights"]


def test_generic_label_names_need_a_label_map(tmp_path: Path) -> None:
    path = save_tiny_nli(tmp_path, {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(CrevalError, match=r"cannot tell what output 0 \('LABEL_0'\).*label_map"):
        _classify(get_entailment(f"hf:{path}"), PAIRS[:1])
    mapping = {"LABEL_0": "neutral", "LABEL_1": "contradiction", "LABEL_2": "entailment"}
    nli = get_entailment(f"hf:{path}", label_map=mapping)
    (result,) = _classify(nli, PAIRS[:1])
    (ref,) = _reference_probabilities(path, PAIRS[:1])
    assert result.probabilities is not None
    assert result.probabilities["entailment"] == pytest.approx(ref[2], abs=1e-5)
    assert result.probabilities["neutral"] == pytest.approx(ref[0], abs=1e-5)
    with pytest.raises(CrevalError, match="label_map"):
        _classify(get_entailment(f"hf:{path}", label_map={"LABEL_0": "yes"}), PAIRS[:1])


def test_binary_models_count_not_entailment_as_neutral(tmp_path: Path) -> None:
    path = save_tiny_nli(tmp_path, {0: "entailment", 1: "not_entailment"})
    results = _classify(get_entailment(f"hf:{path}"), PAIRS)
    reference = _reference_probabilities(path, PAIRS)
    for r, ref in zip(results, reference, strict=True):
        assert r.probabilities is not None
        assert r.probabilities["contradiction"] == 0.0
        assert r.probabilities["neutral"] == pytest.approx(ref[1], abs=1e-5)
        assert r.label in ("entailment", "neutral")


def test_unknown_label_names_are_refused(tmp_path: Path) -> None:
    path = save_tiny_nli(tmp_path, {0: "positive", 1: "negative"})
    with pytest.raises(CrevalError, match="'positive'"):
        _classify(get_entailment(f"hf:{path}"), PAIRS[:1])
    path2 = save_tiny_nli(tmp_path / "n", {0: "neutral", 1: "contradiction"})
    with pytest.raises(CrevalError, match="no output means entailment"):
        _classify(get_entailment(f"hf:{path2}"), PAIRS[:1])


def test_missing_model_and_bad_inputs(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="cannot load the tokenizer.*save_pretrained"):
        _classify(get_entailment(f"hf:{tmp_path / 'absent'}"), PAIRS[:1])
    with pytest.raises(CrevalError, match="pair 0 must be"):
        _classify(get_entailment(f"hf:{tmp_path}"), [("only one",)])  # type: ignore[list-item]
    with pytest.raises(CrevalError, match="batch_size"):
        get_entailment("hf", batch_size=0)


def test_default_model_is_the_papers_and_nothing_loads_early() -> None:
    nli: Any = get_entailment("hf")
    assert nli.name == DEFAULT_NLI_MODEL == "tasksource/deberta-base-long-nli"
    assert nli.spec == "hf:tasksource/deberta-base-long-nli"
    assert not nli.loaded


def test_partition_texts_with_the_hf_model_matches_the_pure_function(tiny: tuple[str, Path]) -> None:
    from creval.metrics.partition import partition
    from creval.nli import CachingEntailment, partition_texts

    _, path = tiny
    texts = SENTENCES + SENTENCES[:2]
    all_pairs = [(a, b) for a in SENTENCES for b in SENTENCES if a != b]
    labels = {p: r.label for p, r in zip(all_pairs, _classify(get_entailment(f"hf:{path}"), all_pairs), strict=True)}
    for mode in ("strict", "lenient"):
        cache = CachingEntailment(get_entailment(f"hf:{path}", batch_size=4))
        got = asyncio.run(partition_texts(texts, cache, mode=mode))
        assert got == partition(texts, labels, mode=mode)
        assert cache.calls == got.entailment_calls <= len(texts) * (len(texts) - 1)
