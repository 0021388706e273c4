"""``creval references`` as a user runs it."""

from __future__ import annotations

import json

from _cli import creval


def test_lists_one_papers_values_as_a_table() -> None:
    done = creval("references", "--seed", "004", "--benchmark", "sat")
    assert done.returncode == 0, done.stderr
    assert "Table 7" in done.stdout and "Claude 3.5 Sonnet" in done.stdout
    assert "0.579" in done.stdout and "sat-ja" in done.stdout
    assert "simcse-ja-bert-base-clcmlp" in done.stdout  # the protocol is described


def test_json_has_every_field_of_each_value() -> None:
    done = creval("references", "--benchmark", "lotbench", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert len(rows) == 35
    assert set(rows[0]) == {"paper", "seed", "subject", "kind", "benchmark", "measure", "value",
                            "source", "protocol", "protocol_description", "unit"}
    humans = {r["subject"]: r["value"] for r in rows if r["kind"] == "human"}
    assert len(humans) == 3 and max(humans.values()) == 0.135


def test_all_papers_by_default() -> None:
    rows = json.loads(creval("references", "--json").stdout)
    assert {r["seed"] for r in rows} == {"000", "001", "002", "003", "004", "-"}


def test_ttcw_experts_pass_rates_are_references_like_any_other() -> None:
    """TTCW's experts' pass rates (once only in a ttcw run's report) are listed, with the
    licence of the annotations they were computed from."""
    rows = json.loads(creval("references", "--benchmark", "ttcw", "--json").stdout)
    assert len(rows) == 4 * 5 and {r["protocol"] for r in rows} == {"ttcw-experts"}
    rates = {(r["subject"], r["measure"]): r["value"] for r in rows}
    assert rates[("New Yorker authors", "pass_rate")] == 0.910714
    assert rates[("GPT3.5", "pass_rate_originality")] == 0.0
    assert {r["kind"] for r in rows if r["subject"] == "New Yorker authors"} == {"human"}
    table = creval("references", "--seed", "-").stdout
    assert "ttcw-experts" in table and "licence: BSD-3-Clause" in table


def test_an_unknown_seed_or_benchmark_says_what_to_choose() -> None:
    done = creval("references", "--seed", "9")
    assert done.returncode == 2
    assert "choose from 000, 001, 002, 003, 004, -" in done.stderr
    done = creval("references", "--seed", "000", "--benchmark", "jcq")
    assert done.returncode == 2
    assert "choose from neocoder" in done.stderr


def test_released_per_item_results_are_listed_with_licence_and_where_they_are_read() -> None:
    """A paper's per-item results of unclear licence (NoveltyBench's site) are listed with it
    and read at run time, never shipped; the seeds' values stay listed beside them."""
    done = creval("references", "--benchmark", "noveltybench")
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if "noveltybench-published" in x)
    assert "licence: none stated" in line and "never shipped" in line and "--published-data" in line
    listing = creval("references").stdout
    assert "ttcw-released-judges" in listing and "BSD-3-Clause" in listing
    assert "jcq-released-judgements" in listing and "neocoder-gpt4-codes" in listing
