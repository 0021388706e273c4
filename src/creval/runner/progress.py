"""A live progress bar: units done, errors, cache hits, tokens; and the backends' status lines.

The bar is drawn ten times a second (rich's refresh); the runner's updates, one or more per
request, are passed on to it at most as often, the last one and every unit counted: an update
held back is passed on :data:`INTERVAL` seconds later even when no other follows (a batch's
answers arrive in one burst, and then nothing may happen for hours).

Backends that wait long on work of their own (a batch's id, status and line counts:
:func:`creval.models.base.report_status`) have their lines printed above the bar on a
terminal, and as plain lines on stderr when it is not one (a log file, a pipe), when progress
is shown at all.
"""

from __future__ import annotations

import asyncio
import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from creval.runner.counters import Counters


#: Seconds between two updates passed on to the bar.
INTERVAL = 0.1


class Progress:
    """Context manager around a rich progress bar; silent when disabled or not a terminal."""

    def __init__(self, *, total: int, enabled: bool = True, description: str = "running") -> None:
        self.total = total
        #: status lines are shown when progress is asked for, terminal or not
        self.requested = enabled
        self.enabled = enabled and sys.stderr.isatty()
        self.description = description
        self._bar: Any = None
        self._task: Any = None
        self._advanced = 0  # units finished since the last update passed on
        self._next = 0.0  # time.monotonic() from which the next update is passed on
        self._counters: Counters | None = None  # the last counters not passed on
        self._trailing: asyncio.TimerHandle | None = None  # passes them on later
        self._listening: Any = None  # the token of the status listener

    def __enter__(self) -> Progress:
        if self.requested:
            from creval.models.base import listen_status

            self._listening = listen_status(self.note)
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("errors {task.fields[errors]}"),
                TextColumn("cache hits {task.fields[hits]}"),
                TextColumn("tokens {task.fields[tokens]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task(
                self.description, total=self.total, errors=0, hits=0, tokens=0
            )
        return self

    def _fields(self, counters: Counters) -> dict[str, int]:
        return {
            "errors": counters.units_failed,
            "hits": counters.total("cache_hits"),
            "tokens": counters.total("input_tokens") + counters.total("output_tokens"),
        }

    def update(self, counters: Counters) -> None:
        if self._bar is not None:
            self._offer(counters)

    def advance(self, counters: Counters) -> None:
        if self._bar is not None:
            self._advanced += 1
            self._offer(counters)

    def note(self, text: str) -> None:
        """A status line: above the bar on a terminal, else a plain line on stderr."""
        if self._bar is not None:
            self._bar.console.print(text, highlight=False, markup=False, emoji=False, soft_wrap=True)
        else:
            print(text, file=sys.stderr, flush=True)

    def _offer(self, counters: Counters) -> None:
        now = time.monotonic()
        if now < self._next:
            self._counters = counters
            self._later(self._next - now)
            return
        self._push(counters)
        self._next = now + INTERVAL

    def _later(self, delay: float) -> None:
        """Pass the held-back update on after ``delay`` seconds unless one goes before."""
        if self._trailing is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop: the next update, or the end, passes it on
            return
        self._trailing = loop.call_later(delay, self._flush)

    def _flush(self) -> None:
        self._trailing = None
        if self._bar is not None and self._counters is not None:
            self._push(self._counters)
            self._next = time.monotonic() + INTERVAL

    def _push(self, counters: Counters) -> None:
        self._bar.update(self._task, advance=self._advanced, **self._fields(counters))
        self._advanced = 0
        self._counters = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._trailing is not None:
            self._trailing.cancel()
            self._trailing = None
        if self._listening is not None:
            from creval.models.base import stop_listening

            stop_listening(self._listening)
            self._listening = None
        if self._bar is not None:
            if self._counters is not None:  # held back: the bar ends on the last counts
                self._push(self._counters)
            self._bar.__exit__(exc_type, exc, tb)
