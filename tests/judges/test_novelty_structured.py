"""The pairwise novelty judge asking for ``{"choice": LABEL}``: the real small model
(llama.cpp) answers in that shape and the strict parser reads the label."""

from __future__ import annotations

import asyncio

from creval.judges.novelty import NoveltyItem, PairwiseNoveltyJudge
from judges.recorder import Recorder

PROBLEM = "Your kite is stuck in a tree. You have a broom, a rope and a tennis ball."
A = NoveltyItem("a", PROBLEM, "Poke the kite down with the broom.")
B = NoveltyItem("b", PROBLEM, "Tie the rope to the tennis ball, throw it over the branch and shake it.")


def test_small_model_constrained_choices_parse() -> None:
    generate = Recorder()
    requests = generate.requests
    model = generate.model
    assert model is not None
    judge = PairwiseNoveltyJudge.create(generate, structured=model.capabilities.structured_output)
    comparison = asyncio.run(judge.compare(A, B))
    assert comparison.ab.error is None and comparison.ba.error is None, comparison
    assert comparison.outcome in ("a", "b", "tie")
    assert all(r.response_schema == judge.choice_schema() and r.max_tokens == 16 for r in requests)
    assert comparison.ab.raw.lstrip().startswith("{")  # the model's JSON is what is kept
    free = asyncio.run(PairwiseNoveltyJudge.create(generate).compare(A, B))
    assert requests[-1].response_schema is None and requests[-1].max_tokens == 8
    assert free.ab.raw != comparison.ab.raw
