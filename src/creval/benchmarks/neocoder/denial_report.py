"""Scores and output of ``--mode denial``: the new dataset in the upstream format."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from creval.benchmarks.neocoder.data import NeoCoderDataset, Problem, states, write_neocoder
from creval.records import Scores
from creval.runner.store import Record

DATASET_DIR = "dataset"


def denial_scores(records: list[Record], source: NeoCoderDataset) -> Scores:
    """Per-state problem counts (the paper's Table 1) and the entries of the new dataset."""
    from creval.benchmarks.neocoder.denial import DenialResult, DenialRound
    from creval.benchmarks.neocoder.extract import choose_block

    entries, rows = [], []
    unparsed = 0
    for record in records:
        if record.status != "ok":
            continue
        rounds = [DenialRound(**r) for r in record.output["rounds"]]
        result = DenialResult(rounds)
        pid = record.unit["problem_id"]
        entries.append(result.upstream_entry(pid, lambda a: choose_block(a) or a))
        unparsed += sum(r.detected is None for r in rounds[:-1])
        rows.append({"problem": pid, "constraints": ", ".join(rounds[-1].constraints),
                     "new_per_round": ", ".join(r.new_constraint or "-" for r in rounds[:-1])})
    problems = [Problem(**e) for e in entries]
    per_state = Counter(s.t for s in states(problems))
    table = [{"t": t, "problems": per_state[t]} for t in sorted(per_state)]
    return Scores(
        headline={"problems": len(entries), **{f"problems@{r['t']}": r["problems"] for r in table},
                  "detections_unparsed": unparsed},
        table=rows,
        sections=[{"title": "Problems per state (Table 1)", "rows": table}],
        notes=[
            "States count the distinct constraint sets of each problem (repeated rounds, where "
            "detection found nothing new, are asked once when evaluating).",
            f"The dataset is written in the upstream format to {DATASET_DIR}/ in the run directory; "
            "evaluate it with: creval run neocoder --data RUN_DIR/dataset",
            "A detection answer that names no known technique adds no constraint (never a default).",
        ],
    ).with_extra(denial_entries=entries)


def write_dataset(scores: Scores, source: NeoCoderDataset, out: Path) -> list[str]:
    """Write the new dataset (with the source's human solutions, techniques and tests)."""
    problems = [Problem(**e) for e in scores.extra("denial_entries", [])]
    if not problems:
        return []
    ids = {p.problem_id for p in problems}

    def keep(mapping: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if mapping is None else {k: v for k, v in mapping.items() if k in ids}

    dataset = NeoCoderDataset(problems=problems, human_solutions=keep(source.human_solutions),
                              human_techniques=keep(source.human_techniques), tests=keep(source.tests))
    write_neocoder(dataset, out / DATASET_DIR)
    return [f"{DATASET_DIR}/NeoCoder.json"]
