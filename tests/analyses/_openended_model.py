"""A scripted model for offline open-ended runs (``scripted:NAME``), registered by the tests.

Step prompts: the greedy answer (temperature 0) is ``Step k: <idea>`` for steps 1 and 2 and
DONE after; ``n`` sampled candidates spread over ``distinct`` ideas, where ``distinct`` grows
with the temperature and varies with the problem and step. Candidate ``i`` belongs to idea
``i mod distinct``; each of its tokens has log-probability ``-0.1 * (1 + idea)``.
Judge prompts (``[Proposed solution]``): ``[[YES]] [[0.9]]`` unless the criterion is safety
and the solution mentions fire, then ``[[NO]] [[0.8]]``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from creval.models.base import Capabilities, Completion, GenerateRequest, TokenLogprob, Usage

IDEAS = [
    "Bend the paperclip into a hook and fish the key out of the drain.",
    "Light a candle and use its fire to soften the glue on the lid.",
    "Stack the heavy books under the table leg until it stands level.",
    "Soak the towel in cold water and wrap it around the hot pipe.",
    "Stretch the rubber band across the jar lid for a better grip while twisting.",
    "Pour salt on the icy step so that the ice melts before morning.",
    "Tape the torn map onto the cardboard backing to keep it flat in the wind.",
    "Balance the broom across two chairs to dry the wet socks above the heater.",
]


def _hash(text: str) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)


def _completion(raw: str, logprob: float) -> Completion:
    tokens = [TokenLogprob(token=t, logprob=logprob) for t in re.findall(r"\S+|\s+", raw)]
    return Completion(text=raw, finish_reason="stop", tokens=tokens, usage=Usage(output_tokens=len(tokens)))


class ScriptedModel:
    max_concurrency = 8

    def __init__(self, name: str) -> None:
        self.spec = f"scripted:{name}"
        self.capabilities = Capabilities(logprobs=True, n=True, seed=True)

    def identity(self) -> dict[str, Any]:
        return {"provider": "scripted", "name": self.spec}

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        text = request.messages[-1].content
        assert isinstance(text, str)
        if "[Proposed solution]" in text:
            criterion = re.search(r"Criterion: (\w+)", text)
            solution = text.split("[Proposed solution]", 1)[1]
            no = criterion is not None and criterion.group(1).lower() == "safety" and "fire" in solution
            return [Completion(text="[[NO]] [[0.8]]" if no else "[[YES]] [[0.9]]")] * request.n
        found = re.search(r"Write step (\d+)", text)
        step = int(found.group(1)) if found else 1
        problem = _hash(text.split("Steps of the solution", 1)[0])
        if request.temperature == 0.0:
            raw = "DONE" if step > 2 else f"Step {step}: {IDEAS[(problem + step) % len(IDEAS)]}"
            return [_completion(raw, -0.05)] * request.n
        spread = 1 + (problem + step) % 3
        distinct = max(1, min(request.n, round(spread * 2 * request.temperature)))
        return [_completion(f"Step {step}: {IDEAS[(problem + step + i % distinct) % len(IDEAS)]}",
                            -0.1 * (1 + i % distinct)) for i in range(request.n)]

    async def aclose(self) -> None:
        return None


def create(name: str, options: Any) -> ScriptedModel:
    return ScriptedModel(name)
