"""``openai:MODEL --batch``: the requests of a run through the OpenAI Batch API.

Instead of one chat-completions request per call, :class:`BatchOpenAIModel` gathers the
calls of a run into batch files (JSONL lines ``{"custom_id", "method": "POST", "url":
"/v1/chat/completions", "body"}``), uploads each (files API, ``purpose="batch"``), submits it
(batches API, ``completion_window="24h"``), polls it every ``batch_poll`` seconds and takes
the lines of its output file back as completions. The bodies are those the plain ``openai:``
backend would send, and the answers are read by the same code, so a run gives the same
records either way; the model's identity is the plain backend's, so both share the cache.

When a batch goes: a collector sends the waiting calls as one batch once no call arrived
for ``batch_idle`` seconds, or at OpenAI's caps (50,000 lines, 200 MB). The runner lets
every pending unit call at once (``max_concurrency`` is the line cap); units with a second
turn send it in a later batch, once their first answer is back.

Paying once: each line's ``custom_id`` is a digest of its body and sample index, so the
same call after a restart has the same id; each submitted batch is written to the ledger
(the run directory's ``batches.jsonl``: batch id, input file id, its custom ids, then its
status changes and which lines failed) before it is waited for. A call whose id a batch of
the ledger holds awaits and collects that batch instead of sending it again.

Failures: a line of the error file whose status is 408, 409, 429 or 5xx, a line an
expired, cancelled or failed batch never answered, and a batch that is gone raise
:class:`TransientModelError` with no wait, so the runner's retry policy asks again at once
(up to ``--retries`` attempts) and the calls that failed together go together into a new
batch holding only them. A line refused with another 4xx (a bad request) is a
:class:`ModelError` with the server's message: asking again would be refused again, so it
becomes the unit's error (a later run tries it again, in a new batch).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval._util.redact import redact_text
from creval.errors import CrevalError
from creval.models.base import (
    Capabilities,
    Completion,
    EndpointUnreachable,
    GenerateRequest,
    ModelError,
    TransientModelError,
    digest,
    note_request,
)
from creval.models.openai_backend import OpenAIModel
from creval.models.openai_backend import create as create_openai

if TYPE_CHECKING:
    from creval.models import ModelOptions
    from creval.models.prompt_scoring import PromptRequest, PromptScores

#: OpenAI's caps of one batch: lines, and bytes of its input file (less a margin).
MAX_LINES = 50_000
MAX_BYTES = 190 * 1024 * 1024
ENDPOINT = "/v1/chat/completions"
LEDGER = "batches.jsonl"
#: Batch states after which nothing changes.
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
_TRANSIENT_STATUS = {408, 409, 429}
#: Consecutive failed polls (timeouts, 5xx) before the calls waiting on a batch give up.
POLL_FAILURES = 5


def custom_id(body: dict[str, Any], sample: int) -> str:
    """The line id of ``body`` as sample ``sample``: the same call gets the same id.

    >>> a = custom_id({"model": "m", "messages": []}, 0)
    >>> a == custom_id({"messages": [], "model": "m"}, 0), a == custom_id({"model": "m", "messages": []}, 1)
    (True, False)
    >>> a.startswith("creval-"), len(a)
    (True, 47)
    """
    return "creval-" + digest({"body": body, "sample": sample})[:40]


def batch_line(cid: str, body: dict[str, Any]) -> bytes:
    """One line of a batch input file.

    >>> batch_line("c1", {"model": "m"})
    b'{"custom_id":"c1","method":"POST","url":"/v1/chat/completions","body":{"model":"m"}}\\n'
    """
    line = {"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": body}
    return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def batch_options(options: ModelOptions, spec: str, out: Path) -> ModelOptions:
    """``options`` with the ledger in run directory ``out`` when ``--batch`` is on; a model
    without a Batch API is a :class:`CrevalError` that says which have one.

    >>> from creval.models import ModelOptions
    >>> batch_options(ModelOptions(batch=True), "openai:m", Path("run")).batch_ledger
    PosixPath('run/batches.jsonl')
    >>> batch_options(ModelOptions(batch=True), "local", Path("run"))
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: --batch needs a model with a batch API; local has none. Backends with one: openai: (the OpenAI Batch API, and servers that implement its files and batches endpoints). Drop --batch, or use --model openai:NAME.
    """
    if not options.batch:
        return options
    if not spec.startswith("openai:"):
        raise CrevalError(
            f"--batch needs a model with a batch API; {spec} has none. Backends with one: "
            "openai: (the OpenAI Batch API, and servers that implement its files and batches "
            "endpoints). Drop --batch, or use --model openai:NAME."
        )
    return options.model_copy(update={"batch_ledger": Path(out) / LEDGER})


def read_ledger(path: Path) -> list[dict[str, Any]]:
    """The records of a ledger; a torn last line (a killed run) is left out."""
    if not path.is_file():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            if isinstance(record, dict):
                records.append(record)
    return records


def ledger_summary(path: Path) -> list[dict[str, Any]]:
    """Each submitted batch of a ledger: id, lines, last status, lines that failed."""
    batches: dict[str, dict[str, Any]] = {}
    for record in read_ledger(path):
        batch_id = str(record.get("batch_id"))
        if record.get("event") == "submitted":
            batches[batch_id] = {"batch": batch_id, "lines": record.get("lines"),
                                 "status": "submitted", "failed": 0}  # fmt: skip
        elif batch_id in batches:
            batches[batch_id]["status"] = record.get("status", batches[batch_id]["status"])
            if record.get("event") == "finished":
                batches[batch_id]["failed"] = len(record.get("failed") or [])
    return list(batches.values())


def batches_section(run_dir: Path) -> str:
    """The report's line on the run's batches (``--batch``); empty without a ledger.

    >>> batches_section(Path("/nonexistent"))
    ''
    """
    batches = ledger_summary(run_dir / LEDGER)
    if not batches:
        return ""
    each = ", ".join(f"`{b['batch']}` ({b['lines']} lines, {b['status']}"
                     + (f", {b['failed']} failed" if b["failed"] else "") + ")" for b in batches)
    return f"\n## Batches\n\n- OpenAI Batch API, {len(batches)} batch(es) ({LEDGER}): {each}\n"


class Ledger:
    """The batches of a run: which batch holds each custom id, written through to a file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        #: custom id -> the batch that holds it and has not failed it
        self.index: dict[str, str] = {}
        #: batch id -> its custom ids
        self.members: dict[str, list[str]] = {}
        for record in read_ledger(path) if path is not None else []:
            self._apply(record)

    def _apply(self, record: dict[str, Any]) -> None:
        batch_id = str(record.get("batch_id"))
        if record.get("event") == "submitted":
            ids = [str(c) for c in record.get("custom_ids") or []]
            self.members[batch_id] = ids
            self.index.update(dict.fromkeys(ids, batch_id))
        elif record.get("event") == "finished":
            for cid in record.get("failed") or []:
                if self.index.get(cid) == batch_id:
                    del self.index[cid]

    def write(self, record: dict[str, Any]) -> None:
        """Apply ``record`` and append it to the file, flushed to disk before returning."""
        record = {**record, "time": round(time.time(), 3)}
        self._apply(record)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())


