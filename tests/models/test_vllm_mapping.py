"""The ``vllm:`` backend: the mapping everywhere, vLLM's own classes where vLLM imports, the
engine only where CUDA is.

Outputs are built as vLLM's own ``RequestOutput`` / ``CompletionOutput`` / ``Logprob`` when
``import vllm`` works, and otherwise as the small dataclasses below, which have exactly the
attributes the mapping reads (the names and meanings of vLLM's: ``Logprob.rank`` is 1 for the
most probable token, ``RequestOutput.prompt_logprobs`` starts with None). vLLM's wheels target
CUDA; the GPU stand-in :class:`SeedEcho` (an engine answering from each request's seed) runs
the backend's batching, seeding, greedy copies and Ray data parallelism here, where no real
vLLM engine can start.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib.util
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from creval.errors import CrevalError
from creval.models import GenerateRequest, ModelError, ModelOptions, get_model, providers
from creval.models.chat_prompt import chat_prompt_ids
from creval.models.prompt_scoring import PromptRequest
from creval.models.vllm import VLLMModel
from creval.models.vllm.engine import EnginePool, Tokens, split_jobs
from creval.models.vllm.mapping import (
    completions_from_output,
    parse_engine_spec,
    prompt_scoring_kwargs,
    prompt_token_logprobs,
    sampling_params_kwargs,
    structured_field,
    to_sampling_params,
)

try:  # vLLM's own classes where it installs
    from vllm.outputs import CompletionOutput, RequestOutput

    try:
        from vllm.logprobs import Logprob
    except ImportError:  # vLLM before 0.10.2
        from vllm.sequence import Logprob  # type: ignore[no-redef,attr-defined]
    HAVE_VLLM = True
except ImportError:
    HAVE_VLLM = False

    @dataclasses.dataclass
    class Logprob:  # type: ignore[no-redef]
        """``vllm.logprobs.Logprob``."""

        logprob: float
        rank: int | None = None
        decoded_token: str | None = None

    @dataclasses.dataclass
    class CompletionOutput:  # type: ignore[no-redef]
        """``vllm.outputs.CompletionOutput``."""

        index: int
        text: str
        token_ids: list[int]
        cumulative_logprob: float | None
        logprobs: list[dict[int, Logprob]] | None
        finish_reason: str | None = None
        stop_reason: int | str | None = None

    @dataclasses.dataclass
    class RequestOutput:  # type: ignore[no-redef]
        """``vllm.outputs.RequestOutput``."""

        request_id: str
        prompt: str | None
        prompt_token_ids: list[int] | None
        prompt_logprobs: list[dict[int, Logprob] | None] | None
        outputs: list[CompletionOutput]
        finished: bool


def _output(prompt: list[int], samples: list[CompletionOutput],
            prompt_logprobs: list[Any] | None = None) -> Any:
    return RequestOutput(request_id="r", prompt=None, prompt_token_ids=prompt,
                         prompt_logprobs=prompt_logprobs, outputs=samples, finished=True)


def _sample(text: str, ids: list[int], logprobs: list[dict[int, Any]] | None = None,
            finish: str = "stop") -> Any:
    return CompletionOutput(index=0, text=text, token_ids=ids, cumulative_logprob=None,
                            logprobs=logprobs, finish_reason=finish)


# -- the spec and the request -> SamplingParams arguments -----------------------------------------
def test_provider_registered_and_spec_settings_parsed() -> None:
    assert "vllm" in providers()
    model, engine = parse_engine_spec("/models/m,tp=2,dp=3,dtype=bfloat16,max_model_len=2048")
    assert model == "/models/m"
    assert engine == {"tensor_parallel_size": 2, "data_parallel_size": 3, "dtype": "bfloat16",
                      "max_model_len": 2048}


@pytest.mark.parametrize("name, says", [
    ("m,tpx=2", "not an engine setting"), ("m,tp", "not an engine setting"),
    ("m,tp=two", "tp takes a whole number"), (",tp=2", "needs a model"),
])
def test_bad_spec_settings_say_what_to_fix(name: str, says: str) -> None:
    with pytest.raises(CrevalError, match=says):
        get_model("vllm:" + name)


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vllm is installed here")
def test_without_vllm_the_error_gives_the_install_command() -> None:
    with pytest.raises(CrevalError, match=r"pip install 'creval\[vllm\]'"):
        get_model("vllm:Qwen/Qwen2.5-0.5B-Instruct")


def test_each_sample_is_its_own_request_with_seed_plus_i() -> None:
    request = GenerateRequest.chat("hi", n=3, seed=40, temperature=0.7, top_p=0.9, max_tokens=20,
                                   stop=("\n\n", "END"))
    kwargs = [sampling_params_kwargs(request, sample=i) for i in range(3)]
    assert [k["seed"] for k in kwargs] == [40, 41, 42]
    assert {k["n"] for k in kwargs} == {1}
    assert kwargs[0] == {"n": 1, "temperature": 0.7, "top_p": 0.9, "max_tokens": 20,
                         "stop": ["\n\n", "END"], "seed": 40, "logprobs": None}
    # a request without a seed still gets reproducible ones, as local and hf do
    assert [sampling_params_kwargs(GenerateRequest.chat("hi"), sample=i)["seed"] for i in (0, 1)] == [0, 1]
    assert sampling_params_kwargs(GenerateRequest.chat("hi"))["stop"] is None


def test_logprobs_and_top_alternatives_map_to_vllm_logprobs() -> None:
    assert sampling_params_kwargs(GenerateRequest.chat("hi", logprobs=True))["logprobs"] == 0
    assert sampling_params_kwargs(GenerateRequest.chat("hi", logprobs=True, top_logprobs=5))["logprobs"] == 5
    assert sampling_params_kwargs(GenerateRequest.chat("hi", top_logprobs=5))["logprobs"] is None
    assert prompt_scoring_kwargs() == {"n": 1, "temperature": 0.0, "max_tokens": 1, "prompt_logprobs": 0}


def test_a_schema_goes_in_the_field_the_installed_vllm_has() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    request = GenerateRequest.chat("hi", response_schema=schema)
    assert sampling_params_kwargs(request)["structured_outputs"] == {"json": schema}
    assert sampling_params_kwargs(request, structured="guided_decoding")["guided_decoding"] == {"json": schema}
    assert "structured_outputs" not in sampling_params_kwargs(GenerateRequest.chat("hi"))
    with pytest.raises(ModelError, match="without response_schema"):
        sampling_params_kwargs(request, structured=None)
    new, old = SimpleNamespace(StructuredOutputsParams=1, GuidedDecodingParams=1), SimpleNamespace(GuidedDecodingParams=1)
    assert structured_field(new) == "structured_outputs"
    assert structured_field(old) == "guided_decoding"
    assert structured_field(SimpleNamespace()) is None


# -- RequestOutput -> Completion -------------------------------------------------------------------
def test_completion_text_finish_usage_and_logprobs_with_top_alternatives() -> None:
    steps = [
        {5: Logprob(logprob=-0.1, rank=1, decoded_token="Hel"), 7: Logprob(logprob=-2.5, rank=2, decoded_token="Hi")},
        # the drawn token (rank 3) is outside the top 2: it is not an alternative
        {6: Logprob(logprob=-3.0, rank=3, decoded_token="lo"), 8: Logprob(logprob=-0.5, rank=1, decoded_token="p"),
         9: Logprob(logprob=-1.0, rank=2, decoded_token="y")},
    ]
    output = _output([1, 2, 3], [_sample("Hello", [5, 6], steps, finish="length")])
    request = GenerateRequest.chat("hi", logprobs=True, top_logprobs=2)
    (first,) = completions_from_output(output, request)
    assert first.text == "Hello" and first.finish_reason == "length"
    assert (first.usage.input_tokens, first.usage.output_tokens) == (3, 2)
    assert first.tokens is not None
    assert [(t.token, t.logprob) for t in first.tokens] == [("Hel", -0.1), ("lo", -3.0)]
    assert first.tokens[0].top == {"Hel": -0.1, "Hi": -2.5}
    assert first.tokens[1].top == {"p": -0.5, "y": -1.0}
    assert first.logprob_sum == pytest.approx(-3.1)
    # a later sample of the same call does not count the prompt again
    (later,) = completions_from_output(output, request, first=False)
    assert (later.usage.input_tokens, later.usage.output_tokens) == (0, 2)
    # top_logprobs 0: the drawn tokens only
    (bare,) = completions_from_output(output, GenerateRequest.chat("hi", logprobs=True))
    assert bare.tokens is not None and bare.tokens[0].top is None
    (plain,) = completions_from_output(output, GenerateRequest.chat("hi"))
    assert plain.tokens is None


def test_missing_logprobs_are_an_error_not_silence() -> None:
    output = _output([1], [_sample("x", [4], None)])
    with pytest.raises(ModelError, match="no log-probabilities"):
        completions_from_output(output, GenerateRequest.chat("hi", logprobs=True))


def test_prompt_logprobs_skip_the_first_token_and_check_alignment() -> None:
    positions = [None, {3: Logprob(logprob=-1.5, rank=4, decoded_token="b")},
                 {4: Logprob(logprob=-0.25, rank=1, decoded_token="c"), 9: Logprob(logprob=-3.0, rank=2)}]
    output = _output([2, 3, 4], [_sample("", [0])], positions)
    assert prompt_token_logprobs(output) == [-1.5, -0.25]
    with pytest.raises(ModelError, match="2 prompt log-probabilities for 3 tokens"):
        prompt_token_logprobs(_output([2, 3, 4], [_sample("", [0])], positions[:2]))


def test_chat_template_or_plain_prompt_as_token_ids() -> None:
    pytest.importorskip("transformers", reason="a real tokenizer comes from transformers")
    from tests.models.test_hf import TEMPLATE, _tokenizer

    request = GenerateRequest.chat("the cat", system="a dog")
    templated = _tokenizer(TEMPLATE)
    ids = chat_prompt_ids(templated, request)
    assert templated.decode(ids) == "[BOS] <|system|> a dog <|user|> the cat <|assistant|>"
    plain = _tokenizer(None)
    expected = plain.encode("system: a dog\nuser: the cat\nassistant:", add_special_tokens=True)
    assert chat_prompt_ids(plain, request) == expected
    tokens = Tokens(templated, 128)  # what the backend calls, here on the real tokenizer
    assert tokens.chat_ids(request) == ids
    text_ids = tokens.encode("the cat sat")
    assert "".join(tokens.pieces(text_ids)) == templated.decode(text_ids, skip_special_tokens=True) == "the cat sat"


def test_jobs_spread_over_engines_by_prompts() -> None:
    assert split_jobs([3, 3, 1, 1, 1, 1], 2) == [[0, 2, 4], [1, 3, 5]]
    assert split_jobs([2], 1) == [[0]]
    assert split_jobs([1, 1], 4) == [[0], [1], [], []]


# -- the backend around an engine ------------------------------------------------------------------
class EchoTokens:
    """:class:`creval.models.vllm.engine.Tokens` of :class:`SeedEcho`: token ids are
    character codes modulo 50, a token's piece its id."""

    def chat_ids(self, request: GenerateRequest) -> list[int]:
        return self.encode(" ".join(m.text() for m in request.messages))

    def encode(self, text: str) -> list[int]:
        return [ord(c) % 50 for c in text]

    def pieces(self, ids: list[int]) -> list[str]:
        return [str(i) for i in ids]

    def max_model_len(self) -> int:
        return 6


