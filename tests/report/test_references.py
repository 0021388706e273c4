"""The published reference values (creval/data/references); the comparability rules are
tested in tests/evaluation/compare/test_comparability.py."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from tests_paths import shared_data_path

from creval.errors import CrevalError
from creval.report.references import load_references, references_for

#: Headline keys the scorers write (read off each benchmark's scoring code).
SCORER_KEYS = {
    "neocoder": {f"{m}@{t}" for m in ("convergent", "divergent", "neogauge", "pass@1") for t in range(6)},
    "macgyver": {"semantic_entropy", "multiagent_overall"},
    "hypogen": {"semantic_entropy", "multiagent_overall"},
    "bookmia": {"semantic_entropy", "multiagent_overall"},
    "metric-validity": {f"{m}_{s}" for m in ("ci_mean", "ppl", "judge", "sns", "tpt")
                        for s in ("creative_mean", "uncreative_mean", "auroc")},
    "lotbench": {"S_c"},
    "jcq": {"fluency", "flexibility", "originality", "elaboration", "mean"},
    "ttct": {"fluency", "flexibility", "originality", "elaboration", "mean"},
    "dat": {"dat_mean", "dat_std"},
    "sat": {"sat_mean", "sat_std"},
    "ttcw": {"pass_rate", *(f"pass_rate_{d}" for d in ("fluency", "flexibility", "originality",
                                                       "elaboration"))},
}


def _values(seed: str) -> list:
    (paper,) = [p for p in load_references() if p.seed == seed]
    return list(paper.values)


def test_every_paper_is_shipped_and_every_value_is_a_scorer_key_of_a_known_protocol() -> None:
    papers = load_references()
    assert [p.seed for p in papers] == ["000", "001", "002", "003", "004", "-"]
    for paper in papers:
        assert paper.values, paper.file
        for v in paper.values:
            assert v.protocol in paper.protocols
            assert paper.protocols[v.protocol].benchmark == v.benchmark
            assert v.measure in SCORER_KEYS[v.benchmark], (paper.file, v.measure)


def test_neocoder_table_3_is_in_fractions() -> None:
    gpt4 = {v.measure: v.value for v in _values("000") if v.subject == "GPT-4"}
    assert gpt4["convergent@0"] == pytest.approx(0.162)
    assert gpt4["divergent@5"] == pytest.approx(0.153)
    assert gpt4["neogauge@1"] == pytest.approx(0.014)
    assert gpt4["pass@1@0"] == pytest.approx(0.161)


def test_open_ended_values_match_the_staged_tables() -> None:
    path = shared_data_path("creativity_eval", "reference_results_tables.csv")
    rows = {(r["dataset"].lower(), r["model"]): r for r in csv.DictReader(path.open(encoding="utf-8"))}
    values = _values("001")
    assert len(values) == 2 * len(rows) == 44
    for v in values:
        row = rows[(v.benchmark, v.subject)]
        column = "semantic_entropy" if v.measure == "semantic_entropy" else "overall"
        assert v.value == float(row[column]), (v.benchmark, v.subject, v.measure)
        assert v.source.startswith(row["paper_table"])


def test_lotbench_values_match_the_staged_leaderboard() -> None:
    path = shared_data_path("lotbench", "leaderboard.json")
    records = json.loads(path.read_text(encoding="utf-8"))["records"]
    board = {r["title"]: r for r in records}
    values = _values("003")
    assert len(values) == len(board) == 35
    assert sum(v.kind == "human" for v in values) == 3
    for v in values:
        assert v.value == board[v.subject]["score"]
        assert (v.kind == "human") == (board[v.subject]["type"] == "human_expert")


def test_jcq_values_from_the_released_judgements_match_the_computed_aggregates() -> None:
    path = shared_data_path("jcq", "computed_aggregates.json")
    models = json.loads(path.read_text(encoding="utf-8"))["models"]
    computed = [v for v in _values("004") if v.protocol == "jcq-released-judgements"]
    assert {v.subject for v in computed} == set(models)
    assert len(computed) == 5 * len(models)
    for v in computed:
        assert v.value == models[v.subject]["criterion_means"][v.measure]


def test_ttcw_pass_rates_are_the_experts_majority_in_the_released_annotations() -> None:
    """Recomputed here from the staged annotations, by hand: per (story, test) the majority of
    the three experts' verdicts, the share passed per story source, overall and per dimension."""
    folder = shared_data_path("ttcw")
    tests = json.loads((folder / "tests" / "ttcw_all_tests.json").read_text(encoding="utf-8"))
    dimension = {t["ttcw_idx"]: t["torrance_dimension"].lower() for t in tests}
    verdicts: dict[tuple[str, int], list[bool]] = {}
    for a in json.loads((folder / "annotations" / "ttcw_annotations.json").read_text(encoding="utf-8")):
        verdicts.setdefault((a["story_id"], a["ttcw_idx"]), []).append(a["binary_verdict"] == "Yes")
    assert {len(v) for v in verdicts.values()} == {3}
    source = {"NewYorker": "New Yorker authors", "GPT3.5": "GPT3.5", "GPT4": "GPT4", "Claude": "Claude"}
    expected: dict[tuple[str, str], list[bool]] = {}
    for (story, test), said in verdicts.items():
        passed = sum(said) >= 2
        who = source[story.split("_", 1)[1]]
        expected.setdefault((who, "pass_rate"), []).append(passed)
        expected.setdefault((who, f"pass_rate_{dimension[test]}"), []).append(passed)
    (paper,) = [p for p in load_references() if p.file == "ttcw.json"]
    assert paper.licence.startswith("BSD-3-Clause")
    shipped = {(v.subject, v.measure): v.value for v in paper.values}
    assert set(shipped) == set(expected)
    for key, passed in expected.items():
        assert shipped[key] == pytest.approx(sum(passed) / len(passed), abs=5e-7), key


