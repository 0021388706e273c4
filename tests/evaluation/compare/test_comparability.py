"""The comparability rules (creval.evaluation.compare.comparability) on their own: default-deny over
every benchmark's options, judges by snapshot, data by content, items behind the value."""

from __future__ import annotations

import typing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tests_paths import shared_data_path

from creval._util.inputs import file_record
from creval.benchmarks.base import registry
from creval.evaluation.compare.comparability import (
    NOT_COMPARED,
    RunConditions,
    compared_options,
    declared_not_compared,
    items_behind,
    judged_itself,
    not_compared,
    reasons,
)
from creval.evaluation.compare.items import items_of
from creval.evaluation.compare.paper_data import (
    DataIdentity,
    data_identity,
    paper_items,
    paper_items_from,
)
from creval.evaluation.profile.battery import separation
from creval.evaluation.profile.data import standings
from creval.evaluation.run.presets import protocol_options
from creval.records import Scores, UnitCounts
from creval.report.references import Protocol, load_references

PROTOCOLS = [(paper.seed, p) for paper in load_references() for p in paper.protocols.values()]
IDS = [p.id for _, p in PROTOCOLS]


def paper_run(protocol: Protocol) -> RunConditions:
    """A run that measured exactly as ``protocol`` says: the paper's data, the judge and role
    snapshots reported by their endpoints, every option at the protocol's (first) value."""
    def first(models: tuple[str, ...]) -> str:
        return protocol.snapshots.get(models[0], models)[0]

    return RunConditions(
        benchmark=protocol.benchmark, data=DataIdentity("paper", "the paper's"),
        judge=None if protocol.judge is None else f"openai:{protocol.judge[0]}",
        judge_reported=() if protocol.judge is None else (first(protocol.judge),),
        roles={r: f"openai:{m[0]}" for r, m in protocol.roles.items()},
        roles_reported={r: (first(m),) for r, m in protocol.roles.items()},
        options={k: v[0] if isinstance(v, tuple) else v for k, v in protocol.options.items()},
    )


def other_value(benchmark: str, name: str, value: Any) -> Any:
    """A different value of option ``name``: another choice of a Literal, else changed."""
    field = registry()[benchmark].Options.model_fields[name]
    choices = [c for a in [field.annotation, *typing.get_args(field.annotation)]
               for c in typing.get_args(a) if typing.get_origin(a) is typing.Literal]
    if choices:
        return next(c for c in choices if c != value)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    return "/somewhere/else.txt" if value is None else f"{value}-changed"


@pytest.mark.parametrize(("seed", "protocol"), PROTOCOLS, ids=IDS)
def test_every_protocol_states_every_compared_option(seed: str, protocol: Protocol) -> None:
    missing = [n for n in compared_options(protocol.benchmark) if n not in protocol.options]
    assert not missing, f"seed {seed} {protocol.id} states no value for {missing}"
    unknown = set(protocol.options) - set(registry()[protocol.benchmark].Options.model_fields)
    assert not unknown, f"{protocol.id} states options its benchmark does not have: {unknown}"


@pytest.mark.parametrize(("seed", "protocol"), PROTOCOLS, ids=IDS)
def test_changing_any_compared_option_alone_makes_no_reference_comparable(
    seed: str, protocol: Protocol,
) -> None:
    run = paper_run(protocol)
    items = protocol.items or 1
    baseline = reasons(protocol, run, items=items)
    if protocol.data == "unavailable":
        assert baseline == ["the paper's data is not public"]
    else:
        assert baseline == [], baseline
    for name in compared_options(protocol.benchmark):
        changed = replace(run, options={**run.options, name: other_value(
            protocol.benchmark, name, run.options[name])})
        why = reasons(protocol, changed, items=items)
        assert any(w.startswith(f"{name}=") for w in why), (protocol.id, name, why)
        # and every other protocol of the benchmark refuses it too, unless the new value is
        # that protocol's own (NeoCoder's direct strategy changed to sampling is its Table 5)
        for _, other in PROTOCOLS:
            accepted = other.options.get(name)
            accepted = accepted if isinstance(accepted, tuple) else (accepted,)
            if other.benchmark == protocol.benchmark and changed.options[name] not in accepted:
                assert reasons(other, changed, items=other.items or 1), (other.id, name)


