"""The pieces of ``creval rank`` below the CLI: reading a judge's answer and the sampling design."""

from __future__ import annotations

import pytest

from creval.errors import CrevalError
from creval.evaluation.rank import parse_winner
from creval.evaluation.rank_items import plan_pairs


@pytest.mark.parametrize("text, winner", [
    ("Winner: A", "A"), ("winner: b", "B"), ("Winner: tie", "tie"), ("**Winner:** Answer B", "B"),
    ("A is vivid. B is flat.\nWinner: A", "A"), ('{"winner": "B"}', "B"), ("B", "B"), ("'Answer A'.", "A"),
    ("Winner: [A]", "A"), ("I first thought Winner: A, but on reflection Winner: B", "B"),
    ("Both are good.", None), ("A or B", None), ("", None), ('{"winner": "C"}', None),
])
def test_parse_winner(text: str, winner: str | None) -> None:
    assert parse_winner(text) == winner


def _connected(labels: list[str], pairs: list[tuple[str, str]]) -> bool:
    seen, todo = {labels[0]}, [labels[0]]
    while todo:
        m = todo.pop()
        for a, b in pairs:
            for x, y in ((a, b), (b, a)):
                if x == m and y not in seen:
                    seen.add(y)
                    todo.append(y)
    return seen == set(labels)


def test_designs_are_connected_and_cost_what_they_say() -> None:
    six = [f"m{i}" for i in range(6)]
    assert plan_pairs(six).name == "all" and len(plan_pairs(six).pairs) == 15
    twelve = [f"m{i}" for i in range(12)]
    d = plan_pairs(twelve, anchors=["m0", "m1"])  # auto: anchored beyond six models
    assert d.name == "anchored" and d.opponents == 3
    assert all((a, m) in d.pairs for a in ("m0", "m1") for m in twelve[2:])
    assert len(d.pairs) == 1 + 2 * 10 + 10 * 3  # the anchors' pair, each against the ten, a ring of 3
    assert _connected(twelve, d.pairs) and len(d.pairs) < 66
    assert d.requests(items=10, judges=2) == 2 * len(d.pairs) * 10 * 2
    bare = plan_pairs(twelve, design="anchored", opponents=1)
    assert _connected(twelve, bare.pairs) and len(bare.pairs) == 12
    with pytest.raises(CrevalError, match="no run's model"):
        plan_pairs(six, anchors=["zz"])
    with pytest.raises(CrevalError, match="--design"):
        plan_pairs(six, design="swiss")
