"""The published reference values (creval/data/references) and the comparability rule."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

import pytest
from tests_paths import shared_data_path

from creval.errors import CrevalError
from creval.report.references import (
    Protocol,
    RunConditions,
    comparability,
    load_references,
    references_for,
)

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
}


def _values(seed: str) -> list:
    (paper,) = [p for p in load_references() if p.seed == seed]
    return list(paper.values)


def test_every_paper_is_shipped_and_every_value_is_a_scorer_key_of_a_known_protocol() -> None:
    papers = load_references()
    assert [p.seed for p in papers] == ["000", "001", "002", "003", "004"]
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


def test_references_for_gives_each_value_with_its_protocol() -> None:
    found = references_for("jcq", "mean")
    assert {p.id for _, p in found} == {"jcq-paper", "jcq-released-judgements", "jcq-dat-trained"}
    table3 = {r.subject: r.value for r, p in found if p.id == "jcq-paper"}
    assert table3 == {"GPT-4o": 3.64, "Claude 3.5 Sonnet": 3.48, "calm3-22b": 3.76,
                      "llm-jp-3-13b": 3.41, "Swallow-8B": 3.12}
    assert references_for("jcq", "no-such-measure") == []


# --- comparability -----------------------------------------------------------------------

JCQ = Protocol("jcq-paper", "jcq", "upstream", 700, ("gpt-4o",), "JCQ judged by GPT-4o",
               options={"answers": 5})
LOT = Protocol("lotbench", "lotbench", "unavailable", None, None, "LoTbench",
               roles={"e1": ("gpt-4o-mini",), "e2": ("gpt-4o-mini",)})
DAT = Protocol("dat-ja", "dat", "none", 100, None, "Japanese DAT",
               options={"lang": "ja", "variant": ("auto", "all-valid")})
RUN = RunConditions(benchmark="jcq", data="upstream", items=700,
                    judge="openai:gpt-4o-2024-08-06", self_judged=False, options={"answers": 5})


def test_a_run_under_the_papers_protocol_is_comparable() -> None:
    assert comparability(JCQ, RUN) is None
    assert comparability(JCQ, replace(RUN, items=1000, judge="GPT-4o")) is None


@pytest.mark.parametrize(("change", "reason"), [
    ({"benchmark": "ttct"}, "not comparable: a ttct run, the paper measured jcq"),
    ({"data": "starter"}, "not comparable: the starter set, not the paper's data"),
    ({"data": "mine.jsonl"}, "not comparable: the data mine.jsonl, not the paper's"),
    ({"judge": None, "self_judged": True}, "not comparable: self-judged (the paper's judge was gpt-4o)"),
    ({"judge": "openai:gpt-4o-mini"}, "not comparable: judge openai:gpt-4o-mini, the paper's was gpt-4o"),
    ({"judge": None}, "not comparable: no judge, the paper's was gpt-4o"),
    ({"options": {"answers": 1}}, "not comparable: answers=1, the paper used 5"),
    ({"options": {}}, "not comparable: answers not recorded, the paper used 5"),
    ({"items": 20}, "not comparable: 20 items, the paper measured 700"),
])
def test_each_difference_is_said(change: dict, reason: str) -> None:
    assert comparability(JCQ, replace(RUN, **change)) == reason


def test_the_first_difference_in_order_is_the_one_said() -> None:
    run = replace(RUN, data="starter", judge="openai:gpt-4o-mini", items=20, options={"answers": 1})
    assert comparability(JCQ, run) == "not comparable: the starter set, not the paper's data"
    run = replace(RUN, judge="openai:gpt-4o-mini", items=20, options={"answers": 1})
    assert comparability(JCQ, run).startswith("not comparable: judge")
    assert comparability(JCQ, replace(RUN, items=20, options={"answers": 1})).startswith(
        "not comparable: answers=1")


def test_roles_and_unpublished_data() -> None:
    run = RunConditions("lotbench", "upstream", 50, None, False,
                        roles={"e1": "openai:gpt-4o", "e2": "openai:gpt-4o-mini"})
    assert comparability(LOT, run) == "not comparable: the paper's data is not public"
    open_data = replace(LOT, data="upstream")
    assert comparability(open_data, run) == "not comparable: e1 was openai:gpt-4o, the paper's was gpt-4o-mini"
    assert comparability(open_data, replace(run, roles={"e1": "openai:gpt-4o-mini"})) == (
        "not comparable: no e2 model, the paper's was gpt-4o-mini")
    both = {"e1": "openai:gpt-4o-mini-2024-07-18", "e2": "gpt-4o-mini"}
    assert comparability(open_data, replace(run, roles=both)) is None


def test_a_task_without_an_item_set_and_options_with_several_accepted_values() -> None:
    run = RunConditions("dat", "glove-6b-50d", 100, None, False,
                        options={"lang": "ja", "variant": "auto"})
    assert comparability(DAT, run) is None
    assert comparability(DAT, replace(run, options={"lang": "ja", "variant": "olson"})) == (
        "not comparable: variant=olson, the paper used auto or all-valid")
    assert comparability(DAT, replace(run, options={"lang": "en", "variant": "auto"})) == (
        "not comparable: lang=en, the paper used ja")


def test_the_packaged_protocols_reject_a_starter_run_and_accept_the_papers_setup() -> None:
    (_, protocol), *_ = [(r, p) for r, p in references_for("jcq", "originality") if p.id == "jcq-paper"]
    paper_run = RunConditions("jcq", "upstream", 700, "openai:gpt-4o", False,
                              options={"questions": "upstream", "answers": 5, "temperature": 1.0})
    assert comparability(protocol, paper_run) is None
    smoke = replace(paper_run, data="starter", items=7, options={"answers": 1})
    assert comparability(protocol, smoke) == "not comparable: the starter set, not the paper's data"


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
