"""Scores of a metric-validity run: every chosen metric per text, then the analysis."""

from __future__ import annotations

from collections import Counter
from typing import Any

from creval.benchmarks.metric_validity.analysis import metric_agreement, separation_table
from creval.benchmarks.metric_validity.data import LabelledText
from creval.benchmarks.metric_validity.judging import discrimination_checks
from creval.benchmarks.metric_validity.scoring import (
    PerText,
    creativity_scores,
    diversity_scores,
    template_scores,
)
from creval.metrics.separation_ci import SEPARATION_MIN_PER_SET
from creval.records import JudgeCheck, Scores
from creval.runner.store import Record

SMALL_INDEX_WORDS = 1_000_000


def _judgements(items: list[LabelledText], records: list[Record], domain: str,
                per_text: PerText, excluded: Counter[str]) -> list[dict[str, Any]]:
    """The judge metric (the domain's creativity criterion) per text; criterion means per set."""
    from creval.benchmarks.metric_validity.judging import rubric_for

    rubric = rubric_for(domain)
    by_id = {str(r.unit.get("id")): r for r in records
             if r.unit.get("part") == "judge" and not r.unit.get("repeat")}
    sums: dict[int, dict[str, list[int]]] = {1: {}, 0: {}}
    for item in items:
        record = by_id.get(item.id)
        if record is None or record.status != "ok":
            excluded["judge: " + ("not run yet" if record is None else "unit failed")] += 1
            continue
        scores = record.output.get("scores")
        if not scores:
            excluded[f"judge: parse failure ({record.output.get('parse_error', '?')[:60]})"] += 1
            continue
        per_text.setdefault(item.id, {})["judge"] = float(scores[rubric.creativity])
        for name, value in scores.items():
            sums[item.label].setdefault(name, []).append(int(value))
    return [
        {"criterion": name, **{f"{s}_mean": round(sum(v) / len(v), 4) if (v := sums[label].get(name)) else None
                               for label, s in ((1, "creative"), (0, "uncreative"))}}
        for name in rubric.criteria()
    ]


def _judge_checks(items: list[LabelledText], records: list[Record], options: Any) -> list[dict[str, Any]]:
    """Table 4's joint filter, consistency over repeats, and the paraphrase flip rate."""
    from creval.benchmarks.metric_validity.judging import (
        consistency,
        flip_rate,
        joint_filter,
        parse_filter,
        rubric_for,
    )

    labels = {i.id: i.label for i in items}
    creativity = rubric_for(options.domain).creativity
    first: dict[str, dict[str, int]] = {}
    repeats: dict[str, list[int]] = {}
    flips: list[tuple[bool, bool]] = []
    for r in records:
        text_id = str(r.unit.get("id"))
        if text_id not in labels or r.status != "ok":
            continue
        if r.unit.get("part") == "judge" and r.output.get("scores"):
            scores = {k: int(v) for k, v in r.output["scores"].items()}
            repeats.setdefault(text_id, []).append(scores[creativity])
            if not r.unit.get("repeat"):
                first[text_id] = scores
        elif r.unit.get("part") == "flip" and None not in (r.output.get("positive"), r.output.get("negative")):
            flips.append((bool(r.output["positive"]), bool(r.output["negative"])))
    rows = [{"check": "joint filter (Table 4)",
             **joint_filter([(labels[t], s) for t, s in first.items()],
                            parse_filter(options.judge_filter, options.domain))}]
    if options.judge_repeats > 1:
        rows.append({"check": f"consistency over {options.judge_repeats} repeats ({creativity})",
                     "value": consistency(list(repeats.values())),
                     "texts": sum(len(v) >= 2 for v in repeats.values())})
    if options.judge_flip:
        rows.append({"check": "flip rate (same answer to 'X?' and 'not X?')",
                     "value": flip_rate(flips), "texts": len(flips)})
    return [{k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()} for row in rows]


def _sns(items: list[LabelledText], records: list[Record], embedder: str, per_text: PerText,
         excluded: Counter[str]) -> None:
    from creval.benchmarks.metric_validity.sns import sns_scores

    by_id = {str(r.unit.get("id")): r for r in records if r.unit.get("part") == "sns"}
    concepts: dict[str, list[str]] = {}
    for item in items:
        record = by_id.get(item.id)
        if record is None or record.status != "ok":
            excluded["sns: " + ("not run yet" if record is None else "unit failed")] += 1
        elif record.output.get("concepts"):
            concepts[item.id] = list(record.output["concepts"])
        else:
            excluded[f"sns: parse failure ({str(record.output.get('parse_error', '?'))[:60]})"] += 1
    for text_id, value in sns_scores(concepts, embedder).items():
        per_text.setdefault(text_id, {})["sns"] = value


