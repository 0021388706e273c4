"""Scores of ``ttcw-judges`` (and the released judges beside them) from the records."""

from __future__ import annotations

from typing import Any

from creval.benchmarks.ttcw.agreement import agreement, item_agreement, majority
from creval.benchmarks.ttcw.data import RELEASED_JUDGES, TTCWData, item_key, parse_verdict
from creval.records import JudgeCheck, Scores
from creval.runner.store import Record

NOT_DISCRIMINATING = ("its kappa with the experts' majority is {kappa} (interval {low} to {high}): "
                      "on these stories its verdicts are not shown to agree with the experts better "
                      "than chance")


STARTER = ("Starter set: two stories written by creval's authors with one author's verdicts, "
           "not the paper's experts; it checks a set-up and validates no judge. Pass --data with "
           "the TTCW folder for the experts' verdicts.")


def released_verdicts(data: TTCWData) -> dict[str, dict[tuple[str, int], bool | None]]:
    """Each released judge's parsed verdicts, by the name the paper gives the model."""
    return {name: {i: parse_verdict(t) for i, t in data.released(stem).items()}
            for stem, name in RELEASED_JUDGES.items()
            if (data.folder / "data" / f"annotations_{stem}.jsonl").is_file()}


def _fmt(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.2f}"


def _checks(verdicts: list[bool | None], overall: dict[str, Any] | None) -> list[JudgeCheck]:
    from creval.judges.discrimination import no_variance

    checks = no_variance({"the verdict (1 = Yes)": verdicts}, judge="ttcw judge")
    if overall is None or checks:
        return checks
    low, high = overall["kappa_low"], overall["kappa_high"]
    if overall["kappa"] is None or (low is not None and high is not None and low <= 0 <= high):
        return [JudgeCheck(judge="ttcw judge", check="no_variance", items=overall["n"],
                           detail=NOT_DISCRIMINATING.format(kappa=_fmt(overall["kappa"]),
                                                            low=_fmt(low), high=_fmt(high)))]
    return []


def verdicts_of(records: list[Record]) -> dict[tuple[str, int], bool | None]:
    """The judge's verdict per (story, test), parsed again from the recorded answers."""
    return {(str(r.unit["story_id"]), int(r.unit["test"])): parse_verdict(str(r.output.get("text", "")))
            for r in records if r.status == "ok"}


def experts_all_stories(data: TTCWData, test: int | None = None) -> float | None:
    """The experts' Fleiss' kappa on all 48 stories (New Yorker ones too), as the paper
    reports it, for one test or all."""
    from creval.metrics.rater_agreement import fleiss_kappa

    if data.starter:
        return None
    return fleiss_kappa([[v for _, v in votes] for (_, t), votes in data.experts.items()
                         if test is None or t == test])


def score_judges(records: list[Record], options: Any, data: TTCWData) -> Scores:
    verdicts = verdicts_of(records)
    items = sorted(verdicts, key=lambda i: (i[0], i[1]))
    mine = agreement(data, verdicts, items, resamples=options.resamples, seed=options.seed)
    overall = mine["overall"] or {}
    headline: dict[str, Any] = {
        "kappa": overall.get("kappa"), "kappa_low": overall.get("kappa_low"),
        "kappa_high": overall.get("kappa_high"), "accuracy": overall.get("accuracy"),
        "accuracy_low": overall.get("accuracy_low"), "accuracy_high": overall.get("accuracy_high"),
        "experts_fleiss_kappa": overall.get("experts_fleiss_kappa"),
        "judge_yes_rate": overall.get("judge_yes_rate"), "items": len(items),
        "unparsed": mine["unparsed"],
        **({"kappa_interval": overall["interval"]} if overall.get("interval") else {}),
        **{f"kappa_{d['dimension'].lower()}": d["kappa"] for d in mine["dimensions"]},
    }
    headline["experts_fleiss_kappa_all_stories"] = experts_all_stories(data)
    for row in mine["tests"]:
        row["experts_fleiss_kappa_all_stories"] = experts_all_stories(data, row["test"])
    agree = item_agreement(data, verdicts, items)
    table: list[dict[str, Any]] = [{"key": item_key(*i), "story": i[0], "test": i[1], "verdict": verdicts[i],
              "experts_majority": majority(data, i) if i in data.experts else None,
              "agrees": agree.get(item_key(*i))} for i in items]
    released = []
    for name, theirs in released_verdicts(data).items():
        other = agreement(data, theirs, items, resamples=options.resamples, seed=options.seed)
        row = other["overall"] or {}
        released.append({"judge": name, "items": len(items), "unparsed": other["unparsed"],
                         **{k: row.get(k) for k in ("kappa", "kappa_low", "kappa_high", "accuracy",
                                                    "accuracy_low", "accuracy_high", "judge_yes_rate")}})
    sections = [
        {"title": "Per test: the judge against the experts' majority", "rows": mine["tests"]},
        {"title": "Per Torrance dimension", "rows": mine["dimensions"]},
        {"title": "Against each expert alone (Cohen's kappa)", "rows": mine["experts"]},
        {"title": "Released LLM judges on the same stories and tests (recomputed from their files)",
         "rows": released,
         "text": "Each released judge's answers parsed by the same rule as this run's; an item "
                 "it gave no parsed verdict on is left out of its row (counted in unparsed)."},
    ]
    notes = [
        "Agreement is with the majority of the three experts (never tied); intervals are 95% "
        "from a jackknife over stories (the 14 tests of a story left out together; Student's t "
        "at stories - 1 degrees of freedom), none below 5 stories.",
        "experts_fleiss_kappa is the three experts' own agreement on the same items (the paper "
        "reports it per test): a judge's kappa near it agrees with the experts about as well as "
        "they agree with each other. experts_fleiss_kappa_all_stories is the same on all 48 "
        "stories (the 12 New Yorker ones too), the set the paper reports it on.",
        "A verdict is the answer's first word (Yes/No) or a last line that is the answer alone; "
        "any other answer is unparsed and left out (counted in unparsed).",
    ]
    warnings = [STARTER] if data.starter else []
    over = {"level": 0.95, "n": len({s for s, _ in items}), "unit": "stories",
            "method": "jackknife over stories"}
    return Scores(headline=headline, table=table, sections=sections, notes=notes, warnings=warnings,
                  per_item={"accuracy": [agree.get(item_key(*i)) for i in items]},
                  judge_checks=_checks([verdicts[i] for i in items], mine["overall"]),
                  ).with_extra(released_judges=released,  # its own intervals: n in stories
                               intervals={"kappa": over, "accuracy": over})
