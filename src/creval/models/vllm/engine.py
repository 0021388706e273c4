"""The engine half of the ``vllm:`` backend: ``vllm.LLM`` instances (one in this process, or
one per Ray actor for data parallelism) fed by one thread that gathers concurrent jobs into
one ``generate`` batch per engine. vLLM and Ray are imported only when the engine starts."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from creval.models.base import GenerateRequest, ModelError
from creval.models.chat_prompt import chat_prompt_ids
from creval.models.vllm.mapping import to_sampling_params


class Tokens:
    """A model's tokenizer work: chat prompts and texts to token ids, ids to text pieces."""

    def __init__(self, tokenizer: Any, max_model_len: int) -> None:
        self.tokenizer, self.context = tokenizer, max_model_len

    def chat_ids(self, request: GenerateRequest) -> list[int]:
        return chat_prompt_ids(self.tokenizer, request)

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=True))

    def pieces(self, ids: list[int]) -> list[str]:
        from creval.models.hf import token_pieces

        return token_pieces(self.tokenizer, ids)

    def max_model_len(self) -> int:
        return self.context


class Engine:
    """One ``vllm.LLM`` (in this process, or inside a Ray actor for data parallelism).

    Everything crossing a process boundary is plain data: token ids and keyword dicts in,
    vLLM's ``RequestOutput`` objects (picklable) out."""

    def __init__(self, model: str, engine_args: dict[str, Any]) -> None:
        from vllm import LLM

        self.llm = LLM(model=model, generation_config="vllm", **engine_args)

    def tokens(self) -> Tokens:
        """Tokenizer work with this engine's own tokenizer (in its process)."""
        return Tokens(self.llm.get_tokenizer(), self.max_model_len())

    @staticmethod
    def driver_tokens(model: str, engine_args: dict[str, Any], max_model_len: int) -> Tokens:
        """Tokenizer work in the driver while the engines are Ray actors (an actor runs one
        call at a time, so tokenizing there would wait behind a whole batch)."""
        from transformers import AutoTokenizer

        return Tokens(AutoTokenizer.from_pretrained(model), max_model_len)

    def max_model_len(self) -> int:
        return int(self.llm.llm_engine.model_config.max_model_len)

    def generate(self, prompts: list[list[int]], kwargs: list[dict[str, Any]]) -> list[Any]:
        params = [to_sampling_params(kw) for kw in kwargs]
        return list(self.llm.generate([{"prompt_token_ids": p} for p in prompts], params, use_tqdm=False))


Job = tuple[list[list[int]], list[dict[str, Any]], "Future[list[Any]]"]