def test_a_new_option_is_compared_unless_declared_not_to_be() -> None:
    (protocol,) = [p for _, p in PROTOCOLS if p.id == "jcq-released-judgements"]
    run = paper_run(protocol)
    why = reasons(protocol, replace(run, options={**run.options, "brand_new": 3}), items=700)
    assert why == ["brand_new: the protocol states no value for it (every option that changes "
                   "the number must be stated)"]
    # the one place that leaves options out names options that exist, each with why
    every = {(b, n) for b, cls in registry().items() for n in cls.Options.model_fields}
    # ... with what each benchmark declares (``benchmark.option``)
    for key, why_not in {**NOT_COMPARED, **declared_not_compared()}.items():
        bench, _, name = key.rpartition(".")
        assert any(n == name and bench in ("", b) for b, n in every), key
        assert why_not
    assert not_compared("jcq", "questions") and not_compared("jcq", "judge_max_tokens") is None


def test_every_reason_is_said_not_only_the_first() -> None:
    (protocol,) = [p for _, p in PROTOCOLS if p.id == "jcq-released-judgements"]
    run = replace(paper_run(protocol), data=DataIdentity("starter", "the starter set"),
                  judge="openai:gpt-4o", judge_reported=("gpt-4o-2024-11-20",))
    run = replace(run, options={**run.options, "max_tokens": 64, "parser": "strict"})
    assert reasons(protocol, run, items=7) == [
        "the starter set, not the paper's data",
        "judge answered as gpt-4o-2024-11-20 (spec openai:gpt-4o), the paper's was gpt-4o-2024-08-06",
        "max_tokens=64, the paper used 512",
        "parser=strict, the paper used upstream",
        "7 items behind the value, the paper measured 700",
    ]


@pytest.mark.parametrize(("spec", "reported", "paper", "released"), [
    ("openai:gpt-4o-2024-08-06", (), False, False),  # no answer said which model: unverified
    ("openai:gpt-4o", ("gpt-4o-2024-08-06",), True, True),  # the alias answered as the snapshot
    ("openai:gpt-4o", ("openai/gpt-4o-2024-08-06",), True, True),  # a router's prefix
    ("openai:gpt-4o", (), False, False),  # an alias names no snapshot by itself
    ("openai:gpt-4o", ("gpt-4o-2024-11-20",), False, False),
    ("openai:gpt-4o-2024-05-13", (), False, False),
])
def test_judges_are_compared_by_snapshot(spec: str, reported: tuple[str, ...], paper: bool,
                                         released: bool) -> None:
    protocols = {p.id: p for _, p in PROTOCOLS}
    for pid, expected in (("jcq-paper", paper), ("jcq-released-judgements", released)):
        run = replace(paper_run(protocols[pid]), judge=spec, judge_reported=reported,
                      unreported={} if reported else {"judge": 5})
        assert (reasons(protocols[pid], run, items=700) == []) is expected, (pid, spec, reported)
    said = reasons(protocols["jcq-paper"], replace(paper_run(protocols["jcq-paper"]),
                   judge="openai:gpt-4o", judge_reported=(), unreported={"judge": 5}), items=700)
    assert said == ["judge snapshot unverified: 5 of 5 answers carried no model id (spec "
                    "openai:gpt-4o), so which model answered cannot be checked; the paper's was "
                    "gpt-4o (gpt-4o covers gpt-4o-2024-08-06)"]
    # a judge never asked (NeoCoder's static detector) is said by its spec
    unasked = replace(paper_run(protocols["jcq-paper"]), judge="openai:gpt-4o", judge_reported=())
    assert reasons(protocols["jcq-paper"], unasked, items=700) == [
        "judge openai:gpt-4o (no answer of it in the records), the paper's was gpt-4o (gpt-4o "
        "covers gpt-4o-2024-08-06)"]


