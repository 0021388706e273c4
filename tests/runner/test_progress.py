"""The progress bar and the status lines of backends (creval.runner.progress)."""

from __future__ import annotations

import asyncio
import io
import sys

import pytest

from creval.models.base import report_status
from creval.runner.counters import Counters
from creval.runner.progress import INTERVAL, Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_burst_of_finished_units_reaches_the_bar_with_no_later_update(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's answers arrive at once and then nothing may happen for hours: the updates
    the throttle held back reach the bar INTERVAL later, not at the next update."""
    monkeypatch.setattr(sys, "stderr", _Terminal())
    counters = Counters()

    async def main() -> tuple[float, float]:
        with Progress(total=5) as progress:
            for _ in range(5):
                counters.units_ok += 1
                progress.advance(counters)
            task = progress._bar.tasks[0]
            at_once = task.completed  # the first passed on, four held back
            await asyncio.sleep(3 * INTERVAL)
            return at_once, task.completed

    assert asyncio.run(main()) == (1, 5)


def test_status_lines_go_above_the_bar_or_to_a_log(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with Progress(total=1):
        report_status("openai:m: batch b1 in_progress, 0 of 4 lines done, 0 failed")
    assert "openai:m: batch b1 in_progress, 0 of 4 lines done" in terminal.getvalue()  # no emoji

    log = io.StringIO()  # not a terminal: no bar, a plain line each
    monkeypatch.setattr(sys, "stderr", log)
    with Progress(total=1) as progress:
        assert progress._bar is None
        report_status("openai:m: batch b1 completed")
    report_status("after the run: nobody listens")
    with Progress(total=1, enabled=False):  # --no-progress: silent
        report_status("not shown")
    assert log.getvalue() == "openai:m: batch b1 completed\n"