class SeedEcho:
    """A GPU stand-in with the engine interface of :class:`creval.models.vllm.engine.Engine`:
    it answers each request with its seed (``s<seed>``; ``greedy`` at temperature 0) and
    records its batches. A prompt token's log-probability is minus its id."""

    def __init__(self, model: str, engine_args: dict[str, Any]) -> None:
        if model == "broken":
            raise RuntimeError("No CUDA GPUs are available")
        self.batches: list[list[dict[str, Any]]] = []

    def tokens(self) -> EchoTokens:
        return EchoTokens()

    @staticmethod
    def driver_tokens(model: str, engine_args: dict[str, Any], max_model_len: int) -> EchoTokens:
        return EchoTokens()

    def max_model_len(self) -> int:
        return 6

    def generate(self, prompts: list[list[int]], kwargs: list[dict[str, Any]]) -> list[Any]:
        import os

        self.batches.append(kwargs)
        if any(kw.get("temperature", 0) > 2 for kw in kwargs):  # as vLLM 0.33 validates
            raise ValueError("temperature must be in [0, 2]")
        outputs = []
        for prompt, kw in zip(prompts, kwargs, strict=True):
            if kw.get("prompt_logprobs") is not None:
                positions = [None] + [{t: Logprob(logprob=-float(t), rank=1, decoded_token="")} for t in prompt[1:]]
                outputs.append(_output(prompt, [_sample("", [1])], positions))
                continue
            text = "greedy" if kw["temperature"] == 0 else f"s{kw['seed']}"
            ids = [kw["seed"] % 50, 7]
            steps = None if kw["logprobs"] is None else [
                {t: Logprob(logprob=-1.0, rank=1, decoded_token=str(t))} for t in ids
            ]
            out = _output(prompt, [_sample(text, ids, steps)])
            out.request_id = str(os.getpid())
            outputs.append(out)
        return outputs


