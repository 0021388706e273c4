"""``logprob_source="sampling"``: log-probabilities under the distribution the sampler drew
from (temperature and top-p applied, renormalised), checked against references computed
here, independently, from the backends' own logits."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from creval.models import Completion, GenerateRequest, ModelOptions, get_model
from creval.models.base import digest
from creval.models.local import LocalModel, model_logprobs, sampled_distribution, sampled_logprob

PROMPT = "Name three unusual uses for a brick."
SHORT = "Answer with a single word: what colour is the sky on a clear day?"


def _generate(model: Any, request: GenerateRequest) -> list[Completion]:
    return asyncio.run(model.generate(request))


def _log_softmax(x: np.ndarray) -> np.ndarray:
    z = np.asarray(x, dtype=np.float64)
    peak = z.max(axis=-1, keepdims=True)
    return z - (peak + np.log(np.exp(z - peak).sum(axis=-1, keepdims=True)))


# -- the request field and cache keys ---------------------------------------------------------
def test_default_requests_keep_their_params_and_cache_keys() -> None:
    request = GenerateRequest.chat("hi", temperature=0.7, top_p=0.9, seed=3, logprobs=True, top_logprobs=2)
    assert request.logprob_source == "model"
    before = request.model_dump(mode="json", exclude={"messages", "n", "first_sample", "logprob_source",
                                                      "response_schema"})
    assert request.params() == before
    assert "logprob_source" not in GenerateRequest.chat("hi").params()
    # naming the default explicitly is the same request, for the cache too
    explicit = request.model_copy(update={"logprob_source": "model"})
    assert digest(explicit.params()) == digest(request.params())


def test_sampling_source_is_part_of_the_key_only_when_logprobs_are_asked() -> None:
    with_logprobs = GenerateRequest.chat("hi", logprobs=True)
    sampling = with_logprobs.model_copy(update={"logprob_source": "sampling"})
    assert sampling.params()["logprob_source"] == "sampling"
    assert digest(sampling.params()) != digest(with_logprobs.params())
    plain = GenerateRequest.chat("hi", logprob_source="sampling")  # no log-probabilities: same answers
    assert plain.params() == GenerateRequest.chat("hi").params()
    with pytest.raises(ValueError):
        GenerateRequest.chat("hi", logprob_source="processed")


def test_capabilities_say_who_gives_sampling_logprobs() -> None:
    assert get_model("local").capabilities.sampling_logprobs
    openai = get_model("openai:some-model", ModelOptions(base_url="http://127.0.0.1:9/v1"))
    assert openai.capabilities.logprobs and not openai.capabilities.sampling_logprobs


# -- the distribution llama.cpp samples from --------------------------------------------------
def _nucleus(probs: np.ndarray, top_p: float) -> np.ndarray:
    """Reference: ids of the smallest most-probable set whose probability reaches top_p."""
    order = np.argsort(-probs, kind="stable")
    reached = np.flatnonzero(np.cumsum(probs[order]) >= top_p)
    return order[: reached[0] + 1] if len(reached) else order


@pytest.mark.parametrize(("temperature", "top_p"), [(0.7, 0.8), (1.0, 0.5), (1.3, 0.95), (0.5, 1.0)])
def test_sampled_distribution_is_top_p_then_temperature(temperature: float, top_p: float) -> None:
    logits = np.random.default_rng(7).normal(scale=3.0, size=300).astype(np.float32)  # as llama.cpp
    ids, logprobs = sampled_distribution(logits, temperature=temperature, top_p=top_p)
    kept = _nucleus(np.exp(_log_softmax(logits)), top_p)  # untempered, as llama.cpp does
    assert ids == [int(i) for i in kept]
    expected = _log_softmax(logits.astype(np.float64)[kept] / temperature)
    assert logprobs == pytest.approx(expected.tolist(), abs=1e-9)
    assert math.fsum(math.exp(v) for v in logprobs) == pytest.approx(1.0)
    assert logprobs == sorted(logprobs, reverse=True)
    if top_p == 1.0:
        assert len(ids) == len(logits)


def test_the_token_that_crosses_top_p_is_kept() -> None:
    logits = np.log([0.5, 0.3, 0.2])
    assert sampled_distribution(logits, temperature=1.0, top_p=0.45)[0] == [0]
    ids, logprobs = sampled_distribution(logits, temperature=1.0, top_p=0.55)
    assert ids == [0, 1] and logprobs == pytest.approx([math.log(0.5 / 0.8), math.log(0.3 / 0.8)])
    assert sampled_distribution(logits, temperature=1.0, top_p=0.85)[0] == [0, 1, 2]
    # a chosen token just outside (a rounding tie at the boundary) widens the set to it
    assert sampled_distribution(logits, temperature=1.0, top_p=0.45, chosen=1)[0] == [0, 1]


def test_greedy_is_a_point_mass() -> None:
    assert sampled_distribution([0.1, 3.0, -1.0], temperature=0.0, top_p=0.9) == ([1], [0.0])
    assert sampled_distribution([3.0, 3.0], temperature=0.0, top_p=1.0, chosen=1) == ([1], [0.0])


# -- the packaged local model, run for real ---------------------------------------------------
@pytest.fixture(scope="module")
def smol() -> Iterator[LocalModel]:
    model = get_model("local")
    assert isinstance(model, LocalModel)
    yield model
    asyncio.run(model.aclose())


def _raw_and_sampled(
    model: LocalModel, prompt: str, **params: Any
) -> tuple[Completion, Completion, np.ndarray, list[int]]:
    """The same seeded sample with model and with sampling log-probabilities, plus the logit
    rows and token ids of the sampled tokens read back from llama.cpp."""
    request = GenerateRequest.chat(prompt, logprobs=True, **params)
    (raw,) = _generate(model, request)
    (sampled,) = _generate(model, request.model_copy(update={"logprob_source": "sampling"}))
    assert sampled.text == raw.text  # the source changes what is reported, not what is drawn
    assert raw.tokens is not None and sampled.tokens is not None
    assert [t.token for t in sampled.tokens] == [t.token for t in raw.tokens]
    llm = model.replicas[0].llm_logits
    n_prompt, n_out = sampled.usage.input_tokens, sampled.usage.output_tokens
    rows = np.array(llm.scores[n_prompt - 1 : n_prompt - 1 + n_out], dtype=np.float64)
    ids = [int(t) for t in llm.input_ids[n_prompt : llm.n_tokens]][:n_out]
    if len(ids) == n_out - 1:  # the last token was drawn but never fed back
        ids.append(int(np.argmin(np.abs(_log_softmax(rows[-1]) - raw.tokens[-1].logprob))))
    assert len(ids) == n_out == len(raw.tokens)
    # the rows and ids line up: they reproduce llama.cpp's own model log-probabilities
    model_logprobs = _log_softmax(rows)[np.arange(n_out), ids]
    assert model_logprobs.tolist() == pytest.approx([t.logprob for t in raw.tokens], abs=1e-4)
    return raw, sampled, rows, ids


@pytest.mark.slow
def test_local_top_p_renormalises_over_the_nucleus(smol: LocalModel) -> None:
    finishes = set()
    truncated = 0
    for prompt, seed in [(PROMPT, 3), (PROMPT, 8), (SHORT, 1)]:
        raw, sampled, rows, ids = _raw_and_sampled(
            smol, prompt, temperature=1.0, top_p=0.9, seed=seed, max_tokens=24
        )
        finishes.add(raw.finish_reason)
        assert raw.tokens is not None and sampled.tokens is not None
        for row, tok, r, s in zip(rows, ids, raw.tokens, sampled.tokens, strict=True):
            assert math.isfinite(s.logprob) and s.logprob <= 0.0
            assert s.logprob >= r.logprob - 1e-6
            # at temperature 1 the sampled log-probability is the model's minus log(mass of the
            # nucleus): the mass of the m most probable tokens, for an m where the cumulative
            # probability crosses 0.9 (llama.cpp sums in float32, which moves the crossing by
            # up to ~1e-4 over a thousand tokens), and the chosen token is among those m
            probs = np.exp(_log_softmax(row))
            order = np.argsort(-probs, kind="stable")
            cumulative = np.cumsum(probs[order])
            mass = math.exp(r.logprob - s.logprob)
            m = int(np.argmin(np.abs(cumulative - mass)))
            assert cumulative[m] == pytest.approx(mass, abs=2e-6)
            assert cumulative[m] >= 0.9 - 1e-3 and (m == 0 or cumulative[m - 1] < 0.9 + 1e-3)
            assert tok in order[: m + 1]
            assert tok in _nucleus(probs, 0.9 + 1e-3)
            truncated += s.logprob > r.logprob + 1e-3
    assert truncated > 0  # the nucleus did cut something off
    assert finishes == {"stop", "length"}  # both the end-of-sequence and the length path


@pytest.mark.slow
def test_local_top_p_is_applied_before_temperature(smol: LocalModel) -> None:
    """Seen in what llama.cpp draws: at temperature 0.5 every token lies in the top-p set of
    the untempered distribution, and some lie outside that of the tempered one."""
    outside_tempered = 0
    for seed in range(2):
        request = GenerateRequest.chat(
            PROMPT, temperature=0.5, top_p=0.5, seed=seed, max_tokens=30, logprobs=True,
            logprob_source="sampling",
        )
        (c,) = _generate(smol, request)
        llm = smol.replicas[0].llm_logits
        n_prompt = c.usage.input_tokens
        ids = [int(t) for t in llm.input_ids[n_prompt : llm.n_tokens]]  # the tokens fed back
        assert c.tokens is not None and len(ids) >= len(c.tokens) - 1
        for i, (tok, t) in enumerate(zip(ids, c.tokens, strict=False)):
            row = np.asarray(llm.scores[n_prompt - 1 + i], dtype=np.float64)
            assert tok in _nucleus(np.exp(_log_softmax(row)), 0.5 + 1e-3)
            outside_tempered += tok not in _nucleus(np.exp(_log_softmax(row / 0.5)), 0.5)
            assert math.isfinite(t.logprob)
    assert outside_tempered > 0


@pytest.mark.slow
def test_local_without_top_p_at_temperature_1_equals_the_model(smol: LocalModel) -> None:
    raw, sampled, _, _ = _raw_and_sampled(smol, PROMPT, temperature=1.0, top_p=1.0, seed=4, max_tokens=20)
    assert raw.tokens is not None and sampled.tokens is not None
    assert [t.logprob for t in sampled.tokens] == pytest.approx([t.logprob for t in raw.tokens], abs=1e-4)


@pytest.mark.slow
def test_local_temperature_scales_the_logits(smol: LocalModel) -> None:
    raw, sampled, rows, ids = _raw_and_sampled(
        smol, PROMPT, temperature=0.5, top_p=1.0, seed=5, max_tokens=20, stop=(".",)
    )
    assert sampled.tokens is not None and raw.tokens is not None
    expected = _log_softmax(rows / 0.5)[np.arange(len(ids)), ids]
    assert [t.logprob for t in sampled.tokens] == pytest.approx(expected.tolist(), abs=1e-4)
    assert [t.logprob for t in sampled.tokens] != pytest.approx([t.logprob for t in raw.tokens], abs=1e-3)


@pytest.mark.slow
def test_local_alternatives_come_from_the_sampled_distribution(smol: LocalModel) -> None:
    request = GenerateRequest.chat(
        PROMPT, temperature=0.8, top_p=0.7, seed=6, max_tokens=16, logprobs=True, top_logprobs=4,
        logprob_source="sampling",
    )
    (c,) = _generate(smol, request)
    llm = smol.replicas[0].llm_logits
    rows = np.array(llm.scores[c.usage.input_tokens - 1 :][: c.usage.output_tokens], dtype=np.float64)
    assert c.tokens is not None and len(c.tokens) == len(rows)
    for row, t in zip(rows, c.tokens, strict=True):
        assert t.top is not None and 1 <= len(t.top) <= 4
        nucleus = _nucleus(np.exp(_log_softmax(row)), 0.7)
        expected = _log_softmax(row[nucleus] / 0.8)[:4]
        assert sorted(t.top.values(), reverse=True) == pytest.approx(expected.tolist(), abs=1e-4)
        assert t.logprob <= max(t.top.values()) + 1e-9


@pytest.mark.slow
def test_local_greedy_tokens_have_probability_one(smol: LocalModel) -> None:
    request = GenerateRequest.chat(PROMPT, temperature=0.0, max_tokens=10, logprobs=True, top_logprobs=2)
    (raw,) = _generate(smol, request)
    (sampled,) = _generate(smol, request.model_copy(update={"logprob_source": "sampling"}))
    assert sampled.text == raw.text and sampled.tokens is not None and raw.tokens is not None
    assert [t.logprob for t in sampled.tokens] == [0.0] * len(raw.tokens)
    assert any(t.logprob < 0 for t in raw.tokens)
    assert [t.top for t in sampled.tokens] == [{t.token: 0.0} for t in sampled.tokens]


# -- transformers, on the tiny Llama of test_hf ------------------------------------------------
@pytest.fixture(scope="module")
def tiny_hf(tmp_path_factory: pytest.TempPathFactory) -> Any:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from models.test_hf import _save_tiny_llama

    return get_model("hf:" + str(_save_tiny_llama(tmp_path_factory.mktemp("tiny-llama-sampling"))))


def _hf_reference(model: Any, request: GenerateRequest, completion: Completion) -> list[float]:
    """Each sampled token's log-probability recomputed by one forward pass over prompt and
    answer: temperature, then the smallest top set reaching top_p, renormalised."""
    import torch

    tokenizer, lm = model._load()
    prompt = model._prompt_ids(tokenizer, request)
    assert completion.tokens is not None
    ids = [tokenizer.convert_tokens_to_ids(t.token.strip()) for t in completion.tokens]
    with torch.inference_mode():
        logits = lm(input_ids=torch.tensor([prompt + ids])).logits[0].double().numpy()
    out = []
    for i, tok in enumerate(ids):
        z = logits[len(prompt) - 1 + i] / request.temperature
        kept = _nucleus(np.exp(_log_softmax(z)), request.top_p)
        assert tok in kept
        out.append(float(_log_softmax(z[kept])[list(kept).index(tok)]))
    return out


@pytest.mark.slow
def test_hf_sampling_logprobs_are_the_processed_scores(tiny_hf: Any) -> None:
    assert tiny_hf.capabilities.sampling_logprobs
    request = GenerateRequest.chat(
        "the cat sat", n=3, seed=2, temperature=1.5, top_p=0.8, max_tokens=8, logprobs=True,
        top_logprobs=3,
    )
    raw = _generate(tiny_hf, request)
    sampled = _generate(tiny_hf, request.model_copy(update={"logprob_source": "sampling"}))
    assert [c.text for c in sampled] == [c.text for c in raw]
    differs = 0
    for r, s in zip(raw, sampled, strict=True):
        assert s.tokens is not None and r.tokens is not None
        expected = _hf_reference(tiny_hf, request, s)
        assert [t.logprob for t in s.tokens] == pytest.approx(expected, abs=1e-3)
        for t in s.tokens:
            assert t.top is not None and 1 <= len(t.top) <= 3
            assert all(math.isfinite(v) for v in t.top.values())
        differs += sum(abs(a.logprob - b.logprob) > 1e-3 for a, b in zip(r.tokens, s.tokens, strict=True))
    assert differs > 0


@pytest.mark.slow
def test_hf_greedy_is_a_point_mass(tiny_hf: Any) -> None:
    request = GenerateRequest.chat("rain falls", temperature=0.0, max_tokens=5, logprobs=True, top_logprobs=2)
    (raw,) = _generate(tiny_hf, request)
    (sampled,) = _generate(tiny_hf, request.model_copy(update={"logprob_source": "sampling"}))
    assert sampled.text == raw.text and sampled.tokens is not None and raw.tokens is not None
    assert [t.logprob for t in sampled.tokens] == [0.0] * len(raw.tokens)
    assert all(t.top is not None and list(t.top.values()) == [0.0] for t in sampled.tokens)


# -- the partial sorts behind the cheap log-probabilities -------------------------------------
def _full_sort_distribution(
    logits: np.ndarray, temperature: float, top_p: float, chosen: int | None
) -> tuple[list[int], list[float]]:
    """Reference: the whole vocabulary sorted, then the same float32 top-p rule."""
    x = np.asarray(logits, dtype=np.float32)
    order = np.argsort(-x, kind="stable")
    keep = len(order)
    if top_p < 1.0:
        p = np.exp(x - x.max())
        p /= np.cumsum(p, dtype=np.float32)[-1]
        reached = np.flatnonzero(np.cumsum(p[order], dtype=np.float32) >= np.float32(top_p))
        keep = int(reached[0]) + 1 if len(reached) else len(order)
    if chosen is not None:
        keep = max(keep, int(np.flatnonzero(order == chosen)[0]) + 1)
    kept = order[:keep]
    return [int(i) for i in kept], _log_softmax(x[kept].astype(np.float64) / temperature).tolist()


@pytest.mark.parametrize("scale", [0.5, 2.0, 6.0])
def test_partial_sorting_finds_the_same_nucleus_as_a_full_sort(scale: float) -> None:
    rng = np.random.default_rng(int(scale * 10))
    # a vocabulary-sized row, rounded so that many logits tie (ties are ordered by id)
    logits = np.round(rng.normal(scale=scale, size=20000), 1).astype(np.float32)
    by_rank = np.argsort(-logits, kind="stable")
    for top_p in (0.3, 0.9, 0.99):
        for chosen in (None, int(by_rank[0]), int(by_rank[40]), int(by_rank[3000]), int(rng.integers(20000))):
            got = sampled_distribution(logits, temperature=0.8, top_p=top_p, chosen=chosen)
            want = _full_sort_distribution(logits, 0.8, top_p, chosen)
            assert got[0] == want[0]
            assert got[1] == pytest.approx(want[1], abs=1e-12)


@pytest.mark.parametrize(("temperature", "top_p"), [(1.0, 0.9), (0.7, 1.0), (1.3, 0.5), (0.0, 0.9)])
def test_sampled_logprob_is_the_chosen_entry_of_the_distribution(temperature: float, top_p: float) -> None:
    rng = np.random.default_rng(3)
    logits = np.round(rng.normal(scale=3.0, size=5000), 1).astype(np.float32)
    ids, logprobs = sampled_distribution(logits, temperature=temperature, top_p=top_p)
    for chosen in ids[:3] + ids[-2:]:
        value, best = sampled_logprob(logits, chosen, temperature=temperature, top_p=top_p, top=4)
        assert value == pytest.approx(logprobs[ids.index(chosen)] if temperature else 0.0, abs=1e-12)
        if temperature == 0:
            assert best == [(chosen, 0.0)]
        else:
            assert [i for i, _ in best] == ids[:4]
            assert [v for _, v in best] == pytest.approx(logprobs[:4], abs=1e-12)
    assert sampled_logprob(logits, ids[0], temperature=max(temperature, 0.5), top_p=top_p)[1] == []


def test_model_logprobs_are_llama_cpp_pythons_bit_for_bit() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    rng = np.random.default_rng(11)
    rows = np.round(rng.normal(scale=4.0, size=(6, 3000)), 1).astype(np.float32)  # with ties
    rows[2, :5] = rows[2].max()  # a tie at the top
    ids = [int(rng.integers(3000)) for _ in rows]
    values, best = model_logprobs(rows, ids, top=5)
    reference = llama_cpp.Llama.logits_to_logprobs(rows)
    assert values == [float(reference[r, i]) for r, i in enumerate(ids)]
    for row, got in zip(reference, best, strict=True):
        # llama-cpp-python sorts (logprob, id) pairs, largest first
        assert got == [(i, v) for v, i in sorted(((v, i) for i, v in enumerate(row.tolist())), reverse=True)[:5]]
    assert model_logprobs(rows, ids)[1] == [[] for _ in ids]
    assert model_logprobs(np.zeros((0, 3000), np.float32), []) == ([], [])