def _perplexities(items: list[LabelledText], records: list[Record], per_text: PerText,
                  excluded: Counter[str]) -> str:
    """Fill in perplexities; return the note on how they were computed (window, stride)."""
    by_id = {str(r.unit.get("id")): r for r in records if r.unit.get("part", "ppl") == "ppl"}
    scored = [r.output for r in by_id.values() if r.status == "ok" and "ppl" in r.output]
    for item in items:
        record = by_id.get(item.id)
        if record is None:
            excluded["ppl: not run yet"] += 1
        elif record.status != "ok":
            excluded["ppl: unit failed"] += 1
        elif "ppl" in record.output:
            per_text.setdefault(item.id, {})["ppl"] = float(record.output["ppl"])
        elif item.text.strip():
            excluded[f"ppl: {record.output.get('ppl_error', 'no value')}"] += 1
        else:
            excluded["ppl: empty text"] += 1
    note = "Perplexity: token-weighted, from the target model's prompt log-probabilities"
    settings = sorted({(o.get("ppl_window"), o.get("ppl_stride")) for o in scored}, key=str)
    if any(w is not None for w, _ in settings):
        long = sum(1 for o in scored if int(o.get("ppl_windows") or 1) > 1)
        shown = ", ".join(f"{w} tokens every {st}" for w, st in settings if w is not None)
        note += (f"; windows of {shown} (the Hugging Face recipe: each token scored once, with "
                 f"at least window - stride tokens before it); {long} text(s) needed more than one")
    return note + "."


def _reference_texts(path: str | None) -> list[str] | None:
    if path is None:
        return None
    from creval.benchmarks.metric_validity.data import load_domain

    return [i.text for i in load_domain("custom", creative=path, uncreative=path) if i.label == 1]


def score_items(items: list[LabelledText], records: list[Record], options: Any,
                metrics: list[str]) -> Scores:
    per_text: PerText = {}
    excluded: Counter[str] = Counter()
    notes = [
        f"Domain {options.domain}: {sum(i.label for i in items)} creative and "
        f"{sum(1 - i.label for i in items)} uncreative texts (balanced, seed {options.seed}).",
        "AUROC and thresholds read each metric in seed 002's direction (CI and perplexity: "
        "higher = creative; templates per token: lower = creative). The fixed threshold is the "
        "median of all scores. X_auroc_low and X_auroc_high: DeLong's 95% interval of the AUROC "
        f"on the logit scale (none below {SEPARATION_MIN_PER_SET} texts a set).",
    ]
    out: dict[str, Any] = {}
    judge_checks: list[JudgeCheck] = []
    if "ci" in metrics:
        from creval.index.remote import open_index

        index = open_index(options.index, min_length=min(options.min_l, 5))
        near = None
        if options.near_verbatim is not None:
            from creval.embed import get_embedder
            from creval.index.near import NearVerbatim

            near = NearVerbatim(index, get_embedder(options.near_embedder), threshold=options.near_verbatim)
        ci = creativity_scores(items, index, min_l=options.min_l, max_l=options.max_l,
                               per_text=per_text, excluded=excluded, near=near)
        out["creativity_index"] = ci
        where = ci["index"].get("path") or f"the infini-gram API corpus {ci['index'].get('corpus')}"
        size = f" ({ci['index']['words']} words)" if ci["index"].get("words") else ""
        notes.append(
            f"Creativity Index over L = {options.min_l}..{options.max_l} (mean and sum of "
            f"L-uniqueness), exact word matches in {where}{size}; {ci['queries']} index "
            f"queries for {len(items)} texts. " + (
                f"Near-verbatim matches added (seed 002 appendix B): spans of {options.min_l}+ "
                f"words at cosine >= {options.near_verbatim} to a corpus span under "
                f"{options.near_embedder}; {ci['near_spans']} span(s) beyond the verbatim ones."
                if near is not None else "Verbatim matches only (--near-verbatim adds near ones).")
        )
        if ci["index"].get("words") is not None and ci["index"]["words"] < SMALL_INDEX_WORDS:
            notes.append("The reference corpus is small: few spans match, which inflates "
                         "L-uniqueness compared with the web-scale corpora of the papers.")
    if "ppl" in metrics:
        notes.append(_perplexities(items, records, per_text, excluded))
    if "templates" in metrics:
        reference = _reference_texts(options.template_reference)
        out["templates"] = template_scores(items, options.tagger, n=options.template_n,
                                           top_k=options.top_k, per_text=per_text, excluded=excluded,
                                           reference=reference)
        mined_from = options.template_reference or "both sets jointly"
        notes.append(f"Templates: top {options.top_k} POS {options.template_n}-grams mined from "
                     f"{mined_from}; n-grams never cross sentences.")
    if "diversity" in metrics:
        out["diversity"] = diversity_scores(items)
    if "sns" in metrics:
        _sns(items, records, options.embedder, per_text, excluded)
        notes.append(f"SNS: mean pairwise cosine distance of the embeddings ({options.embedder}) "
                     "of five core concepts named by the judge model.")
    if "judge" in metrics:
        out["judge_criteria"] = _judgements(items, records, options.domain, per_text, excluded)
        out["judge_reliability"] = _judge_checks(items, records, options)
        judge_checks = discrimination_checks(records, options.domain)
        notes.append("Judge: rubric with chain of thought, strict parsing; the judge metric is "
                     "the domain's creativity criterion; unparsed answers are excluded and counted.")
    labels = {i.id: i.label for i in items}
    separation = separation_table(per_text, labels)
    sets = _set_table(out)
    headline: dict[str, Any] = {}
    for row in separation:  # the per-metric table in brief, so the command line prints it
        headline |= {f"{row['metric']}_creative_mean": row.get("mean_creative"),
                     f"{row['metric']}_uncreative_mean": row.get("mean_uncreative"),
                     f"{row['metric']}_auroc": row.get("auroc"),
                     f"{row['metric']}_auroc_low": row.get("auroc_low"),
                     f"{row['metric']}_auroc_high": row.get("auroc_high")}
    headline |= {"texts": len(items), "excluded": sum(excluded.values())}
    values = {
        row["metric"]: {
            name: [v[row["metric"]] for tid, v in per_text.items()
                   if row["metric"] in v and labels.get(tid) == label]
            for label, name in ((1, "creative"), (0, "uncreative"))
        }
        for row in separation
    }
    metric_names = [row["metric"] for row in separation]
    table = [{"id": i.id, "set": "creative" if i.label else "uncreative", "group": i.group,
              **{m: _round4(per_text.get(i.id, {}).get(m)) for m in metric_names}} for i in items]
    return Scores(
        headline=headline,
        sections=[{"title": "Per-metric separation (seed 002 Table 2)", "rows": separation},
                  *_sections(sets, metric_agreement(per_text), out, excluded)],
        table=table,
        per_item={m: [per_text.get(i.id, {}).get(m) for i in items] for m in metric_names},
        notes=notes,
        judge_checks=judge_checks,
    ).with_extra(separation=separation, set_table=sets, agreement=metric_agreement(per_text),
                 excluded=dict(excluded), values=values, per_text=per_text,
                 # what the AUROC intervals are, for every report and profile that prints them
                 intervals={f"{m}_auroc": {"level": 0.95, "method": "DeLong, logit scale",
                                           "n": sum(len(v) for v in values[m].values()),
                                           "unit": "texts"} for m in metric_names},
                 **out)


