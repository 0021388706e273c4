"""A live progress bar: units done, errors, cache hits, tokens; and the backends' status lines.

The bar is drawn ten times a second (rich's refresh); the runner's updates, one or more per
request, are passed on to it at most as often, the last one and every unit counted: an update
held back is passed on :data:`INTERVAL` seconds later even when no other follows (a batch's
answers arrive in one burst, and then nothing may happen for hours).

When stderr is not a terminal (a log file, a pipe), there is no bar: a plain line every
:data:`PLAIN_EVERY` seconds says how far the run is (units done of all, the rate, retries,
timeouts, the time left), so a run that waits on a slow server is never silent.

Backends that wait long on work of their own (a batch's id, status and line counts:
:func:`creval.models.base.report_status`) have their lines printed above the bar on a
terminal, and as plain lines on stderr when it is not one, when progress is shown at all.
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
#: Seconds between two plain progress lines when stderr is not a terminal.
PLAIN_EVERY = 15.0


class Progress:
    """Context manager around a rich progress bar; silent when disabled or not a terminal."""

    def __init__(self, *, total: int, enabled: bool = True, description: str = "running",
                 counters: Counters | None = None) -> None:
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
        #: the run's counters, read for the plain lines (those already counted set aside)
        self._run = counters
        self._before = 0 if counters is None else _finished(counters)
        self._started = time.monotonic()
        self._plain: asyncio.TimerHandle | None = None  # the next plain line

    def __enter__(self) -> Progress:
        if self.requested:
            from creval.models.base import listen_status

            self._listening = listen_status(self.note)
        if self.requested and not self.enabled and self._run is not None:
            self._plain_later()
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

    def _plain_later(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop: no plain lines
            return
        self._plain = loop.call_later(PLAIN_EVERY, self._plain_line)

    def _plain_line(self) -> None:
        """The run so far, as one plain line on stderr; and the next one later."""
        if self._run is not None:
            print(self.line(self._run), file=sys.stderr, flush=True)
        self._plain_later()

    def line(self, counters: Counters) -> str:
        """``dat: 12/40 units (1 failed), 0.80 units/s, 3 retries, 2 timeouts, about 35 s left``."""
        done = _finished(counters) - self._before
        elapsed = max(time.monotonic() - self._started, 1e-9)
        rate = done / elapsed
        failed = f" ({counters.units_failed} failed)" if counters.units_failed else ""
        left = (f"about {_duration((self.total - done) / rate)} left" if rate > 0
                else f"none finished in {_duration(elapsed)}")
        return (f"{self.description}: {done}/{self.total} units{failed}, {rate:.2f} units/s, "
                f"{counters.total('retries')} retries, {counters.total('timeouts')} timeouts, "
                f"{left}")

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
        if self._plain is not None:
            self._plain.cancel()
            self._plain = None
        if self._listening is not None:
            from creval.models.base import stop_listening

            stop_listening(self._listening)
            self._listening = None
        if self._bar is not None:
            if self._counters is not None:  # held back: the bar ends on the last counts
                self._push(self._counters)
            self._bar.__exit__(exc_type, exc, tb)


def _finished(counters: Counters) -> int:
    return counters.units_ok + counters.units_failed + counters.units_not_run


def _duration(seconds: float) -> str:
    """``75`` -> ``1 min 15 s``.

    >>> _duration(42.4), _duration(75), _duration(7300)
    ('42 s', '1 min 15 s', '2 h 1 min')
    """
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
