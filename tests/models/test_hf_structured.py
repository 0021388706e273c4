"""Constrained decoding in the ``hf`` backend (llguidance), on a tiny random Llama with a
byte-level BPE tokenizer (so that any JSON can be spelled), built and saved inside the test
and loaded by path through ``get_model`` as a hub model would be."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("llguidance")

import jsonschema  # noqa: E402

from creval.judges.criteria import parse_binary, parse_confidence  # noqa: E402
from creval.judges.structured import as_text, render_verdict, rubric_schema, verdict_schema  # noqa: E402
from creval.models import GenerateRequest, ModelError, get_model  # noqa: E402
from creval.models.hf import HFModel  # noqa: E402

TEXTS = [
    '{"verdict": "YES", "confidence": "0.8"}',
    "Fluency: 4\nOriginality: 2",
    "the cat sat on the mat and the dog ran in the park",
    "Verdict: [[NO]] [[0.3]]",
]
TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def _save_tiny_llama(path: Path) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["[BOS]", "[EOS]", "[PAD]", "<|user|>", "<|assistant|>", "<|system|>"],
    )
    tok.train_from_iterator(TEXTS, trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="[BOS]", eos_token="[EOS]",
                                        pad_token="[PAD]")  # fmt: skip
    tokenizer.chat_template = TEMPLATE
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=256,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def models_bpe(tmp_path_factory: pytest.TempPathFactory) -> HFModel:
    model = get_model("hf:" + str(_save_tiny_llama(tmp_path_factory.mktemp("tiny-bpe-llama"))))
    assert isinstance(model, HFModel)
    return model


def _ask(model: HFModel, request: GenerateRequest) -> list[str]:
    return [c.text for c in asyncio.run(model.generate(request))]


def _valid(text: str, schema: dict[str, Any]) -> bool:
    try:
        jsonschema.validate(json.loads(text), schema)
    except (ValueError, jsonschema.ValidationError):
        return False
    return True


def test_capability_is_declared_when_llguidance_is_installed(models_bpe: HFModel) -> None:
    assert models_bpe.capabilities.structured_output


def test_greedy_answer_is_valid_for_the_schema_only_when_constrained(models_bpe: HFModel) -> None:
    schema = verdict_schema(confidence=True)
    free = GenerateRequest.chat("Is this creative? the cat sat", temperature=0.0, max_tokens=40)
    (text,) = _ask(models_bpe, free)
    assert not _valid(text, schema)  # a random model writes no JSON of its own
    (shaped,) = _ask(models_bpe, free.model_copy(update={"response_schema": schema}))
    assert _valid(shaped, schema), shaped
    # the judges' strict parsers read the rendered answer as they read a free one
    rendered = as_text(shaped, render_verdict)
    verdict, error = parse_binary(rendered)
    confidence, conf_error = parse_confidence(rendered)
    assert error is None and conf_error is None
    assert verdict == (json.loads(shaped)["verdict"] == "YES")
    assert confidence == float(json.loads(shaped)["confidence"])


def test_sampled_answers_with_free_text_fields_are_valid(models_bpe: HFModel) -> None:
    schema = verdict_schema(reasoning=True, reasoning_chars=24)
    request = GenerateRequest.chat("Judge this.", temperature=1.0, n=3, seed=5, max_tokens=96,
                                   response_schema=schema)  # fmt: skip
    texts = _ask(models_bpe, request)
    assert len(texts) == 3
    assert all(_valid(t, schema) for t in texts), texts
    assert len(set(texts)) > 1  # still sampled: the constraint masks, it does not choose
    free = _ask(models_bpe, request.model_copy(update={"response_schema": None}))
    assert not any(_valid(t, schema) for t in free)


def test_rubric_schema_and_grammar_reuse(models_bpe: HFModel) -> None:
    schema = rubric_schema(["Fluency", "Originality"])
    request = GenerateRequest.chat("Rate it.", temperature=0.7, seed=1, max_tokens=40, response_schema=schema)
    first = _ask(models_bpe, request)
    assert _valid(first[0], schema), first
    assert _ask(models_bpe, request) == first  # seeded: the same answer again


def test_answer_cut_by_max_tokens_is_left_unparseable(models_bpe: HFModel) -> None:
    request = GenerateRequest.chat("Judge.", temperature=0.0, max_tokens=3,
                                   response_schema=verdict_schema())  # fmt: skip
    (text,) = _ask(models_bpe, request)
    assert text.startswith("{") and not _valid(text, verdict_schema())


def test_unusable_schema_is_a_model_error(models_bpe: HFModel) -> None:
    request = GenerateRequest.chat("x", max_tokens=4, response_schema={"type": "no-such-type"})
    with pytest.raises(ModelError, match="schema"):
        _ask(models_bpe, request)
