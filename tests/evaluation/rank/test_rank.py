"""The pieces of ``creval rank`` below the CLI: reading a judge's answer and the sampling design."""

from __future__ import annotations

from pathlib import Path

import pytest

from creval.errors import CrevalError
from creval.evaluation.rank.items import plan_pairs
from creval.evaluation.rank.ranking import parse_winner

pytestmark = pytest.mark.unverified_runs("hand-made runs: answers written by the tests, no scores")


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


def _run_dir(root: Path, name: str, benchmark: str, records: list[dict[str, object]]) -> Path:
    import json

    folder = root / name
    folder.mkdir()
    (folder / "manifest.json").write_text(json.dumps({"benchmark": benchmark, "model_spec": f"openai:{name}"}))
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def _sat(key: str, story: str, text: str, **unit: object) -> dict[str, object]:
    request = {"messages": [{"role": "user", "content": f"Rewrite: {story}"}]}
    return {"key": key, "status": "ok", "unit": unit, "output": {"text": text},
            "calls": [{"role": "target", "request": request}]}


def test_items_are_keys_with_the_same_task_and_answers_are_the_texts(tmp_path: Path) -> None:
    from creval.evaluation.rank.items import read_ranked
    from creval.reader import read_run

    a = _run_dir(tmp_path, "a", "sat", [_sat("s1", "one", "A1"), _sat("s2", "two", "A2"),
                                        _sat("s3", "three", "A3"), _sat("s1~r1", "one", "again", repeat=1)])
    b = _run_dir(tmp_path, "b", "sat", [_sat("s1", "one", "B1"), _sat("s2", "TWO, other story", "B2"),
                                        _sat("s3", "three", "  ")])
    benchmark, ranked, common = read_ranked([read_run(a), read_run(b)])
    assert benchmark == "sat" and common == ["s1"]  # s2: another task; s3: b's answer is empty
    assert ranked[0].items["s1"] == ("Rewrite: one", "A1") and "s1~r1" not in ranked[0].items
    assert [r.label for r in ranked] == ["openai:a", "openai:b"]


def test_open_ended_answers_are_the_finished_solutions_and_dat_is_refused(tmp_path: Path) -> None:
    from creval.evaluation.rank.items import run_items
    from creval.reader import read_run

    story = {"key": "p1", "status": "ok", "unit": {"id": "p1", "fields": {"start": "S.", "end": "E."}},
             "output": {"solution_steps": ["middle"]}}
    assert run_items(read_run(_run_dir(tmp_path, "m", "bookmia", [story])))["p1"][1] == "S. middle E."
    dat = _run_dir(tmp_path, "d", "dat", [])
    with pytest.raises(CrevalError, match="lists of ten words"):
        run_items(read_run(dat))


def test_a_judge_that_always_picks_the_first_position_is_flagged() -> None:
    from creval.evaluation.rank.fit import judge_checks

    rows = [{"judge": "j1", "outcome": 1.0}] * 20 + [{"judge": "j2", "outcome": float(k % 2)} for k in range(20)]
    checks = judge_checks(rows, ["j1", "j2"])
    assert [c["judge"] for c in checks] == ["j1"] and "20 of 20" in checks[0]["detail"]


def test_a_story_or_generations_are_answers_where_there_is_no_text(tmp_path: Path) -> None:
    from creval.evaluation.rank.items import run_items
    from creval.reader import read_run

    story = {**_sat("plot-1", "a plot", ""), "output": {"story": "The lighthouse keeper sang."}}
    assert run_items(read_run(_run_dir(tmp_path, "w", "ttcw", [story])))["plot-1"] == (
        "Rewrite: a plot", "The lighthouse keeper sang.")
    gens = {**_sat("p", "prompt", ""), "output": {"generations": ["first", "second"]}}
    assert run_items(read_run(_run_dir(tmp_path, "n", "noveltybench", [gens])))["p"][1] == "first"