@dataclass
class _Outcome:
    """One line of an output or error file."""

    status: int | None  # the HTTP status of the line's response; None: no response
    body: dict[str, Any] | None = None
    message: str = ""
    code: str | None = None


@dataclass
class _Finished:
    """A batch at its end: its lines by custom id, and its state."""

    status: str
    lines: dict[str, _Outcome] = field(default_factory=dict)
    errors: str = ""


def _error_text(body: Any) -> tuple[str, str | None]:
    """Message and code of an error body (``{"error": {...}}``) or error object."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    if isinstance(body, dict):
        return str(body.get("message") or body), body.get("code")
    return str(body), None


def parse_lines(text: str) -> dict[str, _Outcome]:
    """The lines of an output or error file by custom id.

    >>> out = parse_lines('{"custom_id": "a", "response": {"status_code": 200, "body": {"x": 1}}}\\n'
    ...                   '{"custom_id": "b", "response": null, "error": {"code": "batch_expired", "message": "late"}}')
    >>> out["a"].status, out["a"].body, out["b"].status, out["b"].code, out["b"].message
    (200, {'x': 1}, None, 'batch_expired', 'late')
    """
    lines: dict[str, _Outcome] = {}
    for raw in text.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(line, dict) or "custom_id" not in line:
            continue
        response = line.get("response") or {}
        status = response.get("status_code")
        body = response.get("body")
        if status == 200 and isinstance(body, dict) and not line.get("error"):
            lines[str(line["custom_id"])] = _Outcome(200, body)
            continue
        message, code = _error_text(line.get("error") or body)
        lines[str(line["custom_id"])] = _Outcome(status if status != 200 else None, None, message, code)
    return lines


@dataclass
class _Item:
    line: bytes
    futures: list[asyncio.Future[str]]


class BatchOpenAIModel:
    """An ``openai:`` model whose calls go through the Batch API (see the module's text)."""

    def __init__(self, inner: OpenAIModel) -> None:
        self.inner = inner
        self.spec = inner.spec
        self.options = inner.options
        self.base_url = inner.base_url
        #: every pending unit may call at once: the calls wait in the batch, not the runner
        self.max_concurrency = MAX_LINES
        self.max_lines = MAX_LINES
        self.max_bytes = MAX_BYTES
        self._ledger: Ledger | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reset()

    def _reset(self) -> None:
        self._queue: dict[str, _Item] = {}
        self._queued_bytes = 0
        self._sending: dict[str, list[asyncio.Future[str]]] = {}
        self._last = 0.0
        self._collector: asyncio.Task[None] | None = None
        self._watchers: dict[str, asyncio.Task[_Finished]] = {}

    @property
    def capabilities(self) -> Capabilities:
        return self.inner.capabilities

    @capabilities.setter
    def capabilities(self, value: Capabilities) -> None:
        self.inner.capabilities = value

    def identity(self) -> dict[str, Any]:
        """The plain ``openai:`` model's: the same answers, the same cache entries."""
        return self.inner.identity()

    async def check(self) -> None:
        """The plain backend's check (endpoint, key, the probes asked for)."""
        await self.inner.check()

    async def prompt_logprobs(self, request: PromptRequest) -> PromptScores:
        """Prompt log-probabilities, asked for directly (the Batch API has no such call)."""
        return await self.inner.prompt_logprobs(request)

    @property
    def ledger(self) -> Ledger:
        if self._ledger is None:
            self._ledger = Ledger(self.options.batch_ledger)
        return self._ledger

    # -- generation ---------------------------------------------------------------------------
    async def generate(self, request: GenerateRequest) -> list[Completion]:
        """Exactly ``request.n`` completions, a further line for samples the server left out."""
        completions: list[Completion] = []
        while len(completions) < request.n:
            want = request.n - len(completions)
            seed = None if request.seed is None else request.seed + len(completions)
            body = {**self.inner.chat_params(request, want, seed),
                    self.inner.token_param: request.max_tokens}  # fmt: skip
            response = await self._answer(body, request.first_sample + len(completions))
            choices = sorted(response.choices or [], key=lambda c: c.index)[:want]
            if not choices:
                raise ModelError(f"{self.spec}: {self.base_url} returned no choices")
            completions.extend(self.inner._completions(response, choices, request))
        return completions

    async def _answer(self, body: dict[str, Any], sample: int) -> Any:
        """The chat completion of ``body``: from the batch of the ledger that holds it, else
        from a new batch."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # tasks and futures belong to one event loop
            self._loop = loop
            self._reset()
        cid = custom_id(body, sample)
        batch_id = self.ledger.index.get(cid)
        if batch_id is None:
            note_request()
            batch_id = await self._enqueue(cid, body)
        finished = await self._finished(batch_id)
        return self._completion(batch_id, cid, finished)

    def _completion(self, batch_id: str, cid: str, finished: _Finished) -> Any:
        """The line's chat completion, or the error it ended in."""
        from openai.types.chat import ChatCompletion
        from pydantic import ValidationError

        outcome = finished.lines.get(cid)
        where = f"batch {batch_id}"
        if outcome is None:
            detail = f": {finished.errors}" if finished.errors else ""
            raise TransientModelError(
                f"{self.spec}: {where} ended {finished.status} without this request's answer"
                f"{detail}; it goes into a new batch", retry_after=0.0)
        if outcome.body is not None:
            try:
                return ChatCompletion.model_validate(outcome.body)
            except ValidationError as exc:
                raise ModelError(f"{self.spec}: {where} answered with no chat completion: "
                                 f"{redact_text(str(exc))[:300]}") from exc  # fmt: skip
        message = redact_text(outcome.message)
        status = outcome.status
        if status is None or status in _TRANSIENT_STATUS or status >= 500:
            what = outcome.code or f"HTTP {status}"
            raise TransientModelError(f"{self.spec}: {where}: {what}: {message}", retry_after=0.0)
        if (status == 400 and "max_completion_tokens" in message
                and self.inner.token_param == "max_tokens"):  # fmt: skip
            self.inner.token_param = "max_completion_tokens"  # newer models: ask again so
            raise TransientModelError(f"{self.spec}: {message}", retry_after=0.0)
        raise ModelError(f"{self.spec}: {message} ({where}, HTTP {status})")

    # -- batches ------------------------------------------------------------------------------
    async def _enqueue(self, cid: str, body: dict[str, Any]) -> str:
        """Wait for ``cid``'s line to be in a submitted batch; that batch's id."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()
        if cid in self._sending:  # the same call is being submitted: one line serves both
            self._sending[cid].append(future)
        elif cid in self._queue:
            self._queue[cid].futures.append(future)
        else:
            line = batch_line(cid, body)
            self._queue[cid] = _Item(line, [future])
            self._queued_bytes += len(line)
        self._last = loop.time()
        if self._collector is None or self._collector.done():
            self._collector = loop.create_task(self._collect())
        return await future

    async def _collect(self) -> None:
        """Send the waiting lines as batches: after ``batch_idle`` seconds without a new
        call, or at once when they reach a cap."""
        loop = asyncio.get_running_loop()
        while self._queue:
            while len(self._queue) < self.max_lines and self._queued_bytes < self.max_bytes:
                wait = self._last + self.options.batch_idle - loop.time()
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            taken: list[tuple[str, bytes]] = []
            size = 0
            for cid, item in list(self._queue.items()):
                if len(taken) >= self.max_lines or (taken and size + len(item.line) > self.max_bytes):
                    break
                taken.append((cid, item.line))
                size += len(item.line)
                del self._queue[cid]
                self._queued_bytes -= len(item.line)
                self._sending[cid] = item.futures
            try:
                batch_id = await self._submit(taken)
            except Exception as exc:  # the calls waiting on these lines get the error
                error = exc if isinstance(exc, ModelError) else ModelError(
                    f"{self.spec}: submitting a batch failed: {type(exc).__name__}: {exc}")
                for cid, _ in taken:
                    for future in self._sending.pop(cid, []):
                        if not future.done():
                            future.set_exception(error)
                continue
            for cid, _ in taken:
                for future in self._sending.pop(cid, []):
                    if not future.done():
                        future.set_result(batch_id)

    async def _submit(self, taken: list[tuple[str, bytes]]) -> str:
        """Upload the lines, create their batch and write it to the ledger; its id."""
        import openai

        client = self.inner._client()
        data = b"".join(line for _, line in taken)
        try:
            upload = await client.files.create(
                file=("creval-batch.jsonl", data, "application/jsonl"), purpose="batch")
            batch = await client.batches.create(
                input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h",
                metadata={"creval_model": self.spec[:500]},
            )
        except openai.OpenAIError as exc:
            raise self.inner._map_error(exc) from exc
        self.ledger.write({
            "event": "submitted", "batch_id": batch.id, "input_file_id": upload.id,
            "model": self.spec, "lines": len(taken), "custom_ids": [cid for cid, _ in taken],
        })
        return str(batch.id)

    async def _finished(self, batch_id: str) -> _Finished:
        """The batch at its end, polled by one task however many calls wait on it."""
        task = self._watchers.get(batch_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._watch(batch_id))
            self._watchers[batch_id] = task

            def forget_failed(done: asyncio.Task[_Finished]) -> None:
                if done.cancelled() or done.exception() is not None:
                    self._watchers.pop(batch_id, None)

            task.add_done_callback(forget_failed)
        return await asyncio.shield(task)

    async def _watch(self, batch_id: str) -> _Finished:
        """Poll ``batch_id`` until it ends, then read its output and error files and write
        to the ledger which of its lines failed."""
        import openai

        client = self.inner._client()
        status, failures, first = "", 0, True
        while True:
            if not first:
                await asyncio.sleep(self.options.batch_poll)
            first = False
            try:
                batch = await client.batches.retrieve(batch_id)
            except openai.NotFoundError:
                return self._end(batch_id, _Finished("gone", errors="the server no longer knows it"))
            except openai.OpenAIError as exc:
                error = self.inner._map_error(exc)
                failures += 1
                if isinstance(error, EndpointUnreachable) or not isinstance(
                        error, TransientModelError) or failures >= POLL_FAILURES:
                    raise error from exc
                continue
            failures = 0
            if batch.status != status:
                status = str(batch.status)
                counts = batch.request_counts.model_dump() if batch.request_counts else None
                self.ledger.write({"event": "status", "batch_id": batch_id, "status": status,
                                   "request_counts": counts})  # fmt: skip
            if status in TERMINAL:
                break
        errors = "; ".join(str(e.message) for e in (getattr(batch.errors, "data", None) or []))
        finished = _Finished(status, errors=redact_text(errors))
        for file_id in (batch.error_file_id, batch.output_file_id):  # answers win
            if file_id:
                try:
                    content = await client.files.content(file_id)
                except openai.OpenAIError as exc:
                    raise self.inner._map_error(exc) from exc
                finished.lines.update(parse_lines(content.text))
        return self._end(batch_id, finished, batch.output_file_id, batch.error_file_id)

    def _end(self, batch_id: str, finished: _Finished, output_file_id: str | None = None,
             error_file_id: str | None = None) -> _Finished:
        failed = [cid for cid in self.ledger.members.get(batch_id, [])
                  if (line := finished.lines.get(cid)) is None or line.body is None]  # fmt: skip
        self.ledger.write({
            "event": "finished", "batch_id": batch_id, "status": finished.status,
            "output_file_id": output_file_id, "error_file_id": error_file_id,
            "answered": len(self.ledger.members.get(batch_id, [])) - len(failed),
            "failed": failed,
        })
        return finished

    async def aclose(self) -> None:
        """Stop collecting and polling, and close the SDK client."""
        if self._loop is asyncio.get_running_loop():  # tasks of another loop died with it
            tasks = [t for t in (self._collector, *self._watchers.values()) if t is not None]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        self._reset()
        await self.inner.aclose()


def create(name: str, options: ModelOptions) -> BatchOpenAIModel:
    """``openai:MODEL --batch``: the plain backend's requests, sent as batches."""
    return BatchOpenAIModel(create_openai(name, options))
