"""A live progress bar: units done, errors, cache hits, tokens.

The bar is drawn ten times a second (rich's refresh); the runner's updates, one or more per
request, are passed on to it at most as often, the last one and every unit counted.
"""

from __future__ import annotations

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
        self.enabled = enabled and sys.stderr.isatty()
        self.description = description
        self._bar: Any = None
        self._task: Any = None
        self._advanced = 0  # units finished since the last update passed on
        self._next = 0.0  # time.monotonic() from which the next update is passed on
        self._counters: Counters | None = None  # the last counters not passed on

    def __enter__(self) -> Progress:
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

    def _offer(self, counters: Counters) -> None:
        now = time.monotonic()
        if now < self._next:
            self._counters = counters
            return
        self._push(counters)
        self._next = now + INTERVAL

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
        if self._bar is not None:
            if self._counters is not None:  # held back: the bar ends on the last counts
                self._push(self._counters)
            self._bar.__exit__(exc_type, exc, tb)
