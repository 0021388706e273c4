"""A jcq run whose judge answers the same four lines to everything: scores.json carries the
judge checks, both reports show them, and the per-answer values average to the headline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer

SAME = "流暢性: 1\n柔軟性: 2\n独創性: 3\n精緻性: 4"
CRITERIA = ("fluency", "flexibility", "originality", "elaboration")


def _mean(values: list[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept)


def _run(tmp_path: Path, reply: Any, *extra: str) -> dict[str, Any]:
    server = ChatServer(reply=reply)
    try:
        done = creval("run", "jcq", "--model", "openai:tiny", "--base-url", server.url,
                      "--limit", "7", "--answers", "5", "--max-tokens", "16",
                      "--out", str(tmp_path), "--no-progress", *extra,
                      env={"OPENAI_API_KEY": "test"})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    scores: dict[str, Any] = json.loads((tmp_path / "scores.json").read_text(encoding="utf-8"))
    return scores


def _judge_or_answer(judgement: Any) -> Any:
    """Distinct answers (so that no two judge prompts are the same and none is served from
    the response cache); the judge's answer from ``judgement``."""
    answers = {"n": 0}

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        if "流暢性" in prompt:  # the judge prompt
            return 200, judgement(prompt)
        answers["n"] += 1
        return 200, f"傘を逆さにして雨水を集める（案{answers['n']}）。"
    return reply


def test_a_judge_that_always_answers_1_2_3_4_is_flagged_in_scores_and_reports(tmp_path: Path) -> None:
    scores = _run(tmp_path, _judge_or_answer(lambda prompt: SAME))
    assert scores["headline"]["parsed"] == 35
    checks = scores["judge_checks"]
    assert [c["check"] for c in checks] == ["no_variance"] * 4 + ["criterion_order"]
    assert checks[0] == {"judge": "rubric judge (jcq)", "check": "no_variance",
                         "detail": "fluency was 1 on all 35 judgements (sd 0)", "items": 35}
    assert "on 35 of 35 judgements (most often 1, 2, 3, 4)" in checks[4]["detail"]

    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    block = markdown.index("## Judge checks")
    assert block < markdown.index("## Scores")  # near the top, before the scores
    assert "fluency was 1 on all 35 judgements (sd 0)" in markdown
    assert "--judge SPEC or --preset paper" in markdown

    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<h3>Judge checks</h3>" in html
    assert html.index('id="judge-checks"') < html.index('id="plots"')
    assert "fluency was 1 on all 35 judgements (sd 0)" in html


def test_per_answer_values_average_to_the_headline_and_a_varying_judge_is_not_flagged(
        tmp_path: Path) -> None:
    seen = {"n": 0}

    def varied(prompt: str) -> str:
        seen["n"] += 1
        n = seen["n"]
        scores = [1 + (n * 2) % 5, 1 + (n * 3 + 1) % 5, 1 + (n + 2) % 5, 1 + (n * 4 + 3) % 5]
        if n % 9 == 0:
            return "流暢性: 9"  # an unparsed judgement: None in per_item
        return "\n".join(f"{label}: {s}" for label, s in zip(("流暢性", "柔軟性", "独創性", "精緻性"),
                                                             scores, strict=True))

    scores = _run(tmp_path, _judge_or_answer(varied))
    assert scores["judge_checks"] == []
    per_item, headline = scores["per_item"], scores["headline"]
    assert set(per_item) == {"mean", *CRITERIA}
    assert all(len(values) == 35 for values in per_item.values())
    failed = headline["parse_failures"]
    assert failed == 3  # the 9th, 18th and 27th judge answers
    assert all(per_item[key].count(None) == failed for key in ("mean", *CRITERIA))
    # the failures fall on different answer indices in different questions, so the headline
    # (upstream's mean over answer indices of means over questions) need not be the plain
    # mean of the per-answer values; each parsed value is one judgement's own score
    for fluency, mean, *rest in zip(per_item["fluency"], per_item["mean"], per_item["flexibility"],
                                    per_item["originality"], per_item["elaboration"], strict=True):
        if fluency is not None:
            assert mean == pytest.approx((fluency + sum(rest)) / 4)


def test_per_answer_values_average_exactly_to_the_headline_when_all_parse(tmp_path: Path) -> None:
    seen = {"n": 0}

    def varied(prompt: str) -> str:
        seen["n"] += 1
        n = seen["n"]
        scores = [1 + (n * 2) % 5, 1 + (n * 3 + 1) % 5, 1 + (n + 2) % 5, 1 + (n * 4 + 3) % 5]
        return "\n".join(f"{label}: {s}" for label, s in zip(("流暢性", "柔軟性", "独創性", "精緻性"),
                                                             scores, strict=True))

    scores = _run(tmp_path, _judge_or_answer(varied))
    assert scores["judge_checks"] == []
    per_item, headline = scores["per_item"], scores["headline"]
    for key in ("mean", *CRITERIA):
        assert len(per_item[key]) == 35 and None not in per_item[key]
        assert _mean(per_item[key]) == pytest.approx(headline[key])