def _model(name: str = "m", **options: Any) -> VLLMModel:
    return VLLMModel(name, ModelOptions(**options), engine=SeedEcho)


def _engine(model: VLLMModel) -> SeedEcho:
    engine = model._pool._engines[0]
    assert isinstance(engine, SeedEcho)
    return engine


def test_n_samples_are_seeded_requests_in_one_batch() -> None:
    model = _model()
    request = GenerateRequest.chat("hello", n=3, seed=10, logprobs=True)
    completions = asyncio.run(model.generate(request))
    assert [c.text for c in completions] == ["s10", "s11", "s12"]
    assert [c.usage.input_tokens for c in completions] == [5, 0, 0]
    assert all(c.usage.output_tokens == 2 and c.tokens is not None for c in completions)
    assert [[kw["seed"] for kw in batch] for batch in _engine(model).batches] == [[10, 11, 12]]
    # sample 2 alone (a runner's top-up) is the same sample
    again = asyncio.run(model.generate(request.with_n(1, seed=12)))
    assert again[0].text == "s12"
    asyncio.run(model.aclose())


def test_greedy_is_one_request_copied() -> None:
    model = _model()
    completions = asyncio.run(model.generate(GenerateRequest.chat("hey", n=3, temperature=0)))
    assert [c.text for c in completions] == ["greedy"] * 3
    assert [c.usage.input_tokens for c in completions] == [3, 0, 0]
    assert [len(b) for b in _engine(model).batches] == [1]
    asyncio.run(model.aclose())