def test_every_answer_counts_unverified_and_mixed_snapshots() -> None:
    (protocol,) = [p for _, p in PROTOCOLS if p.id == "jcq-released-judgements"]
    base = replace(paper_run(protocol), judge="openai:gpt-4o-2024-08-06")
    some = replace(base, answers={"judge": {"gpt-4o-2024-08-06": 30}}, unreported={"judge": 5})
    assert reasons(protocol, some, items=700) == [
        "judge snapshot unverified: 5 of 35 answers carried no model id (spec "
        "openai:gpt-4o-2024-08-06), so which model answered cannot be checked; the paper's was "
        "gpt-4o-2024-08-06"]
    mixed = replace(base, answers={"judge": {"gpt-4o-2024-08-06": 30, "gpt-4o-2024-11-20": 5}})
    assert reasons(protocol, mixed, items=700) == [
        "judge answered as gpt-4o-2024-08-06 (30 answers), gpt-4o-2024-11-20 (5 answers) (spec "
        "openai:gpt-4o-2024-08-06), the paper's was gpt-4o-2024-08-06"]
    routed = replace(base, answers={"judge": {"openai/gpt-4o-2024-08-06": 35}})
    assert reasons(protocol, routed, items=700) == []


def test_self_judging_is_accepted_only_where_the_paper_judged_its_judge() -> None:
    papers = {p.seed: p for p in load_references()}
    jcq = papers["004"]
    assert judged_itself(jcq, jcq.protocols["jcq-paper"])  # GPT-4o's row, judged by GPT-4o
    assert judged_itself(jcq, jcq.protocols["jcq-released-judgements"])
    assert not judged_itself(jcq, jcq.protocols["dat-ja"])
    protocol = jcq.protocols["jcq-released-judgements"]
    run = replace(paper_run(protocol), self_judged=True, self_judged_how="gpt-4o-2024-08-06 at "
                  "the same endpoint")
    assert reasons(protocol, run, items=700, self_judging=True) == []
    assert reasons(protocol, run, items=700) == [
        "self-judged: the tested model judged its own answers; gpt-4o-2024-08-06 at the same "
        "endpoint (the paper's judge was gpt-4o-2024-08-06, judging other models' answers)"]


def test_data_without_shipped_items_is_recognised_by_the_digests_recorded(tmp_path: Path) -> None:
    folder = tmp_path / "upstream"
    folder.mkdir()
    (folder / "a.jsonl").write_text("{}\n")
    assert data_identity("hypogen", str(folder), file_record(folder), {}).kind == "other"
    sheet = file_record(folder / "a.jsonl")
    found = data_identity("hypogen", "a.jsonl", sheet, {})
    assert (found.kind, found.key) == ("other", sheet["sha256"])
    assert data_identity("hypogen", "gone", None, {}).kind == "unrecorded"
    assert data_identity("neocoder", "gone", None, {}).kind == "unrecorded"  # items, none recorded
    assert data_identity("jcq", None, None, {}).kind == "starter"
    assert data_identity("dat", None, None, {}).kind == "none"


@pytest.mark.parametrize(("benchmark", "where", "total", "key"), [
    ("neocoder", ("neocoder", "NeoCoder"), 1063, "1901A-r1"),
    ("macgyver", ("macgyver", "problem_solution_pair.xlsx"), 1306, "macgyver-541"),
])
def test_the_papers_neocoder_and_macgyver_items_are_the_shipped_sets(
    benchmark: str, where: tuple[str, ...], total: int, key: str,
) -> None:
    """The shipped digests are recomputed from the upstream files, and a run is compared by
    them: every item in any order, a subset, one changed item named."""
    items = paper_items_from(benchmark, str(shared_data_path(*where)))
    assert items == paper_items(benchmark) and len(set(items.values())) == total
    if benchmark == "macgyver":  # the same sheet as CSV: the same items
        assert paper_items_from(benchmark, str(shared_data_path("macgyver", "problem_solution_pair.csv"))) == items
    whole = data_identity(benchmark, "any", None, dict(reversed(list(items.items()))))
    assert (whole.kind, whole.shown) == ("paper", f"the paper's data (all {total} items)")
    some = data_identity(benchmark, "any", None, dict(list(items.items())[:4]))
    assert (some.kind, some.shown) == ("paper", f"4 of {total} items of the paper's data")
    changed = data_identity(benchmark, "any", None, {**dict(list(items.items())[:4]), key: "0" * 16})
    assert changed.kind == "other" and f"{key} differs from the paper's" in changed.shown


