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
(the run directory's ``batches.jsonl``: batch id and input file id, then its status
changes and which lines failed) before it is waited for. A call whose id a batch of
the ledger holds awaits and collects that batch instead of sending it again. Each upload
is written down (input file id, custom ids) before its batch is created, so a batch whose
creation was not written down (a run killed in between, or a creation that timed out) is
looked for by its input file (``batches.list``) before its lines are sent again.

Failures: a line of the error file whose status is 408, 409, 429 or 5xx, a line an
expired, cancelled or failed batch never answered, and a batch that is gone raise
:class:`TransientModelError`, so the runner's retry policy asks again (up to ``--retries``
attempts) and the calls that failed together go together into a new batch holding only
them, after a growing wait: ``batch_poll`` seconds before a line's first resubmission, twice
that before its second, and so on, at most :data:`BACKOFF_CAP_POLLS` polls (a lasting
failure, such as an enqueued-token limit, is not hammered). A line refused with another 4xx
(a bad request) is a :class:`ModelError` with the server's message: asking again would be
refused again, so it becomes the unit's error (a later run tries it again, in a new batch).

Counting: a line counts as one request when the server ran it (its answer or its HTTP error
came back in the batch's output or error file) and this invocation collected it, whichever
invocation submitted it; a line a refused, failed, expired or cancelled batch never ran
counts none. Each batch's id, status and line counts are reported as they change
(:func:`creval.models.base.report_status`: the console above the progress bar, or plain
lines on stderr), and so are the lines sent again and the wait before them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
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
    note_no_request,
    note_request,
    report_status,
)
from creval.models.openai_backend import OpenAIModel
from creval.models.openai_backend import create as create_openai
from creval.models.openai_batch_files import (
    BACKOFF_CAP_POLLS,
    ENDPOINT,
    LEDGER,
    Finished,
    Ledger,
    batch_line,
    batch_options,
    custom_id,
    parse_lines,
    read_ledger,
    resubmission_wait,
    status_counts,
)

__all__ = ["LEDGER", "BatchOpenAIModel", "batch_options", "create",
           "custom_id", "read_ledger"]

if TYPE_CHECKING:
    from creval.models import ModelOptions
    from creval.models.prompt_scoring import PromptRequest, PromptScores

#: OpenAI's caps of one batch: lines, and bytes of its input file (less a margin).
MAX_LINES = 50_000
MAX_BYTES = 190 * 1024 * 1024
#: Batch states after which nothing changes.
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
_TRANSIENT_STATUS = {408, 409, 429}
#: Consecutive failed polls (timeouts, 5xx) before the calls waiting on a batch give up.
POLL_FAILURES = 5
@dataclass
class _Item:
    line: bytes
    futures: list[asyncio.Future[str]]