def test_concurrent_calls_each_get_their_own_answers() -> None:
    model = _model()

    async def many() -> list[list[str]]:
        calls = [model.generate(GenerateRequest.chat("x", n=2, seed=100 * k)) for k in range(5)]
        return [[c.text for c in cs] for cs in await asyncio.gather(*calls)]

    assert asyncio.run(many()) == [[f"s{100 * k}", f"s{100 * k + 1}"] for k in range(5)]
    assert sum(len(b) for b in _engine(model).batches) == 10
    asyncio.run(model.aclose())


def test_schema_and_images() -> None:
    model = _model()
    schema = {"type": "array"}
    if model.capabilities.structured_output:  # vLLM installed: the schema reaches the engine
        asyncio.run(model.generate(GenerateRequest.chat("x", response_schema=schema)))
        assert _engine(model).batches[-1][0][structured_field() or ""] == {"json": schema}
    else:
        with pytest.raises(ModelError, match="without response_schema"):
            asyncio.run(model.generate(GenerateRequest.chat("x", response_schema=schema)))
    from creval.models.base import ImagePart, Message, TextPart

    image = Message(role="user", content=[TextPart(text="what"), ImagePart(url="data:image/png;base64,AA")])
    with pytest.raises(ModelError, match="cannot read images"):
        asyncio.run(model.generate(GenerateRequest(messages=(image,))))
    asyncio.run(model.aclose())


