"""The ``hf`` backend on a tiny Llama built and saved inside the test, loaded by path through
``get_model("hf:...")`` exactly as a hub model would be."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from creval.errors import CrevalError  # noqa: E402
from creval.models import Completion, GenerateRequest, ModelError, get_model  # noqa: E402
from creval.models.hf import HFModel  # noqa: E402
from creval.models.prompt_scoring import PromptRequest  # noqa: E402

SENTENCES = [
    "the cat sat on the mat",
    "a dog ran in the park",
    "birds sing in the morning",
    "rain falls on the old roof",
    "the sun is warm today",
    "we walk to the river at night",
]
SPECIALS = ["[PAD]", "[UNK]", "[BOS]", "[EOS]", "<|user|>", "<|assistant|>", "<|system|>"]
TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def _tokenizer(chat_template: str | None) -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(SENTENCES, trainers.WordLevelTrainer(special_tokens=SPECIALS))
    tok.decoder = decoders.WordPiece()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="[BOS]", eos_token="[EOS]", pad_token="[PAD]", unk_token="[UNK]"
    )
    fast.chat_template = chat_template
    return fast


def _save_tiny_llama(path: Path, *, chat_template: str | None = TEMPLATE) -> Path:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = _tokenizer(chat_template)
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=128,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    with torch.no_grad():  # a less flat next-token distribution than the default init
        model.lm_head.weight.mul_(40.0)
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def models_tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _save_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="module")
def models_tiny(models_tiny_dir: Path) -> HFModel:
    model = get_model("hf:" + str(models_tiny_dir))
    assert isinstance(model, HFModel)
    return model


def _generate(model: HFModel, request: GenerateRequest) -> list[Completion]:
    return asyncio.run(model.generate(request))


def test_identity_fingerprints_the_directory_without_loading_the_model(models_tiny_dir: Path) -> None:
    model = get_model("hf:" + str(models_tiny_dir))
    ident = model.identity()
    assert not model.loaded  # type: ignore[attr-defined]
    assert ident["provider"] == "hf" and ident["model"] == str(models_tiny_dir)
    assert ident["prompt_format"] == "chat_template"
    assert len(ident["config_sha256"]) == 64
    assert ident["weights"] == {"model.safetensors": (models_tiny_dir / "model.safetensors").stat().st_size}
    assert ident == get_model("hf:" + str(models_tiny_dir)).identity()


def test_identity_changes_with_the_config(models_tiny_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(models_tiny_dir, copy)
    same = get_model(f"hf:{copy}").identity()
    base = get_model(f"hf:{models_tiny_dir}").identity()
    assert same["config_sha256"] == base["config_sha256"] and same["weights"] == base["weights"]
    config = json.loads((copy / "config.json").read_text())
    config["rms_norm_eps"] = 1e-5 if config.get("rms_norm_eps") != 1e-5 else 1e-6
    (copy / "config.json").write_text(json.dumps(config))
    assert get_model(f"hf:{copy}").identity()["config_sha256"] != base["config_sha256"]


@pytest.mark.slow
def test_n_samples_with_logprobs(models_tiny: HFModel) -> None:
    request = GenerateRequest.chat("the cat sat", n=3, seed=1, max_tokens=8, logprobs=True, top_logprobs=2)
    completions = _generate(models_tiny, request)
    assert len(completions) == 3
    assert completions[0].usage.input_tokens == 6  # [BOS] <|user|> the cat sat <|assistant|>
    # each sample is its own seeded call, so each one processed (and counts) the prompt
    assert [c.usage.input_tokens for c in completions[1:]] == [6, 6]
    for c in completions:
        assert c.tokens is not None
        assert len(c.tokens) == c.usage.output_tokens
        words = "".join(t.token for t in c.tokens).split()
        assert [w for w in words if w not in SPECIALS] == c.text.split()
        assert c.finish_reason in {"stop", "length"}
        if c.finish_reason == "length":
            assert c.usage.output_tokens == 8
        assert all(t.logprob < 0 for t in c.tokens)
        for t in c.tokens:
            assert t.top is not None and len(t.top) == 2
            assert max(t.top.values()) >= t.logprob - 1e-6
    assert len({c.text for c in completions}) > 1


@pytest.mark.slow
def test_seeds_reproduce_samples(models_tiny: HFModel) -> None:
    request = GenerateRequest.chat("a dog ran", n=2, seed=42, max_tokens=10)
    a = _generate(models_tiny, request)
    b = _generate(models_tiny, request)
    assert [c.text for c in a] == [c.text for c in b]
    assert all(c.tokens is None for c in a)
    c = _generate(models_tiny, request.with_n(2, seed=43))
    assert [x.text for x in c] != [x.text for x in a]
    # sample i is the same alone or in a batch: seed 43 alone is sample 1 of seed 42
    assert c[0].text == a[1].text
    (alone,) = _generate(models_tiny, request.with_n(1, seed=43))
    assert alone.text == a[1].text


@pytest.mark.slow
def test_greedy_samples_are_the_argmax(models_tiny: HFModel) -> None:
    request = GenerateRequest.chat("rain falls", n=2, temperature=0.0, max_tokens=6, logprobs=True, top_logprobs=1)
    first, second = _generate(models_tiny, request)
    assert first.text == second.text
    assert first.tokens is not None
    for t in first.tokens:
        assert t.top is not None
        assert t.logprob == pytest.approx(max(t.top.values()), abs=1e-5)


@pytest.mark.slow
def test_stop_strings_truncate(models_tiny: HFModel) -> None:
    base = GenerateRequest.chat("the sun", seed=7, max_tokens=12, logprobs=True)
    (full,) = _generate(models_tiny, base)
    words = full.text.split()
    assert len(words) >= 4, full.text
    stop = " " + words[2]
    cut = full.text.index(stop)
    (stopped,) = _generate(models_tiny, base.model_copy(update={"stop": (stop, "never-seen")}))
    assert stopped.text == full.text[:cut]
    assert stopped.finish_reason == "stop"
    assert stopped.tokens is not None and len(stopped.tokens) == stopped.usage.output_tokens
    assert stopped.usage.output_tokens < full.usage.output_tokens


@pytest.mark.slow
def test_eos_ends_a_sample_and_is_not_counted(models_tiny_dir: Path, tmp_path: Path) -> None:
    request = GenerateRequest.chat("birds sing", temperature=0.0, max_tokens=8, logprobs=True)
    (full,) = _generate(get_model(f"hf:{models_tiny_dir}"), request)  # type: ignore[arg-type]
    assert full.tokens is not None and len(full.tokens) == 8
    # make the third generated token an end-of-sequence token of a copy of the model
    stop_token = full.tokens[2].token.strip()
    assert stop_token not in [t.token.strip() for t in full.tokens[:2]]
    copy = tmp_path / "eos"
    shutil.copytree(models_tiny_dir, copy)
    tokenizer = _tokenizer(TEMPLATE)
    gen = json.loads((copy / "generation_config.json").read_text())
    gen["eos_token_id"] = [tokenizer.eos_token_id, tokenizer.convert_tokens_to_ids(stop_token)]
    (copy / "generation_config.json").write_text(json.dumps(gen))
    (ended,) = _generate(get_model(f"hf:{copy}"), request)  # type: ignore[arg-type]
    assert ended.finish_reason == "stop"
    assert ended.usage.output_tokens == 2
    assert ended.tokens is not None and [t.token for t in ended.tokens] == [t.token for t in full.tokens[:2]]


@pytest.mark.slow
def test_prompt_logprobs(models_tiny: HFModel) -> None:
    scores = asyncio.run(models_tiny.prompt_logprobs(PromptRequest(text="the cat sat on the mat"))).tokens
    assert [t.token for t in scores] == [" cat", " sat", " on", " the", " mat"]
    assert all(t.logprob < 0 for t in scores)
    assert models_tiny.capabilities.prompt_logprobs


@pytest.mark.slow
def test_a_tokenizer_without_chat_template_gets_a_plain_prompt(tmp_path: Path) -> None:
    path = _save_tiny_llama(tmp_path / "plain", chat_template=None)
    model = get_model(f"hf:{path}")
    assert model.identity()["prompt_format"] == "plain (no chat template)"
    (c,) = _generate(model, GenerateRequest.chat("the cat", max_tokens=3, seed=0))  # type: ignore[arg-type]
    plain = _tokenizer(None)("user: the cat\nassistant:")["input_ids"]
    assert c.usage.input_tokens == len(plain) == 6  # user : the cat assistant :
    assert c.usage.output_tokens == 3 or c.finish_reason == "stop"


def test_bad_specs(tmp_path: Path) -> None:
    with pytest.raises(CrevalError):
        get_model("hf")
    model = get_model(f"hf:{tmp_path / 'nothing-here'}")
    with pytest.raises(ModelError, match="cannot load"):
        model.identity()
    caps = model.capabilities
    assert (caps.logprobs, caps.n, caps.images, caps.seed) == (True, True, False, True)
    assert model.max_concurrency == 1


@pytest.mark.slow
def test_the_models_generation_config_does_not_change_sampling(models_tiny_dir: Path, tmp_path: Path) -> None:
    request = GenerateRequest.chat("we walk", n=2, seed=3, max_tokens=10, logprobs=True)
    base = _generate(get_model(f"hf:{models_tiny_dir}"), request)  # type: ignore[arg-type]
    copy = tmp_path / "opinionated"
    shutil.copytree(models_tiny_dir, copy)
    gen = json.loads((copy / "generation_config.json").read_text())
    gen.update(do_sample=True, temperature=0.2, top_k=2, top_p=0.5, min_p=0.3, typical_p=0.4,
               repetition_penalty=1.8, no_repeat_ngram_size=1)
    (copy / "generation_config.json").write_text(json.dumps(gen))
    other = _generate(get_model(f"hf:{copy}"), request)  # type: ignore[arg-type]
    assert [c.text for c in other] == [c.text for c in base]
    assert [c.logprob_sum for c in other] == pytest.approx([c.logprob_sum for c in base])


@pytest.mark.slow
def test_prompt_logprobs_in_windows_match_direct_forward_passes(models_tiny: HFModel) -> None:
    """Each token is scored once, in the window the sliding-window arithmetic gives it, with
    the log-softmax of a forward pass over just that window (computed here with torch)."""
    import torch

    from creval.metrics.perplexity import sliding_windows

    text = "the cat sat on the mat and the dog lay by the door while the bird sang on the roof"
    whole = asyncio.run(models_tiny.prompt_logprobs(PromptRequest(text=text)))
    windowed = asyncio.run(models_tiny.prompt_logprobs(PromptRequest(text=text, window=6, stride=2)))
    tokenizer, model = models_tiny._load()
    ids = tokenizer(text, add_special_tokens=True)["input_ids"]
    windows = sliding_windows(len(ids), window=6, stride=2)
    assert (windowed.window, windowed.stride, windowed.windows) == (6, 2, len(windows)) and len(windows) > 3
    assert windowed.usage.input_tokens == sum(w.end - w.start for w in windows)
    assert [t.token for t in windowed.tokens] == [t.token for t in whole.tokens]
    expected = []
    for w in windows:
        with torch.inference_mode():
            logits = model(input_ids=torch.tensor([ids[w.start : w.end]])).logits[0].float()
        logprobs = torch.log_softmax(logits, dim=-1)
        expected += [float(logprobs[p - w.start - 1, ids[p]]) for p in range(w.first, w.end)]
    assert [t.logprob for t in windowed.tokens] == pytest.approx(expected, abs=1e-5)
    # the first window's tokens have the same context as in one pass; later ones less
    assert [t.logprob for t in windowed.tokens[:5]] == pytest.approx([t.logprob for t in whole.tokens[:5]], abs=1e-5)
    assert [t.logprob for t in windowed.tokens] != pytest.approx([t.logprob for t in whole.tokens], abs=1e-3)
    assert whole.window is not None and whole.windows == 1  # fits the model's context


@pytest.mark.slow
def test_prompt_logprobs_window_larger_than_the_context_is_a_model_error(models_tiny: HFModel) -> None:
    context = models_tiny._load()[1].config.max_position_embeddings
    with pytest.raises(ModelError, match="exceeds the model's context"):
        asyncio.run(models_tiny.prompt_logprobs(PromptRequest(text="the cat", window=context + 1)))
