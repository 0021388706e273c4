"""The ``local`` backend's llama.cpp thread: every llama.cpp call of a model on one thread,
and several generations decoded together on it (continuous batching).

Why one thread: llama.cpp keeps one OpenMP thread team per calling thread; calls from
changing threads (``asyncio.to_thread``) each bring a team, and with more OpenMP threads than
cores its per-step synchronisation falls into sleep/wake cycles (0.55 of the engine's speed
on 2 cores, bench/README.md "Local generation").

Why batching: one decoding step reads the weights once for every sequence in it, so several
sequences in flight give more tokens per second than one at a time. :class:`BatchEngine`
keeps up to ``slots`` sequences in one llama.cpp context, each in its own KV-cache stream
(``kv_unified`` off, so a sequence's attention sees only its own cells, as alone), feeds one
token of each per ``llama_decode`` and samples each with its own llama.cpp sampler chain,
built by llama-cpp-python exactly as its ``create_completion`` builds it. The ``n`` samples
of one request share one prompt evaluation: the prompt is decoded once and its KV cells
copied to the other samples' streams (``llama_memory_seq_cp``); all draw their first token
from that evaluation's logits, each with its own seed. A finished sequence's stream keeps its
prompt's KV cells and the engine that prompt's last logits, so a later request with the very
same prompt (every trial of DAT, the repeats of a benchmark) is not evaluated again: its first
tokens are drawn from the kept logits, exactly as from a fresh evaluation (the same cells, the
same logits, llama.cpp's sampling steps). Texts, finish reasons and usage are
assembled as llama-cpp-python's ``create_completion`` assembles them (stop strings,
end-of-generation tokens, the length limit, its handling of split UTF-8 characters).
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: Sequences decoded together by default (``--concurrency`` sets it for ``local``).
DEFAULT_SLOTS = 8


class LlamaThread:
    """One daemon thread that runs every llama.cpp call of a model.

    :meth:`call` runs a function there; :meth:`generate` hands a generation to the
    :class:`BatchEngine`, whose steps run between calls. Results come back as
    ``concurrent.futures.Future`` objects (``asyncio.wrap_future`` awaits them).
    """

    def __init__(self, name: str) -> None:
        self._jobs: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.engine: BatchEngine | None = None
        self._thread.start()

    def call(self, fn: Callable[[], Any]) -> concurrent.futures.Future[Any]:
        """Run ``fn`` on the thread in the caller's context (as ``asyncio.to_thread`` does), so
        what it notes there (the runner's request tally: one request per scored window) is
        seen by the caller."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        context = contextvars.copy_context()
        self._jobs.put(("call", lambda: context.run(fn), future))
        return future

    def generate(self, make_engine: Callable[[], BatchEngine], job: GenerationJob) -> None:
        """Decode ``job`` in the batch engine (built by ``make_engine`` on first use)."""
        self._jobs.put(("generate", make_engine, job))

    def stop(self) -> None:
        """Finish what is queued, then end the thread."""
        self._jobs.put(None)
        self._thread.join()

    def _loop(self) -> None:
        while True:
            busy = self.engine is not None and self.engine.busy
            try:
                item = self._jobs.get(block=not busy)
            except queue.Empty:
                item = ()
            if item is None:
                self._close_engine()
                return
            if item:
                self._handle(item)
            elif self.engine is not None:
                try:
                    self.engine.step()
                except BaseException as exc:  # noqa: BLE001 - the thread must outlive a bad step
                    self.engine.fail_all(exc)

    def _handle(self, item: tuple[Any, ...]) -> None:
        kind, target, payload = item
        if kind == "call":
            if payload.set_running_or_notify_cancel():
                try:
                    payload.set_result(target())
                except BaseException as exc:  # noqa: BLE001 - handed to the awaiting caller
                    payload.set_exception(exc)
            return
        try:
            if self.engine is None:
                self.engine = target()
            self.engine.admit(payload)
        except BaseException as exc:  # noqa: BLE001
            if not payload.future.done():
                payload.future.set_exception(exc)

    def _close_engine(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None


@dataclass
class GenerationJob:
    """One request's samples, as llama-cpp-python's ``create_completion`` would run them:
    ``prepare`` (called on the llama.cpp thread) gives the keyword arguments its chat handler
    passes (prompt token ids, stop strings, grammar, sampling parameters); ``seeds`` has one
    seed per sample."""

    seeds: list[int]
    prepare: Callable[[], dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)
    future: concurrent.futures.Future[list[dict[str, Any]]] = field(
        default_factory=concurrent.futures.Future)
    results: list[dict[str, Any] | None] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)  # sample indices not started yet

    def __post_init__(self) -> None:
        self.results = [None] * len(self.seeds)
        self.waiting = list(range(len(self.seeds)))


class _Sequence:
    """One sample being decoded: its sampler chain and the text state of llama-cpp-python's
    completion loop."""

    def __init__(self, job: GenerationJob, index: int, slot: int, sampler: Any, prompt: list[int]) -> None:
        self.job, self.index, self.slot, self.sampler = job, index, slot, sampler
        self.prompt = prompt
        self.fed = 0  # completion tokens fed back to the model
        self.completion: list[int] = []
        self.multibyte_fix = 0
        self.pending: int | None = None  # the token to feed next
        self.logits: Any = None  # the prompt's last logits (kept with the prompt at the end)


class BatchEngine:
    """Up to ``slots`` sequences of ``llm``'s model decoded together (see the module doc).

    ``llm`` is the plain llama-cpp-python ``Llama``; the engine makes its own context with
    ``slots`` KV streams of ``n_ctx`` tokens each, and uses ``llm`` for its
    tokenizer and for building sampler chains. Call only from the :class:`LlamaThread`.
    """

    def __init__(self, llm: Any, slots: int, n_ctx: int) -> None:
        import llama_cpp
        from llama_cpp import _internals

        self._llama_cpp = llama_cpp
        self.llm = llm
        self.slots = slots
        params = type(llm.context_params).from_buffer_copy(llm.context_params)
        self.n_ctx = n_ctx
        params.n_ctx = self.n_ctx * slots
        params.n_seq_max = slots
        params.kv_unified = False
        self.n_batch = int(params.n_batch)
        self.ctx = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
        self._batch = llama_cpp.llama_batch_init(max(self.n_batch, slots), 0, 1)
        self._free = list(range(slots))
        #: free slot -> (prompt, its last token's logits): the prompt's KV cells are still in
        #: the slot's stream, so the same prompt needs no evaluation
        self._kept: dict[int, tuple[list[int], Any]] = {}
        self._candidates: Any = None  # llama-cpp-python's token data array, for kept logits
        self._active: list[_Sequence] = []
        self._queue: list[GenerationJob] = []
        #: tokens decoded so far: prompt tokens (once per request's share of slots), and
        #: generated tokens fed back
        self.prompt_tokens = 0
        self.steps = 0
        #: the most sequences decoded together so far
        self.peak = 0

    @property
    def busy(self) -> bool:
        return bool(self._active or self._queue)

    def close(self) -> None:
        for job in self._queue:
            if not job.future.done():
                job.future.set_exception(RuntimeError("the local model was closed"))
        for seq in self._active:
            if not seq.job.future.done():
                seq.job.future.set_exception(RuntimeError("the local model was closed"))
        self._queue, self._active = [], []
        if self._batch is not None:
            self._llama_cpp.llama_batch_free(self._batch)
            self._batch = None
        self.ctx.close()

    # -- admission ----------------------------------------------------------------------------
    def admit(self, job: GenerationJob) -> None:
        job.params = job.prepare()
        prompt = list(job.params["prompt"])
        if len(prompt) >= self.n_ctx:  # llama-cpp-python's message, which callers look for
            raise ValueError(f"Requested tokens ({len(prompt)}) exceed context window of {self.n_ctx}")
        self._queue.append(job)
        self._start_waiting()

    def _start_waiting(self) -> None:
        while self._queue and self._free:
            job = self._queue[0]
            take = job.waiting[: len(self._free)]
            del job.waiting[: len(take)]
            if not job.waiting:
                self._queue.pop(0)
            try:
                self._start(job, take)
            except BaseException as exc:  # noqa: BLE001 - the job fails, the engine goes on
                self._fail(job, exc)

    def _start(self, job: GenerationJob, indices: list[int]) -> None:
        """Evaluate the prompt once (or find it kept), copy it to every sample's stream, draw
        first tokens."""
        llama_cpp = self._llama_cpp
        prompt = list(job.params["prompt"])
        kept = next((slot for slot in self._free if self._kept.get(slot, (None,))[0] == prompt), None)
        if kept is not None:
            self._free.remove(kept)
        slots = [kept] if kept is not None else []
        # other slots: those keeping no prompt first (a kept prompt may serve a later request)
        for slot in sorted(self._free, key=lambda s: s in self._kept)[: len(indices) - len(slots)]:
            self._free.remove(slot)
            slots.append(slot)
        logits = self._kept[kept][1] if kept is not None else None
        for slot in slots:
            self._kept.pop(slot, None)
        sequences = [_Sequence(job, i, slot, self._sampler(job, i), prompt)
                     for i, slot in zip(indices, slots, strict=True)]
        self._active.extend(sequences)
        self.peak = max(self.peak, len(self._active))
        for slot in slots[1:] if kept is not None else slots:
            llama_cpp.llama_memory_seq_rm(self.ctx.memory, slot, -1, -1)
        if logits is None:
            logits = self._evaluate(prompt, slots[0])
        for slot in slots[1:]:
            llama_cpp.llama_memory_seq_cp(self.ctx.memory, slots[0], slot, -1, -1)
        for seq in sequences:
            seq.logits = logits
            self._take(seq, self._sample_kept(seq.sampler, logits))

    def _evaluate(self, prompt: list[int], slot: int) -> Any:
        """Decode ``prompt`` into ``slot``'s stream in llama-cpp-python's chunks; a copy of
        the last token's logits."""
        import numpy as np

        last = 0
        for start in range(0, len(prompt), self.n_batch):  # llama-cpp-python's eval chunks
            chunk = prompt[start : start + self.n_batch]
            self._fill([(tok, start + k, slot, k == len(chunk) - 1) for k, tok in enumerate(chunk)])
            self._decode()
            self.prompt_tokens += len(chunk)
            last = len(chunk) - 1
        row = self._llama_cpp.llama_get_logits_ith(self.ctx.ctx, last)
        return np.ctypeslib.as_array(row, shape=(self.llm.n_vocab(),)).copy()

    def _sample_kept(self, sampler: Any, logits: Any) -> int:
        """What ``llama_sampler_sample`` does with a context's logits, from ``logits``: every
        token as a candidate (id, logit, p = 0) in vocabulary order, the chain applied, the
        selected token accepted."""
        import ctypes

        from llama_cpp import _internals

        if self._candidates is None:
            self._candidates = _internals.LlamaTokenDataArray(n_vocab=len(logits))
        candidates = self._candidates
        candidates.copy_logits(logits)
        candidates.candidates.selected = -1
        self._llama_cpp.llama_sampler_apply(sampler.sampler, ctypes.byref(candidates.candidates))
        selected = int(candidates.candidates.selected)
        if not 0 <= selected < int(candidates.candidates.size):
            raise RuntimeError("llama.cpp's sampler selected no token")
        token = int(candidates.candidates.data[selected].id)
        sampler.accept(token)
        return token

    def _sampler(self, job: GenerationJob, index: int) -> Any:
        """The sampler chain llama-cpp-python builds for this request and seed."""
        p = job.params
        self.llm.set_seed(job.seeds[index])
        return self.llm._init_sampler(
            top_k=p.get("top_k", 40), top_p=p.get("top_p", 0.95), min_p=p.get("min_p", 0.05),
            typical_p=p.get("typical_p", 1.0), temp=p.get("temperature", 0.8),
            repeat_penalty=p.get("repeat_penalty", 1.0),
            frequency_penalty=p.get("frequency_penalty", 0.0),
            presence_penalty=p.get("presence_penalty", 0.0),
            grammar=p.get("grammar"),
        )

    # -- decoding -----------------------------------------------------------------------------
    def step(self) -> None:
        """Feed each active sequence's last token in one decode, then sample each."""
        for seq in [s for s in self._active if s.job.future.cancelled()]:
            self._release(seq)  # its caller is gone
        self._queue = [job for job in self._queue if not job.future.cancelled()]
        feeding = [s for s in self._active if s.pending is not None]
        if not feeding:
            self._start_waiting()
            return
        entries = []
        for seq in feeding:
            assert seq.pending is not None
            entries.append((seq.pending, len(seq.prompt) + seq.fed, seq.slot, True))
        self._fill(entries)
        self.steps += 1
        try:
            self._decode()
        except BaseException as exc:  # noqa: BLE001
            for job in {id(s.job): s.job for s in feeding}.values():
                self._fail(job, exc)
            return
        for k, seq in enumerate(feeding):
            seq.fed += 1
            seq.pending = None
            self._take(seq, seq.sampler.sample(self.ctx, k))
        self._start_waiting()

    def _fill(self, entries: list[tuple[int, int, int, bool]]) -> None:
        batch = self._batch
        for k, (token, pos, seq_id, logits) in enumerate(entries):
            batch.token[k] = token
            batch.pos[k] = pos
            batch.n_seq_id[k] = 1
            batch.seq_id[k][0] = seq_id
            batch.logits[k] = logits
        batch.n_tokens = len(entries)

    def _decode(self) -> None:
        code = self._llama_cpp.llama_decode(self.ctx.ctx, self._batch)
        if code != 0:
            raise RuntimeError(f"llama_decode returned {code}")

    # -- llama-cpp-python's completion loop, one token at a time -------------------------------
    def _take(self, seq: _Sequence, token: int) -> None:
        """What ``Llama._create_completion`` does with each token ``generate`` yields."""
        llm, p = self.llm, seq.job.params
        criteria = p.get("stopping_criteria")
        if criteria is not None and self._criteria_met(seq, criteria):
            return self._finish(seq, llm.detokenize(seq.completion, prev_tokens=seq.prompt), "stop", True)
        if self._llama_cpp.llama_vocab_is_eog(llm._model.vocab, token):
            return self._finish(seq, llm.detokenize(seq.completion, prev_tokens=seq.prompt), "stop")
        seq.completion.append(token)
        all_text = llm.detokenize(seq.completion, prev_tokens=seq.prompt)
        for k, char in enumerate(all_text[-3:]):
            k = 3 - k
            for num, pattern in [(2, 192), (3, 224), (4, 240)]:
                if num > k and pattern & char == pattern:
                    seq.multibyte_fix = num - k
        if seq.multibyte_fix > 0:
            seq.multibyte_fix -= 1
            seq.pending = token
            return None
        stops = [s.encode("utf-8") for s in (p.get("stop") or [])]
        hit = [s for s in stops if s in all_text]
        if hit:
            return self._finish(seq, all_text[: all_text.index(hit[0])], "stop")
        if len(seq.completion) >= self._max_tokens(seq):
            return self._finish(seq, llm.detokenize(seq.completion, prev_tokens=seq.prompt), "length")
        seq.pending = token
        return None

    def _max_tokens(self, seq: _Sequence) -> int:
        wanted = seq.job.params.get("max_tokens", 16)
        room = self.n_ctx - len(seq.prompt)
        if wanted is None or wanted <= 0:
            return room
        return wanted if wanted + len(seq.prompt) < self.n_ctx else room

    def _criteria_met(self, seq: _Sequence, criteria: Any) -> bool:
        import numpy as np

        fed = np.asarray(seq.prompt + seq.completion[: seq.fed], dtype=np.intc)
        return bool(criteria(fed, np.zeros(0, dtype=np.single)))

    def _finish(self, seq: _Sequence, text: bytes, reason: str, by_criteria: bool = False) -> None:
        criteria = seq.job.params.get("stopping_criteria")
        if not by_criteria and criteria is not None and self._criteria_met(seq, criteria):
            text, reason = self.llm.detokenize(seq.completion, prev_tokens=seq.prompt), "stop"
        seq.job.results[seq.index] = {
            "choices": [{"message": {"role": "assistant", "content": text.decode("utf-8", errors="ignore")},
                         "finish_reason": reason}],
            "usage": {"prompt_tokens": len(seq.prompt), "completion_tokens": len(seq.completion)},
        }
        self._release(seq)
        job = seq.job
        if not job.waiting and all(r is not None for r in job.results) and not job.future.done():
            job.future.set_result(list(job.results))  # type: ignore[arg-type]

    def _release(self, seq: _Sequence) -> None:
        """Free the sequence's slot; its stream keeps the prompt's cells (and the engine the
        prompt's logits) for a later request with the same prompt."""
        if seq in self._active:
            self._active.remove(seq)
            memory = self._llama_cpp.llama_memory_seq_rm
            if seq.logits is not None and memory(self.ctx.memory, seq.slot, len(seq.prompt), -1):
                self._kept[seq.slot] = (seq.prompt, seq.logits)
            else:
                memory(self.ctx.memory, seq.slot, -1, -1)
            self._free.append(seq.slot)
            self._free.sort()
        seq.sampler.close()

    def fail_all(self, exc: BaseException) -> None:
        """Fail every job in the engine (after an unexpected error in a step)."""
        for job in {id(j): j for j in [s.job for s in self._active] + self._queue}.values():
            self._fail(job, exc)

    def _fail(self, job: GenerationJob, exc: BaseException) -> None:
        for seq in [s for s in self._active if s.job is job]:
            self._release(seq)
        if job in self._queue:
            self._queue.remove(job)
        job.waiting.clear()
        if not job.future.done():
            job.future.set_exception(exc)