def test_prompt_logprobs_in_windows_score_each_token_once() -> None:
    model = _model()
    scores = asyncio.run(model.prompt_logprobs(PromptRequest(text="abcdefghi", window=4, stride=2)))
    ids = [ord(c) % 50 for c in "abcdefghi"]
    assert scores.logprobs() == [-float(t) for t in ids[1:]]
    assert [t.token for t in scores.tokens] == [str(t) for t in ids[1:]]
    assert (scores.window, scores.stride, scores.windows) == (4, 2, 4)
    assert scores.usage.input_tokens == 4 + 4 + 4 + 3  # windows 0-4, 2-6, 4-8, 6-9
    with pytest.raises(ModelError, match="exceeds the model's context of 5"):  # 6 less one generated
        asyncio.run(model.prompt_logprobs(PromptRequest(text="abc", window=6)))
    whole = asyncio.run(model.prompt_logprobs(PromptRequest(text="abcdefghi")))
    assert (whole.window, whole.stride, whole.logprobs()) == (5, 2, scores.logprobs())
    asyncio.run(model.aclose())


def test_an_engine_that_cannot_start_fails_every_call_without_hanging() -> None:
    model = _model("broken")
    for _ in range(2):
        with pytest.raises(ModelError, match="cannot start vLLM .*No CUDA GPUs"):
            asyncio.run(model.generate(GenerateRequest.chat("x")))
    asyncio.run(model.aclose())


def test_one_bad_request_fails_only_its_own_call() -> None:
    pool = EnginePool("m", {}, engine=SeedEcho)
    pool.call("max_model_len")
    good = sampling_params_kwargs(GenerateRequest.chat("x", seed=5))
    bad = sampling_params_kwargs(GenerateRequest.chat("x", temperature=2.5))
    with pool._cond:  # one batch
        ok, refused = pool.submit([[1]], [good]), pool.submit([[2]], [bad])
    assert ok.result(timeout=30)[0].outputs[0].text == "s5"
    with pytest.raises(ModelError, match=r"generation failed: ValueError: temperature must be in \[0, 2\]"):
        refused.result(timeout=30)
    engine = pool._engines[0]
    assert [len(b) for b in engine.batches] == [2, 1, 1]  # the batch, then each job alone
    pool.close()


def test_a_closed_model_starts_again_on_the_next_request() -> None:
    model = _model()
    assert asyncio.run(model.generate(GenerateRequest.chat("x", seed=3)))[0].text == "s3"
    first = _engine(model)
    asyncio.run(model.aclose())
    assert not model._pool._engines
    assert asyncio.run(model.generate(GenerateRequest.chat("x", seed=4)))[0].text == "s4"
    assert _engine(model) is not first
    asyncio.run(model.aclose())


def test_identity_and_context_settings(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"model_type": "llama"}')
    model = _model(f"{tmp_path},dtype=float16")
    ident = model.identity()
    assert ident["provider"] == "vllm" and ident["model"] == str(tmp_path) and ident["dtype"] == "float16"
    assert ident != _model(f"{tmp_path},dtype=bfloat16").identity()
    assert "max_model_len" not in _model().engine_args  # the model's own context
    assert _model(n_ctx=2048).engine_args["max_model_len"] == 2048
    assert _model("m,max_model_len=512", n_ctx=2048).engine_args["max_model_len"] == 512
    assert _model(concurrency=8).max_concurrency == 8
    assert model.capabilities.logprobs and model.capabilities.n and model.capabilities.prompt_logprobs
    assert not model.capabilities.sampling_logprobs