class EnginePool:
    """The engines of one model and the thread that feeds them: jobs submitted from any
    thread are gathered into one ``generate`` batch per engine."""

    def __init__(self, model: str, engine_args: dict[str, Any], *,
                 engine: Callable[[str, dict[str, Any]], Any] | None = None,
                 gpus_per_engine: float | None = None) -> None:
        """``engine``: what builds one engine (default :class:`Engine`; a class, so it can
        also be a Ray actor); ``gpus_per_engine``: a Ray actor's GPUs (default
        ``tensor_parallel_size``)."""
        self.model, self.engine_args = model, dict(engine_args)
        self.replicas = int(self.engine_args.pop("data_parallel_size", 1))
        self._factory: Any = engine or Engine
        self._gpus = (float(self.engine_args.get("tensor_parallel_size", 1))
                      if gpus_per_engine is None else gpus_per_engine)
        self._local = True
        self._engines: list[Any] = []  # Engine, or Ray actor handles
        self._tokens: Any = None  # Tokens
        self._started_ray = False
        self._pending: list[Job] = []
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._failed: ModelError | None = None
        self._ready: Future[None] = Future()
        self._tokenizer_lock = threading.Lock()

    # runs on the feeding thread
    def _start(self) -> None:
        if self.replicas <= 1:
            engine = self._factory(self.model, self.engine_args)
            self._engines, self._tokens = [engine], engine.tokens()
            return
        import ray

        if not ray.is_initialized():
            ray.init()  # RAY_ADDRESS, when set, names the cluster to join
            self._started_ray = True
        self._local = False
        actor = ray.remote(num_gpus=self._gpus)(self._factory)
        self._engines = [actor.remote(self.model, self.engine_args) for _ in range(self.replicas)]
        context = min(ray.get([e.max_model_len.remote() for e in self._engines]))  # all loaded
        self._tokens = self._factory.driver_tokens(self.model, self.engine_args, context)

    def call(self, method: str, *args: Any) -> Any:
        """``method`` of the model's :class:`Tokens`, on the calling thread; waits for the
        engines to load."""
        self._ensure_thread().result()
        with self._tokenizer_lock:  # a fast tokenizer is not to be used by two threads
            return getattr(self._tokens, method)(*args)

    def _ensure_thread(self) -> Future[None]:
        with self._cond:
            if self._closed:
                raise ModelError(f"vllm:{self.model}: the model was closed")
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="creval-vllm", daemon=True)
                self._thread.start()
            return self._ready

    def submit(self, prompts: list[list[int]], kwargs: list[dict[str, Any]]) -> Future[list[Any]]:
        """Generate for ``prompts`` (one keyword dict each) in the next batch."""
        future: Future[list[Any]] = Future()
        self._ensure_thread()
        with self._cond:
            if self._failed is not None:
                future.set_exception(self._failed)
            else:
                self._pending.append((prompts, kwargs, future))
                self._cond.notify()
        return future

    def _loop(self) -> None:
        try:
            self._start()
        except BaseException as exc:  # noqa: BLE001 - a failed load fails every job, now and later
            failed = ModelError(f"vllm:{self.model}: cannot start vLLM ({type(exc).__name__}: {exc}). "
                                "vLLM needs an NVIDIA GPU with CUDA and a model it supports.")
            with self._cond:
                self._failed = failed
            self._ready.set_exception(failed)
            self._fail_pending(failed)
            return
        self._ready.set_result(None)
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if self._closed:
                    break
                jobs, self._pending = self._pending, []
            self._run(jobs)
        self._fail_pending(ModelError(f"vllm:{self.model}: the model was closed"))

    def _fail_pending(self, exc: BaseException) -> None:
        with self._cond:
            jobs, self._pending = self._pending, []
        for job in jobs:
            job[2].set_exception(exc)

    def _run(self, jobs: list[Job]) -> None:
        shards = split_jobs([len(j[0]) for j in jobs], len(self._engines))
        try:
            if self._local:
                results = [self._engines[0].generate(*_merge(jobs, shards[0]))]
            else:
                import ray

                refs = [engine.generate.remote(*_merge(jobs, shard))
                        for engine, shard in zip(self._engines, shards, strict=True) if shard]
                results = ray.get(refs)
            for shard, result in zip([s for s in shards if s], results, strict=True):
                outputs = iter(result)
                for index in shard:
                    jobs[index][2].set_result([next(outputs) for _ in jobs[index][0]])
        except Exception as exc:  # noqa: BLE001 - the batch's unanswered jobs get the error
            if len(jobs) > 1:  # vLLM fails a whole call for one bad request: fail only its job
                for job in jobs:
                    if not job[2].done():
                        self._run([job])
                return
            error = ModelError(f"vllm:{self.model}: generation failed: {type(exc).__name__}: {exc}")
            for job in jobs:
                if not job[2].done():
                    job[2].set_exception(error)

    def close(self) -> None:
        """Stop the feeding thread and release the engines (and a Ray started for them); jobs
        still waiting fail. The next job starts them again."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join()
        if not self._local:
            import ray

            for engine in self._engines:
                ray.kill(engine)
        self._engines = []
        if self._started_ray:
            import ray

            ray.shutdown()
        with self._cond:  # the next job starts the engines again, as hf reloads its model
            self._closed, self._thread, self._failed, self._started_ray = False, None, None, False
            self._ready, self._local = Future(), True


def _merge(jobs: list[Job], indices: list[int]) -> tuple[list[list[int]], list[dict[str, Any]]]:
    prompts = [p for i in indices for p in jobs[i][0]]
    kwargs = [k for i in indices for k in jobs[i][1]]
    return prompts, kwargs


def split_jobs(sizes: list[int], engines: int) -> list[list[int]]:
    """Jobs (their number of prompts) spread over ``engines`` so each gets about as many
    prompts: each job, largest first, goes to the least loaded engine.

    >>> split_jobs([4, 1, 1, 2], 2)
    [[0], [3, 1, 2]]
    """
    shards: list[list[int]] = [[] for _ in range(max(1, engines))]
    load = [0] * len(shards)
    for index in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        target = load.index(min(load))
        shards[target].append(index)
        load[target] += sizes[index]
    return shards
