"""A deterministic entailment backend for tests of the cache and the clustering driver:
its verdicts come from a plain function, and it records every batch it is sent."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from creval.nli import NLIResult


class OracleEntailment:
    spec = "oracle"

    def __init__(self, verdict: Callable[[str, str], str], *, delay: float = 0.0) -> None:
        self.verdict = verdict
        self.delay = delay
        self.batches: list[list[tuple[str, str]]] = []

    def identity(self) -> dict[str, Any]:
        return {"backend": "oracle"}

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        self.batches.append(list(pairs))
        if self.delay:
            await asyncio.sleep(self.delay)
        return [NLIResult(label=self.verdict(p, h)) for p, h in pairs]  # type: ignore[arg-type]

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return [p for batch in self.batches for p in batch]
