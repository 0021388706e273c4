"""``replay:RUN_DIR``: answers taken from an earlier run, so a run can be re-scored offline.

Answers are matched by the conversation (the messages) and the sample index; generation
parameters are not compared, so a replay serves the recorded answer even when, say, the
temperature option was changed. A request the earlier run never made is a ModelError
(it becomes an error record), never a made-up answer.

Prompt log-probabilities (perplexity) recorded by the earlier run are served the same way,
matched by the text, window and stride asked for; a replay that holds some declares
``Capabilities.prompt_logprobs``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.models.base import (
    Capabilities,
    Completion,
    GenerateRequest,
    Message,
    ModelError,
    digest,
)
from creval.models.prompt_scoring import PromptRequest, PromptScores


def _conversation_key(messages: list[dict[str, Any]] | tuple[Message, ...], sample: int) -> str:
    plain = [m.model_dump(mode="json") if isinstance(m, Message) else m for m in messages]
    return digest({"messages": plain, "sample": sample})


class ReplayModel:
    """Serves completions recorded in a run directory's ``records.jsonl``."""

    max_concurrency = 64

    def __init__(self, path: str) -> None:
        from creval.records import RECORDS, latest_records, read_records

        if not path:
            raise CrevalError("replay needs a run directory: --model replay:RUN_DIR")
        root = Path(path)
        file = root / RECORDS if root.is_dir() else root
        if not file.is_file():
            raise CrevalError(
                f"replay: {file} does not exist. Point replay: at a run directory from "
                "`creval run` (it holds records.jsonl)."
            )
        self.spec = f"replay:{path}"
        self._path = file
        #: The recorded run's manifest (its benchmark, options and prompt), when there is one.
        self.manifest: dict[str, Any] | None = None
        manifest = file.parent / "manifest.json"
        if manifest.is_file():
            try:
                self.manifest = json.loads(manifest.read_text(encoding="utf-8"))
            except json.JSONDecodeError:
                self.manifest = None
        self._answers: dict[str, Completion] = {}
        records = read_records(file)
        shaped = False
        # the last line per unit (a retried unit's earlier error lines are superseded)
        for record in latest_records(records).values():
            for call in record.calls:
                shaped = shaped or call.get("request", {}).get("response_schema") is not None
                messages = call.get("request", {}).get("messages", [])
                first = int(call.get("first_sample", 0))
                for offset, completion in enumerate(call.get("completions", [])):
                    key = _conversation_key(messages, first + offset)
                    self._answers.setdefault(key, Completion.model_validate(completion))
        #: digest of a PromptRequest -> the prompt log-probabilities the run recorded for it
        self._scores: dict[str, PromptScores] = {}
        for record in latest_records(records).values():
            for call in record.calls:
                if "prompt_request" in call and "prompt_scores" in call:
                    asked = PromptRequest.model_validate(call["prompt_request"])
                    self._scores.setdefault(digest(asked.model_dump(mode="json")),
                                            PromptScores.model_validate(call["prompt_scores"]))
        has_logprobs = any(c.tokens is not None for c in self._answers.values())
        # a run whose instruments got constrained answers replays them as constrained, so the
        # instruments ask (and parse) as they did
        self.capabilities = Capabilities(logprobs=has_logprobs, n=True, seed=True,
                                         structured_output=shaped,
                                         prompt_logprobs=bool(self._scores))  # fmt: skip

    def identity(self) -> dict[str, Any]:
        return {"provider": "replay", "records": str(self._path.resolve())}

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        first = request.first_sample
        out = []
        for i in range(request.n):
            key = _conversation_key(request.messages, first + i)
            if key not in self._answers:
                raise ModelError(
                    f"the replayed run {self._path} has no answer for this conversation "
                    f"(sample {first + i})"
                )
            out.append(self._answers[key])
        return out

    async def prompt_logprobs(self, request: PromptRequest) -> PromptScores:
        """The recorded prompt log-probabilities of this text, window and stride."""
        found = self._scores.get(digest(request.model_dump(mode="json")))
        if found is None:
            raise ModelError(f"the replayed run {self._path} has no prompt log-probabilities for "
                             "this text with this window and stride")
        return found

    async def aclose(self) -> None:
        return None


def create(name: str, options: Any) -> ReplayModel:
    return ReplayModel(name)