def test_references_for_gives_each_value_with_its_protocol() -> None:
    found = references_for("jcq", "mean")
    assert {p.id for _, p in found} == {"jcq-paper", "jcq-released-judgements", "jcq-dat-trained"}
    table3 = {r.subject: r.value for r, p in found if p.id == "jcq-paper"}
    assert table3 == {"GPT-4o": 3.64, "Claude 3.5 Sonnet": 3.48, "calm3-22b": 3.76,
                      "llm-jp-3-13b": 3.41, "Swallow-8B": 3.12}
    assert references_for("jcq", "no-such-measure") == []


# --- malformed files ---------------------------------------------------------------------

def _write(folder: Path, body: dict) -> Path:
    (folder / "seed999-test.json").write_text(json.dumps(body), encoding="utf-8")
    return folder


GOOD = {
    "paper": "P", "seed": "999", "family": "f", "transcription": "t",
    "protocols": {"p1": {"benchmark": "jcq", "data": "upstream", "items": 7, "judge": ["gpt-4o"],
                         "description": "d"}},
    "values": [{"subject": "M", "kind": "model", "benchmark": "jcq", "measure": "mean",
                "value": 3.0, "protocol": "p1", "source": "Table 1"}],
}


def test_a_well_formed_folder_loads(tmp_path: Path) -> None:
    (paper,) = load_references(_write(tmp_path, GOOD))
    assert paper.file == "seed999-test.json"
    assert paper.protocols["p1"].judge == ("gpt-4o",)
    assert paper.values[0].value == 3.0


@pytest.mark.parametrize(("edit", "field"), [
    (lambda d: d["values"][0].update(protocol="p2"), "values[0].protocol"),
    (lambda d: d["values"][0].update(kind="robot"), "values[0].kind"),
    (lambda d: d["values"][0].pop("source"), "values[0].source"),
    (lambda d: d["values"][0].update(value="3.0"), "values[0].value"),
    (lambda d: d["values"][0].update(benchmark="ttct"), "values[0].benchmark"),
    (lambda d: d["protocols"]["p1"].pop("description"), "protocols.p1.description"),
    (lambda d: d["protocols"]["p1"].update(data="starter"), "protocols.p1.data"),
    (lambda d: d["protocols"]["p1"].update(items=0), "protocols.p1.items"),
    (lambda d: d["protocols"]["p1"].update(judge="gpt-4o"), "protocols.p1.judge"),
    (lambda d: d["protocols"]["p1"].update(inferred={"answers": "x"}), "protocols.p1.inferred.answers"),
    (lambda d: d["protocols"]["p1"].update(snapshots={"gpt-4o": []}), "protocols.p1.snapshots.gpt-4o"),
    (lambda d: d.pop("paper"), "paper"),
])
def test_a_malformed_file_names_the_file_and_the_field(tmp_path: Path, edit, field: str) -> None:
    body = json.loads(json.dumps(GOOD))
    edit(body)
    with pytest.raises(CrevalError) as caught:
        load_references(_write(tmp_path, body))
    assert "seed999-test.json" in str(caught.value)
    assert field in str(caught.value)


def test_a_file_that_is_not_json_is_named(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    with pytest.raises(CrevalError, match="broken.json is not valid JSON"):
        load_references(tmp_path)