def test_the_papers_jcq_items_are_the_shipped_set_and_compared_as_a_set() -> None:
    items = paper_items_from("jcq", str(shared_data_path("jcq", "test.jsonl")))
    assert items == paper_items("jcq") and len(set(items.values())) == 700
    whole = data_identity("jcq", "any path", None, dict(reversed(list(items.items()))))
    assert (whole.kind, whole.key, whole.paper_items, whole.shown) == (
        "paper", "paper", 700, "the paper's data (all 700 items)")
    some = data_identity("jcq", "x", None, dict(list(items.items())[:3]))
    assert (some.kind, some.shown) == ("paper", "3 of 700 items of the paper's data")
    changed = data_identity("jcq", "x", None, {**dict(list(items.items())[:3]), "q-2": "0" * 16})
    assert changed.kind == "other" and "q-2 differs from the paper's" in changed.shown
    assert data_identity("jcq", "x", None, {}).kind == "unrecorded"
    (protocol,) = [p for _, p in PROTOCOLS if p.id == "jcq-released-judgements"]
    said = reasons(protocol, replace(paper_run(protocol), data=some), items=5)
    assert said == ["3 items behind the value (3 of 700 items of the paper's data), the paper "
                    f"measured {protocol.items}"]


def test_items_behind_the_value() -> None:
    dat = Scores(headline={"dat_mean": 0.5, "valid_trials": 90, "invalid_trials": 10})
    assert items_behind("dat", "dat_mean", dat) == 90
    se = Scores(per_item={"semantic_entropy": [None] * 3 + [0.1]})
    assert items_behind("macgyver", "semantic_entropy", se) == 1
    # 4 questions x 2 answers: the second question's judgements all failed to parse
    jcq = Scores(headline={"mean": 3.0, "parsed": 5, "parse_failures": 3},
                 per_item={"mean": [3.0, None, None, None, 3.0, 2.0, None, 4.0]},
                 units=UnitCounts(total=5, finished=4))
    assert items_behind("jcq", "mean", jcq) == 3
    assert items_of("jcq", "mean", jcq).line() == (
        "items behind the value: 3 valid (questions with a parsed judgement) of 4 finished, 5 "
        "planned; 5 of 8 judgements parsed")


def test_standings_count_each_model_once_across_two_protocols_of_one_paper() -> None:
    refs = [{"paper": "P", "protocol": p, "subject": s, "value": v, "comparable": True}
            for p, s, v in [("table", "GPT-4o", 3.64), ("table", "calm3", 3.76),
                            ("released", "gpt-4o", 3.7), ("released", "calm3", 3.8),
                            ("released", "swallow", 3.1)]]
    assert standings({"value": 3.75, "higher_is_better": True, "references": refs}) == (2, 3, ["released"])


def test_dat_units_follow_the_language() -> None:
    en, ja = separation("dat", "dat_mean", {"lang": "en"}), separation("dat", "dat_mean", {"lang": "ja"})
    assert en is not None and ja is not None
    assert (en.units, en.gap) == ("x100", 1.3) and (ja.units, ja.gap) == ("0-1", 0.013)
    assert en.items == ja.items == 30


def test_the_paper_preset_sets_every_compared_option_to_the_protocols_value() -> None:
    for bench, pid, lang in (("jcq", "jcq-paper", "en"), ("neocoder", "neocoder-direct", "en"),
                             ("macgyver", "macgyver-judge", "en"), ("dat", "dat-ja", "ja")):
        (protocol,) = [p for _, p in PROTOCOLS if p.id == pid]
        options = protocol_options(bench, lang)
        run = replace(paper_run(protocol), options=options)
        assert not [w for w in reasons(protocol, run, items=protocol.items or 1)
                    if "=" in w or "states no value" in w], pid
