"""An in-memory cache in front of any :class:`~creval.nli.base.Entailment` backend.

Within one run the same ordered ``(premise, hypothesis)`` pair is classified at most once,
even when two concurrent ``classify`` calls ask for it (the second waits for the first).
It counts what it does: ``requested`` pairs asked for, ``calls`` pairs sent to the backend,
``batches`` backend calls and ``hits`` answers served from memory. :meth:`failures` lists
the verdicts the backend could not give (unparsed LLM answers, counted as neutral), so that
a scorer can report them next to the entropy they went into.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from creval.nli.base import Entailment, NLIResult, check_pairs

__all__ = ["CachingEntailment"]


class CachingEntailment:
    """Memoises ``inner``'s verdicts per ordered pair and counts backend calls."""

    def __init__(self, inner: Entailment) -> None:
        self.inner = inner
        self.spec = inner.spec
        self._done: dict[tuple[str, str], NLIResult] = {}
        self._pending: dict[tuple[str, str], asyncio.Future[NLIResult]] = {}
        self.requested = 0
        self.calls = 0
        self.batches = 0
        self.hits = 0

    def identity(self) -> dict[str, Any]:
        """The backend's identity: caching does not change any verdict."""
        return self.inner.identity()

    def counts(self) -> dict[str, int]:
        """``requested``, ``calls`` (pairs the backend classified), ``batches`` and ``hits``."""
        return {
            "requested": self.requested,
            "calls": self.calls,
            "batches": self.batches,
            "hits": self.hits,
        }

    def failures(self) -> list[tuple[tuple[str, str], NLIResult]]:
        """The classified pairs whose verdict is a stand-in (``failure`` set), in order."""
        return [(pair, r) for pair, r in self._done.items() if r.failed]

    def known(self, premise: str, hypothesis: str) -> NLIResult | None:
        """The cached verdict for a pair, if it has been classified."""
        return self._done.get((premise, hypothesis))

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        """Verdicts for ``pairs``; the pairs not seen before go to the backend in one batch."""
        checked = check_pairs(pairs)
        self.requested += len(checked)
        new = [p for p in dict.fromkeys(checked) if p not in self._done and p not in self._pending]
        waiting = {p: self._pending[p] for p in dict.fromkeys(checked) if p in self._pending}
        self.hits += len(checked) - len(new)
        if new:
            loop = asyncio.get_running_loop()
            futures = {p: loop.create_future() for p in new}
            self._pending.update(futures)
            try:
                results = await self.inner.classify(new)
                if len(results) != len(new):
                    raise RuntimeError(
                        f"{self.spec}: classify returned {len(results)} results for {len(new)} pairs"
                    )
            except BaseException as exc:
                for p, fut in futures.items():
                    self._pending.pop(p, None)
                    if not fut.done():
                        fut.set_exception(exc)
                        fut.exception()  # mark retrieved: the caller gets the error below
                raise
            self.calls += len(new)
            self.batches += 1
            for p, result in zip(new, results, strict=True):
                self._done[p] = result
                self._pending.pop(p, None)
                futures[p].set_result(result)
        for p, fut in waiting.items():
            self._done.setdefault(p, await fut)
        return [self._done[p] for p in checked]
