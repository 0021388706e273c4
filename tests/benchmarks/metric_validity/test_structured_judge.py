"""The metric-validity judge, flip questions and SNS concept extraction asking for their JSON
shape: schemas that render back to what the strict parsers read, and an end-to-end run with
the offline default model (llama.cpp, constrained) as judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli import creval

from creval.benchmarks.metric_validity.judging import RUBRICS, judgement_schema, parse_judgement
from creval.benchmarks.metric_validity.sns import N_CONCEPTS, parse_concepts
from creval.judges.structured import as_text, list_schema, render_numbered, render_scales
from creval.reader import read_run


def test_rubric_schema_renders_to_what_parse_judgement_reads() -> None:
    for domain, rubric in RUBRICS.items():
        props = judgement_schema(domain, 512)["properties"]
        assert list(props)[0] == "analysis" and len(props) == 1 + len(rubric.criteria())
        answer = {"analysis": "Clear, if ordinary."} | {k: v["enum"][-1] for k, v in props.items()
                                                          if k != "analysis"}  # fmt: skip
        parsed = parse_judgement(as_text(json.dumps(answer), render_scales), domain)
        highs = {n: high for names, high in rubric.scales for n in names}
        assert parsed == {"scores": highs}, domain
    # the analysis fits the token budget next to the scores
    assert judgement_schema("ideation", 128)["properties"]["analysis"]["maxLength"] <= 128 - 100
    # strictness stays: a score outside its scale is still an error
    bad = as_text('{"analysis": "", "soundness": 5, "presentation": 1, "contribution": 1, "overall": 1}',
                  render_scales)  # fmt: skip
    assert parse_judgement(bad, "ideation") == {"parse_error": "soundness = 5 is outside 1..4"}


def test_concept_list_renders_to_numbered_lines() -> None:
    assert list_schema(N_CONCEPTS)["maxItems"] == N_CONCEPTS
    text = as_text('["rope", "knot", "railing", "bucket", "well"]', render_numbered)
    assert parse_concepts(text) == {"concepts": ["rope", "knot", "railing", "bucket", "well"]}
    assert "parse_error" in parse_concepts(as_text('["rope", "rope", "a", "b", "c"]', render_numbered))
    assert as_text('{"concepts": []}', render_numbered) == '{"concepts": []}'  # not a list: left as is


@pytest.mark.slow
def test_run_with_the_small_model_constrains_every_judge_answer(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers", reason="needs the 'embed' extra")
    run = tmp_path / "run"
    done = creval("run", "metric-validity", "--model", "local", "--domain", "problem-solving",
                  "--metrics", "judge,sns", "--judge-flip", "true", "--limit", "2",
                  "--judge-max-tokens", "96", "--out", str(run), "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    records = read_run(run).records
    parts = {r.unit["part"]: r.output for r in records if r.unit.get("part") in ("judge", "flip", "sns")}
    assert set(parts) == {"judge", "flip", "sns"}
    by_part = [(r.unit["part"], r.output or {}) for r in records]
    assert all(out["constrained"] for part, out in by_part if part in ("judge", "flip", "sns"))
    for part, out in by_part:
        if part == "judge":  # the rubric's shape: every score on its scale, parsed strictly
            assert "scores" in out, out
        elif part == "flip":
            assert out["positive"] is not None and out["negative"] is not None, out
        elif part == "sns":  # five numbered lines; only a repeated concept can still fail
            assert "concepts" in out or out["parse_error"] == "the concepts repeat", out
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert not any("parse failure" in reason and "repeat" not in reason for reason in scores["excluded"])