def _round4(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _set_table(out: dict[str, Any]) -> list[dict[str, Any]]:
    """Set-level metrics: CR-POS, template rate, Distinct-n, Self-BLEU."""
    rows = []
    for name in ("creative", "uncreative"):
        row: dict[str, Any] = {"set": name}
        row |= out.get("templates", {}).get("sets", {}).get(name, {})
        row |= out.get("diversity", {}).get(name, {})
        rows.append({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()})
    return rows


def _sections(sets: list[dict[str, Any]], agreement: list[dict[str, Any]], out: dict[str, Any],
              excluded: Counter[str]) -> list[dict[str, Any]]:
    """Report sections beside the per-metric table (the report's "Items")."""
    sections = [{"title": "Set-level metrics", "rows": sets,
                 "text": "CR-POS and template rate (lower = more varied syntax), Distinct-n "
                         "(higher = more diverse), compression ratio and Self-BLEU (lower = "
                         "more diverse)."}]
    if agreement:
        sections.append({"title": "Agreement between metrics", "rows": agreement,
                         "text": "Spearman's rho over the texts both metrics scored."})
    ci = out.get("creativity_index")
    if ci:
        sections.append({"title": "Creativity Index by L range (seed 002 Table 3)",
                         "rows": ci["index_by_range"],
                         "text": "Mean sum of L-uniqueness per set; a text counts for a range "
                                 "only when it has more words than the range's largest L."})
        sections.append({"title": "L-uniqueness by L (seed 002 Figure 2)",
                         "rows": [{k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}
                                  for r in ci["uniqueness_by_l"]]})
    templates = out.get("templates")
    if templates:
        sections.append({"title": "Template rate by n (seed 002 Figure 4)", "rows": [
            {k: round(v, 4) if isinstance(v, float) else v for k, v in r.items()}
            for r in templates["rate_by_n"]]})
    if out.get("judge_criteria"):
        sections.append({"title": "Judge criteria (mean per set)", "rows": out["judge_criteria"]})
        sections.append({"title": "Judge reliability", "rows": out["judge_reliability"],
                         "text": "Creative texts are the positive class. Repeats and the "
                                 "paraphrase pair run with --judge-repeats and --judge-flip."})
    if excluded:
        sections.append({"title": "Excluded texts", "rows": [
            {"reason": reason, "texts": count} for reason, count in sorted(excluded.items())]})
    return sections
