"""NeoGauge scores of NeoCoder solutions, from a run or from files (no model needed).

A *solution item* is one answered state: ``problem_id``, ``round``, ``t``, ``constraints``,
``answers`` (the model's raw answers; several for the sampling strategy), optionally
``llm_techniques`` (one parsed list per answer, None for an unparsed detector answer) and
``raw_code`` (True when the answers are bare code, like the ``codes`` shipped upstream).

Per state t the table gives pass@1 (the unbiased estimate c/n per problem when there are
several samples, and then pass@k beside it), constraint following, convergent (Eq. 2), divergent
(Eq. 3), NeoGauge@t (Eq. 4), cumulative NeoGauge, and the human convergent score (Eq. 5)
of the problems' human solutions; the human divergent score (Eq. 6) is one number over the
human solutions of all the run's problems, in the headline and repeated in every row. Technique sets come from the
LLM detector (the paper) or the static AST detector; with both, their agreement is
reported. Techniques whose LLM detection did not parse are never defaulted: an incorrect
solution still scores 0 in Eq. 2 and Eq. 4 (the correctness factor decides), a correct one
is left out of them, and only solutions with techniques count in Eq. 3 and constraint
following; the unparsed answers are counted. Problems without human techniques (upstream:
1773F) cannot have a divergent score and are left out of every column, as upstream does.

The headline holds every state's ``pass@1@t``, ``convergent@t``, ``divergent@t`` and
``neogauge@t`` (fractions); each is a plain mean over the state's problems, whose values
``per_item`` gives (one per problem, None where a problem is left out), so an interval is a
bootstrap over problems.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from creval.benchmarks.neocoder.data import NeoCoderDataset
from creval.records import Scores

Detector = Literal["llm", "static", "both"]


@dataclass(frozen=True)
class ScoreSettings:
    detector: Detector = "llm"
    judge_compat: Literal["none", "neocoder"] = "none"
    cpu_seconds: float = 6.0
    float_tol: float | None = None
    empty: Literal["zero", "exclude"] = "zero"
    workers: int | None = None


def _judge(dataset: NeoCoderDataset, items: Sequence[dict[str, Any]], settings: ScoreSettings
           ) -> list[list[dict[str, Any]]]:
    """Per item, per answer: ``{"program", "correct", "verdict"}``."""
    flat = [(item, answer) for item in items for answer in item["answers"]]
    if settings.judge_compat == "neocoder":
        from creval.benchmarks.neocoder.compat import judge_compat_many, upstream_program

        assert dataset.tests is not None
        programs = [upstream_program(a, fenced=not it.get("raw_code")) for it, a in flat]
        cases = [dataset.tests[it["problem_id"]] for it, _ in flat]
        compat = judge_compat_many(
            [(p, c.input, c.output) for p, c in zip(programs, cases, strict=True)],
            workers=settings.workers,
        )
        results = [{"program": p, "correct": r.correct, "verdict": r.status}
                   for p, r in zip(programs, compat, strict=True)]
    else:
        from creval.benchmarks.neocoder.extract import extract_program
        from creval.benchmarks.neocoder.judge import FloatTolerance, default_limits, judge_many

        limits = default_limits()
        if settings.cpu_seconds != limits.cpu_seconds:
            import dataclasses

            limits = dataclasses.replace(limits, cpu_seconds=settings.cpu_seconds,
                                         wall_seconds=max(limits.wall_seconds, 2 * settings.cpu_seconds))
        tol = FloatTolerance(abs=settings.float_tol, rel=settings.float_tol) if settings.float_tol else None
        programs = [extract_program(a) for _, a in flat]
        judged = judge_many([(p, dataset.tests_for(it["problem_id"])) for p, (it, _) in zip(programs, flat, strict=True)],
                            limits=limits, float_tol=tol, workers=settings.workers)
        results = [{"program": p, "correct": r.passed, "verdict": r.verdict}
                   for p, r in zip(programs, judged, strict=True)]
    out: list[list[dict[str, Any]]] = []
    it = iter(results)
    for item in items:
        out.append([next(it) for _ in item["answers"]])
    return out


def _techniques(answer: dict[str, Any], llm: list[str] | None, settings: ScoreSettings,
                agreement: list[tuple[set[str], set[str]]]) -> list[str] | None:
    from creval.benchmarks.neocoder.static_techniques import detect_static

    static = detect_static(answer["program"] or "").techniques if answer["program"] else ()
    if settings.detector == "static":
        return list(static)
    if llm is not None and settings.detector == "both":
        agreement.append((set(llm), set(static)))
    return llm


def score_items(dataset: NeoCoderDataset, items: Sequence[dict[str, Any]], settings: ScoreSettings
                ) -> Scores:
    """The scores (headline, per-state table, notes) of solution ``items``."""
    from creval.metrics import neogauge as ng

    human = dataset.human_techniques or {}
    judged = _judge(dataset, items, settings)
    agreement: list[tuple[set[str], set[str]]] = []
    by_state: dict[int, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    unparsed = excluded = 0
    rows = []
    for item, answers in zip(items, judged, strict=True):
        pid, t = item["problem_id"], int(item["t"])
        union = ng.human_technique_union(human[pid]) if human.get(pid) else None
        llm_all = item.get("llm_techniques") or [None] * len(answers)
        candidates = []
        for answer, llm in zip(answers, llm_all, strict=True):
            techniques = _techniques(answer, llm, settings, agreement)
            if techniques is None:
                unparsed += 1
                if answer["correct"]:
                    continue  # its techniques decide Eq. 2 and 4: unknown, left out
            term = ng.solution_neogauge(answer["correct"], techniques, item["constraints"], union) if union is not None else 0.0
            candidates.append((term, answer, techniques))
        state = by_state[t]
        state["samples"].append((len(answers), sum(bool(a["correct"]) for a in answers)))
        state["problem_terms"].append(None)  # this problem's terms of Eq. 2-4, once scored
        if union is None:
            excluded += 1
            continue
        if not candidates:
            continue
        # best of k (5.3); on a tie, a solution whose techniques are known (Eq. 3 needs them)
        term, best, techniques = max(candidates, key=lambda c: (c[0], c[2] is not None))
        state["problem_terms"][-1] = _problem_terms(best["correct"], techniques, item["constraints"],
                                                    union, term, settings)
        state["scored_samples"].append(state["samples"][-1])
        state["correct"].append(best["correct"])
        state["techniques"].append(techniques)
        state["constraints"].append(item["constraints"])
        state["human"].append(union)
        state["human_sets"].append(human[pid])
        rows.append({"problem": pid, "round": item["round"], "t": t, "correct": best["correct"],
                     "verdict": best["verdict"],
                     "techniques": "(not parsed)" if techniques is None else ", ".join(techniques),
                     "constraints": ", ".join(item["constraints"]),
                     "neogauge_term": round(term, 4)})
    problems = {item["problem_id"] for item in items if human.get(item["problem_id"])}
    human_divergent = (ng.human_divergent_creativity([human[p] for p in sorted(problems)],
                                                     empty=settings.empty) if problems else None)
    table = _state_table(by_state, settings, human_divergent)
    headline = {f"neogauge@{r['t']}": r.get("neogauge") for r in table}
    headline.update({f"pass@1@{r['t']}": r["pass_at_1"] for r in table})
    headline.update({f"pass@{r['k']}@{r['t']}": r["pass_at_k"] for r in table if "k" in r})
    if table:
        headline["cumulative_neogauge"] = table[-1]["cumulative_neogauge"]
    headline["human_divergent"] = human_divergent
    headline.update({f"{name}@{r['t']}": _finite(r.get(name)) for name in ("convergent", "divergent")
                     for r in table})
    per_item = _per_item(by_state, table)
    notes = _notes(settings, unparsed, excluded)
    sections = [{"title": "NeoGauge per state", "rows": table}]
    if agreement:
        sections.append({"title": "LLM vs static technique detection", "rows": _agreement_rows(agreement)})
    return Scores(headline=headline, table=rows, sections=sections, notes=notes,
                  per_item=per_item).with_extra(states=table, settings=settings.__dict__)


def _problem_terms(correct: bool, techniques: list[str] | None, constraints: list[str],
                   union: frozenset[str], term: float, settings: ScoreSettings
                   ) -> dict[str, float | None]:
    """One scored problem's terms of Eq. 2 (convergent), Eq. 3 (divergent; None when its
    techniques are unknown, or with ``empty="exclude"`` none were found) and Eq. 4
    (NeoGauge, ``term``): each state's score is the mean of its problems' terms."""
    from creval.metrics import neogauge as ng

    known = techniques is not None
    return {
        "convergent": float(bool(correct) and known and ng.follows_constraints(techniques or [], constraints)),
        "divergent": ng.novelty_ratio(techniques or [], union, empty=settings.empty) if known else None,
        "neogauge": term,
    }


def _per_item(by_state: dict[int, dict[str, list[Any]]], table: list[dict[str, Any]]
              ) -> dict[str, list[float | None]]:
    """Per state, one value per problem (in the order of the items) behind each headline that
    is a mean over problems: pass@1 and pass@k (every problem), convergent and NeoGauge (None
    for a problem left out: no human techniques, or a correct answer whose techniques did not
    parse), divergent (also None where Eq. 3 leaves the solution out)."""
    from creval.metrics.neogauge import pass_at_k

    out: dict[str, list[float | None]] = {}
    for row in table:
        t, s = row["t"], by_state[row["t"]]
        out[f"pass@1@{t}"] = [pass_at_k([n], [c], k=1) for n, c in s["samples"]]
        if "k" in row:
            out[f"pass@{row['k']}@{t}"] = [pass_at_k([n], [c], k=row["k"]) for n, c in s["samples"]]
        for name in ("convergent", "divergent", "neogauge"):
            out[f"{name}@{t}"] = [None if terms is None else terms[name] for terms in s["problem_terms"]]
    return out


def _finite(value: float | None) -> float | None:
    """None for a missing or NaN score (divergent is NaN when every solution was left out)."""
    return None if value is None or math.isnan(value) else value


def _state_table(by_state: dict[int, dict[str, list[Any]]], settings: ScoreSettings,
                 human_divergent: float | None) -> list[dict[str, Any]]:
    from creval.metrics import neogauge as ng

    table = []
    for t in sorted(by_state):
        s = by_state[t]
        row: dict[str, Any] = {"t": t, "problems": len(s["samples"]), **_pass_at(s["samples"])}
        if s["correct"]:
            stats = ng.neogauge_state(s["correct"], s["techniques"], s["constraints"], s["human"],
                                      empty=settings.empty)
            row.update(scored=stats["n"], with_techniques=stats["n_techniques"], pass_at_1_scored=_pass_at(s["scored_samples"])["pass_at_1"],
                       constraint_following=stats["constraint_following"],
                       convergent=stats["convergent"], divergent=stats["divergent"],
                       neogauge=stats["neogauge"],
                       human_convergent=ng.human_convergent_creativity(s["human_sets"], s["constraints"]),
                       human_divergent=human_divergent)  # Eq. 6: one number, every state
        table.append(row)
    cumulative = ng.cumulative_neogauge([r.get("neogauge") or 0.0 for r in table])
    for row, value in zip(table, cumulative, strict=True):
        row["cumulative_neogauge"] = value
    return table


def _pass_at(samples: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """pass@1 as the unbiased estimate (c/n per problem, Chen et al. 2021) and, when every
    problem has several samples (the sampling strategy), pass@k for k = the fewest samples."""
    from creval.metrics.neogauge import pass_at_k

    ns, cs = [n for n, _ in samples], [c for _, c in samples]
    out: dict[str, Any] = {"pass_at_1": pass_at_k(ns, cs, k=1)}
    if min(ns) > 1:
        out.update(k=min(ns), pass_at_k=pass_at_k(ns, cs, k=min(ns)))
    return out


def _agreement_rows(pairs: list[tuple[set[str], set[str]]]) -> list[dict[str, Any]]:
    from creval.benchmarks.neocoder.static_techniques import detectable_techniques
    from creval.benchmarks.neocoder.techniques import agreement_table

    table = agreement_table(pairs, detectable_techniques())
    return [{"technique": name, **row} for name, row in table.items()]


def _notes(settings: ScoreSettings, unparsed: int, excluded: int) -> list[str]:
    notes = [
        f"Techniques: {settings.detector} detector. Correctness: "
        + ("the NeoCoder repository judge (--judge-compat neocoder), bugs included."
           if settings.judge_compat == "neocoder" else
           f"creval's judge (whole output, sandboxed, {settings.cpu_seconds:g} s CPU per test)."),
        "pass_at_1 counts every problem; pass_at_1_scored only those with human techniques "
        "(the repository's metric, which leaves out 1773F). With k samples per problem (the "
        "sampling strategy) pass@1 is the unbiased estimate c/n, and pass@k (any of k correct) "
        "is reported beside it; NeoGauge takes the best of the k samples (5.3).",
        "human_divergent (Eq. 6) is one number over the human solutions of every problem in the "
        "run (they do not depend on t); each state's row repeats it.",
        "NeoGauge@t = mean of 1[correct] x 1[follows constraints] x new-technique ratio (Eq. 4 "
        "with the correctness factor the paper's text and code use); cumulative = running sum.",
    ]
    if unparsed:
        notes.append(f"{unparsed} answer(s) had a technique detection that did not parse. An "
                     "incorrect one still scores 0 in convergent (Eq. 2) and NeoGauge (Eq. 4); a "
                     "correct one is left out of both; neither counts in constraint following or "
                     "divergent (Eq. 3). pass@1 counts them all.")
    if excluded:
        notes.append(f"{excluded} solution(s) belong to problems without human techniques and are "
                     "left out of every column but pass@1.")
    return notes
