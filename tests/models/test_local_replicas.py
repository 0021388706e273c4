"""``--replicas``: copies of the ``local`` model, each on a llama.cpp thread of its own,
answer what one copy answers, and requests in flight are spread over them. Run for real on
the packaged SmolLM2-135M-Instruct."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from creval.errors import CrevalError
from creval.models import Completion, GenerateRequest, ModelOptions, get_model
from creval.models.local import LocalModel
from creval.models.prompt_scoring import PromptRequest
from tests._cli import creval

REQUESTS = [
    GenerateRequest.chat("Name three unusual uses for a brick.", n=2, seed=3, max_tokens=10, top_p=0.9),
    GenerateRequest.chat("Write a haiku about rain.", seed=8, max_tokens=10, temperature=0.7),
    GenerateRequest.chat("What colour is the sky?", seed=1, max_tokens=8, temperature=0.0),
    GenerateRequest.chat("Name an animal.", n=3, seed=2, max_tokens=8, temperature=0.9,
                         logprobs=True, top_logprobs=2),
]


def _answers(replicas: int) -> tuple[list[list[Completion]], list[float], list[int]]:
    """Every request at once, a prompt scored; and how many sequences each copy took."""
    model = get_model("local", ModelOptions(n_ctx=256, concurrency=2, threads=1, replicas=replicas))
    assert isinstance(model, LocalModel)
    taken = [0] * replicas

    async def run() -> tuple[list[list[Completion]], list[float]]:
        async def one(request: GenerateRequest) -> list[Completion]:
            task = asyncio.ensure_future(model.generate(request))
            await asyncio.sleep(0)  # the request has picked its copy
            for i, replica in enumerate(model.replicas):
                taken[i] += replica.in_flight > 0
            return await task

        answers = list(await asyncio.gather(*(one(r) for r in REQUESTS)))
        scores = await model.prompt_logprobs(PromptRequest(text="The sky is blue today."))
        await model.aclose()
        return answers, [t.logprob for t in scores.tokens]

    answers, logprobs = asyncio.run(run())
    assert not model.loaded
    return answers, logprobs, taken


@pytest.mark.slow
def test_two_copies_answer_what_one_answers_and_share_the_requests() -> None:
    one, one_scores, _ = _answers(1)
    two, two_scores, taken = _answers(2)
    assert [[(c.text, c.finish_reason, c.usage) for c in a] for a in two] == \
        [[(c.text, c.finish_reason, c.usage) for c in a] for a in one]
    assert [[[t.logprob for t in c.tokens or []] for c in a] for a in two] == \
        [[[t.logprob for t in c.tokens or []] for c in a] for a in one]
    assert all(c.tokens for c in two[3])  # every sample of the log-probability request,
    assert len({c.text for c in two[3]}) > 1  # shared out among the copies, in order
    assert two_scores == one_scores
    assert all(taken), taken  # both copies had work


def test_replicas_and_threads_below_one_are_refused(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="--replicas takes a whole number of 1 or more"):
        get_model("local", ModelOptions(replicas=0))
    result = creval("run", "dat", "--model", "local", "--threads", "0", "--out", str(tmp_path / "r"))
    assert result.returncode == 2 and "--threads takes a whole number" in result.stdout + result.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_a_run_with_two_copies_records_what_one_copy_records(tmp_path: Path) -> None:
    """One copy through the Python API, two through the command line: the same records."""
    import creval as api

    options = {"trials": 3, "max_tokens": 40}
    api.evaluate("dat", model="local", threads=1, replicas=1, cache=False, out=tmp_path / "1",
                 **options)
    # in this process: the two copies load at once, and what the command prints must survive
    # llama-cpp-python's silencing of stdout while each loads
    result = creval("run", "dat", "--model", "local", "--trials", "3", "--max-tokens", "40",
                    "--threads", "1", "--replicas", "2", "--no-cache", "--no-progress",
                    "--allow-no-score",  # 40-token lists may hold no valid one: not tested here
                    "--out", str(tmp_path / "2"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "dat: units 3 ok" in result.stdout
    outputs = []
    for run in ("1", "2"):
        lines = (tmp_path / run / "records.jsonl").read_text().splitlines()
        outputs.append(sorted((r["key"], json.dumps(r["output"], sort_keys=True))
                              for r in map(json.loads, lines)))
    assert len(outputs[0]) == 3 and outputs[0] == outputs[1]