class BatchOpenAIModel:
    """An ``openai:`` model whose calls go through the Batch API (see the module's text)."""

    def __init__(self, inner: OpenAIModel) -> None:
        if inner.options.batch_poll <= 0 or inner.options.batch_idle < 0:
            raise CrevalError(
                f"--batch-poll takes seconds above 0 (got {inner.options.batch_poll:g}) and the "
                f"idle window 0 or more (got {inner.options.batch_idle:g}).")
        self.inner = inner
        self.spec = inner.spec
        self.options = inner.options
        self.base_url = inner.base_url
        #: every pending unit may call at once: the calls wait in the batch, not the runner
        self.max_concurrency = MAX_LINES
        self.max_lines = MAX_LINES
        self.max_bytes = MAX_BYTES
        self.backoff_cap_polls: float = BACKOFF_CAP_POLLS
        self._ledger: Ledger | None = None
        #: custom id -> how many of its batches ended without its answer, in this invocation
        self._failed: dict[str, int] = {}
        #: custom id -> the wait before its resubmission under way (for the ledger)
        self._waited: dict[str, float] = {}
        #: (batch id, custom id) of the lines counted as requests (one line may serve two calls)
        self._counted: set[tuple[str, str]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reset()

    def _reset(self) -> None:
        self._queue: dict[str, _Item] = {}
        self._queued_bytes = 0
        self._sending: dict[str, list[asyncio.Future[str]]] = {}
        self._last = 0.0
        self._collector: asyncio.Task[None] | None = None
        self._watchers: dict[str, asyncio.Task[Finished]] = {}
        #: the upload and creation under way: not cancelled half-way (see :meth:`aclose`)
        self._submitting: asyncio.Task[str] | None = None
        self._recovery: asyncio.Task[None] | None = None

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

        async def ask(want: int, seed: int | None, done: int) -> Any:
            body = {**self.inner.chat_params(request, want, seed),
                    self.inner.token_param: request.max_tokens}  # fmt: skip
            return await self._answer(body, request.first_sample + done)

        return await self.inner.top_up(request, ask)

    async def _answer(self, body: dict[str, Any], sample: int) -> Any:
        """The chat completion of ``body``: from the batch of the ledger that holds it, else
        from a new batch."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # tasks and futures belong to one event loop
            self._loop = loop
            self._reset()
        cid = custom_id(body, sample)
        ran = False  # counted as a request only when the server ran its line
        try:
            if self.ledger.unconfirmed:
                await self._recovered()
            batch_id = self.ledger.index.get(cid)
            if batch_id is None:  # else submitted by an earlier invocation: collected now
                await self._back_off(cid)
                batch_id = await self._enqueue(cid, body)
            finished = await self._finished(batch_id)
            outcome = finished.lines.get(cid)
            ran = (outcome is not None and outcome.status is not None
                   and (batch_id, cid) not in self._counted)  # fmt: skip
            self._counted.add((batch_id, cid))
            return self._completion(batch_id, cid, finished)
        finally:
            (note_request if ran else note_no_request)()

    async def _back_off(self, cid: str) -> None:
        """Wait before sending ``cid`` again when batches of this invocation ended without
        its answer (see :func:`resubmission_wait`)."""
        times = self._failed.get(cid, 0)
        if times:
            wait = resubmission_wait(self.options.batch_poll, times, self.backoff_cap_polls)
            self._waited[cid] = wait
            await asyncio.sleep(wait)

    def _completion(self, batch_id: str, cid: str, finished: Finished) -> Any:
        """The line's chat completion, or the error it ended in."""
        from openai.types.chat import ChatCompletion
        from pydantic import ValidationError

        outcome = finished.lines.get(cid)
        where = f"batch {batch_id}"
        if outcome is None:
            detail = f": {finished.errors}" if finished.errors else ""
            self._failed[cid] = self._failed.get(cid, 0) + 1
            raise TransientModelError(
                f"{self.spec}: {where} ended {finished.status} without this request's answer"
                f"{detail}", retry_after=0.0)
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
            self._failed[cid] = self._failed.get(cid, 0) + 1
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
                self._submitting = loop.create_task(self._submit(taken))
                batch_id = await asyncio.shield(self._submitting)
            except Exception as exc:  # the calls waiting on these lines get the error
                error = exc if isinstance(exc, ModelError) else ModelError(
                    f"{self.spec}: submitting a batch failed: {type(exc).__name__}: {exc}")
                report_status(f"{self.spec}: a batch of {len(taken)} lines was not submitted: {error}")
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
        except openai.OpenAIError as exc:
            raise self.inner._map_error(exc) from exc
        ids = [cid for cid, _ in taken]
        waits = [self._waited.pop(cid) for cid in ids if cid in self._waited]
        self.ledger.write({"event": "uploaded", "input_file_id": upload.id, "custom_ids": ids})
        try:
            batch = await client.batches.create(
                input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h",
                metadata={"creval_model": self.spec[:500]},
            )
        except openai.OpenAIError as exc:
            error = self.inner._map_error(exc)
            if isinstance(error, TransientModelError):  # it may exist without its answer:
                self.ledger.unconfirm(upload.id)  # look for it before sending these again
                self._recovery = None
            raise error from exc
        again = {"resubmitted": len(waits), "waited": max(waits)} if waits else {}
        self.ledger.write({
            "event": "submitted", "batch_id": batch.id, "input_file_id": upload.id,
            "model": self.spec, "lines": len(taken), **again,
        })
        report_status(f"{self.spec}: batch {batch.id} submitted, {len(taken)} lines"
                      + (f" ({len(waits)} sent again after a {max(waits):g} s wait)" if waits else ""))
        return str(batch.id)

    async def _recovered(self) -> None:
        """Find the batches of uploads the ledger holds without their batch (a run killed
        between creating a batch and writing it down), once, by their input file."""
        if self._recovery is None or (self._recovery.done() and self._recovery.exception()):
            self._recovery = asyncio.get_running_loop().create_task(self._recover())
        await asyncio.shield(self._recovery)

    async def _recover(self) -> None:
        import openai

        orphans = dict(self.ledger.unconfirmed)
        since = self.ledger.unconfirmed_since
        try:
            async for batch in self.inner._client().batches.list(limit=100):
                if batch.input_file_id in orphans:
                    self.ledger.write({"event": "submitted", "batch_id": batch.id,
                                       "input_file_id": batch.input_file_id, "model": self.spec,
                                       "lines": len(orphans.pop(batch.input_file_id)),
                                       "recovered": True})  # fmt: skip
                if not orphans or (batch.created_at or 0) < since - 600:  # newest first
                    break
        except openai.OpenAIError as exc:
            raise self.inner._map_error(exc) from exc
        for file_id in orphans:  # never made into a batch: its requests go again
            self.ledger.write({"event": "orphan", "input_file_id": file_id})

    async def _finished(self, batch_id: str) -> Finished:
        """The batch at its end, polled by one task however many calls wait on it."""
        task = self._watchers.get(batch_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._watch(batch_id))
            self._watchers[batch_id] = task

            def forget_failed(done: asyncio.Task[Finished]) -> None:
                if done.cancelled() or done.exception() is not None:
                    self._watchers.pop(batch_id, None)

            task.add_done_callback(forget_failed)
        return await asyncio.shield(task)

    async def _watch(self, batch_id: str) -> Finished:
        """Poll ``batch_id`` until it ends, then read its output and error files and write
        to the ledger which of its lines failed."""
        import openai

        client = self.inner._client()
        status, failures, first = "", 0, True
        shown: tuple[str, Any] = ("", None)  # the status and counts last reported
        while True:
            if not first:
                await asyncio.sleep(self.options.batch_poll)
            first = False
            try:
                batch = await client.batches.retrieve(batch_id)
            except openai.NotFoundError:
                return self._end(batch_id, Finished("gone", errors="the server no longer knows it"))
            except openai.OpenAIError as exc:
                error = self.inner._map_error(exc)
                failures += 1
                if isinstance(error, EndpointUnreachable) or not isinstance(
                        error, TransientModelError) or failures >= POLL_FAILURES:
                    raise error from exc
                continue
            failures = 0
            counts = batch.request_counts.model_dump() if batch.request_counts else None
            if batch.status != status:
                status = str(batch.status)
                self.ledger.write({"event": "status", "batch_id": batch_id, "status": status,
                                   "request_counts": counts})  # fmt: skip
            if (status, counts) != shown:
                shown = (status, counts)
                report_status(f"{self.spec}: batch {batch_id} {status}{status_counts(counts)}")
            if status in TERMINAL:
                break
        errors = "; ".join(str(e.message) for e in (getattr(batch.errors, "data", None) or []))
        finished = Finished(status, errors=redact_text(errors))
        for file_id in (batch.error_file_id, batch.output_file_id):  # answers win
            if file_id:
                try:
                    content = await client.files.content(file_id)
                except openai.OpenAIError as exc:
                    raise self.inner._map_error(exc) from exc
                finished.lines.update(parse_lines(content.text))
        return self._end(batch_id, finished, batch.output_file_id, batch.error_file_id)

    def _end(self, batch_id: str, finished: Finished, output_file_id: str | None = None,
             error_file_id: str | None = None) -> Finished:
        failed = [cid for cid in self.ledger.members.get(batch_id, [])
                  if (line := finished.lines.get(cid)) is None or line.body is None]  # fmt: skip
        members = len(self.ledger.members.get(batch_id, []))
        self.ledger.write({
            "event": "finished", "batch_id": batch_id, "status": finished.status,
            "output_file_id": output_file_id, "error_file_id": error_file_id,
            "answered": members - len(failed), "failed": failed,
        })
        report_status(f"{self.spec}: batch {batch_id} ended {finished.status}: "
                      f"{members - len(failed)} of {members} lines answered"
                      + (f"; {finished.errors}" if finished.errors else ""))
        return finished

    async def aclose(self) -> None:
        """Stop collecting and polling, and close the SDK client."""
        if self._loop is asyncio.get_running_loop():  # tasks of another loop died with it
            if self._submitting is not None:  # a batch created must reach the ledger
                await asyncio.wait([self._submitting], timeout=self.options.timeout)
            tasks = [t for t in (self._collector, *self._watchers.values()) if t is not None]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        self._reset()
        await self.inner.aclose()


def create(name: str, options: ModelOptions) -> BatchOpenAIModel:
    """``openai:MODEL --batch``: the plain backend's requests, sent as batches."""
    return BatchOpenAIModel(create_openai(name, options))