@pytest.fixture
def ray_stopped() -> Any:
    ray = pytest.importorskip("ray", reason="Ray (the ray extra) runs the data-parallel engines")
    yield ray
    if ray.is_initialized():
        ray.shutdown()


@pytest.mark.slow
def test_data_parallel_engines_are_ray_actors_sharing_a_batch(ray_stopped: Any) -> None:
    import sys

    ray_stopped.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    pool = EnginePool("m", {"data_parallel_size": 2}, engine=SeedEcho, gpus_per_engine=0)
    try:
        assert pool.call("max_model_len") == 6  # both actors started
        kwargs = [sampling_params_kwargs(GenerateRequest.chat("x", seed=s)) for s in range(4)]
        with pool._cond:  # both jobs wait for the same batch
            first = pool.submit([[1], [2]], kwargs[:2])
            second = pool.submit([[3], [4]], kwargs[2:])
        outputs = first.result(timeout=60) + second.result(timeout=60)
        assert [o.outputs[0].text for o in outputs] == ["s0", "s1", "s2", "s3"]
        assert len({o.request_id for o in outputs}) == 2  # two engine processes answered
    finally:
        pool.close()
    assert not ray_stopped.is_initialized()  # the pool stops the Ray it started


# -- vLLM's own classes, where vLLM installs ---------------------------------------------------------
def test_vllm_sampling_params_accept_the_mapping() -> None:
    pytest.importorskip("vllm", reason="vLLM is not installed (CUDA wheels; the vllm extra)")
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    request = GenerateRequest.chat("hi", n=2, seed=3, temperature=0.5, top_p=0.8, max_tokens=9,
                                   stop=("END",), logprobs=True, top_logprobs=4, response_schema=schema)
    field = structured_field()
    assert field is not None
    params = to_sampling_params(sampling_params_kwargs(request, sample=1, structured=field))
    assert (params.n, params.seed, params.temperature, params.top_p, params.max_tokens) == (1, 4, 0.5, 0.8, 9)
    assert params.stop == ["END"] and params.logprobs == 4 and params.prompt_logprobs is None
    assert getattr(params, field).json == schema
    scoring = to_sampling_params(prompt_scoring_kwargs())
    assert (scoring.prompt_logprobs, scoring.max_tokens, scoring.temperature) == (0, 1, 0.0)
    with pytest.raises(Exception, match="temperature"):  # noqa: B017 - vLLM bounds it (VLLMValidationError)
        to_sampling_params(sampling_params_kwargs(GenerateRequest.chat("x", temperature=2.5)))
    assert HAVE_VLLM  # and the outputs above were vLLM's own classes


# -- the real engine, where CUDA is ---------------------------------------------------------------
def _cuda() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


@pytest.mark.slow
@pytest.mark.skipif(not _cuda(), reason="vLLM's engine needs a CUDA GPU (torch.cuda.is_available() is False)")
def test_generate_with_a_tiny_model_on_the_gpu(tmp_path: Path) -> None:
    pytest.importorskip("vllm", reason="vLLM is not installed (the vllm extra)")
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from tests.models.test_hf import TEMPLATE, _tokenizer

    tokenizer = _tokenizer(TEMPLATE)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=128, intermediate_size=256,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=256, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    model = get_model(f"vllm:{tmp_path},gpu_memory_utilization=0.3,max_model_len=256,dtype=float32")
    request = GenerateRequest.chat("the cat", n=2, seed=1, max_tokens=8, logprobs=True, top_logprobs=2)
    first = asyncio.run(model.generate(request))
    again = asyncio.run(model.generate(request))
    assert len(first) == 2 and [c.text for c in first] == [c.text for c in again]
    assert all(c.tokens is not None and len(c.tokens) == c.usage.output_tokens for c in first)
    assert first[0].usage.input_tokens > 0 and first[1].usage.input_tokens == 0
    scores = asyncio.run(model.prompt_logprobs(PromptRequest(text="the cat sat on the mat")))  # type: ignore[attr-defined]
    assert scores.tokens and all(t.logprob <= 0 for t in scores.tokens)
    asyncio.run(model.aclose())
