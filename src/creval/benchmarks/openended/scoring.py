"""Scores of the open-ended benchmarks from finished records (no target-model calls).

Per step of the solution: the valid candidates are clustered by bidirectional entailment and three
semantic entropies are computed: ``discrete`` (cluster counts), ``probability_weighted``
(class probabilities from summed token log-probabilities, normalised over classes: the
Rao-Blackwellised estimator) and ``length_normalised`` (the same with mean token
log-probabilities: the paper's default). Without log-probabilities only the discrete one
exists, and the scores say so. A step where the solution ended (no continuation chosen, as
when the greedy answer is DONE) is not scored: upstream stops before it. A step with a single
valid candidate has entropy 0 (one class); ``single_candidate="drop"`` leaves such steps out
instead (creval's earlier rule). Per solution: mean (headline), min and max over steps.
Diversity baselines per step (Table 1): mean pairwise cosine similarity, Self-BLEU,
Distinct-1 and Distinct-2. Judges: verdicts per criterion and tokens per role.
"""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Sequence
from typing import Any

from creval.errors import CrevalError
from creval.records import JudgeCheck, Scores
from creval.runner.store import Record

ESTIMATORS = ("length_normalised", "probability_weighted", "discrete")


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


async def _resolve_entailment(spec: str) -> tuple[Any, list[str]]:
    """The entailment backend for ``spec``; ``auto`` falls back to the labelled embedding
    approximation when the paper's NLI model cannot be loaded (offline, not cached)."""
    from creval.nli import CachingEntailment
    from creval.runner.remote_nli import entailment_on_executor  # forward passes on workers

    if spec != "auto":
        return CachingEntailment(entailment_on_executor(spec)), []
    nli = CachingEntailment(entailment_on_executor("hf"))
    try:
        if not _nli_model_reachable():
            raise CrevalError("not in the Hugging Face cache and huggingface.co is unreachable")
        await nli.classify([("A step.", "A step.")])
        return nli, []
    except Exception as exc:  # offline and not cached, or transformers missing
        reason = str(exc).splitlines()[0][:200]
        fallback = CachingEntailment(entailment_on_executor("embedding"))
        return fallback, [
            "Entailment: the default NLI model (tasksource/deberta-base-long-nli) could not be "
            f"loaded ({reason}); clusters come from the embedding-similarity fallback, an "
            "APPROXIMATION of bidirectional entailment. Pass --entailment hf:MODEL online."
        ]


def _nli_model_reachable(timeout: float = 3.0) -> bool:
    """Whether the default NLI model is cached locally or the hub answers quickly (so that
    ``auto`` does not sit through a minute of download retries on an offline machine)."""
    from creval.nli.hf import DEFAULT_NLI_MODEL

    try:
        from huggingface_hub import try_to_load_from_cache

        if isinstance(try_to_load_from_cache(DEFAULT_NLI_MODEL, "config.json"), str):
            return True
    except ImportError:
        return False
    import httpx

    try:
        httpx.head("https://huggingface.co", timeout=timeout)
        return True
    except httpx.HTTPError:
        return False


def _entropies(class_ids: list[int], candidates: list[dict[str, Any]]) -> dict[str, float]:
    from creval.metrics.semantic_entropy import discrete_semantic_entropy, rao_blackwell_entropy

    out = {"discrete": discrete_semantic_entropy(class_ids)}
    if all(c.get("logprob_mean") is not None for c in candidates):
        out["probability_weighted"] = rao_blackwell_entropy(class_ids, [c["logprob_sum"] for c in candidates])
        out["length_normalised"] = rao_blackwell_entropy(class_ids, [c["logprob_mean"] for c in candidates])
    return out


def _diversity(texts: list[str], embedder: Any) -> dict[str, float]:
    from creval.metrics.diversity import distinct_n, mean_pairwise_cosine_similarity, self_bleu

    return {
        "cosine_similarity": mean_pairwise_cosine_similarity(embedder.embed(texts)),
        "self_bleu": self_bleu(texts),
        "distinct_1": distinct_n(texts, n=1),
        "distinct_2": distinct_n(texts, n=2),
    }


def min_candidates(single_candidate: str) -> int:
    """The fewest valid candidates a scored step needs: 1 (``"zero"``, entropy 0) or 2."""
    if single_candidate not in ("zero", "drop"):
        raise CrevalError(f"single_candidate must be 'zero' or 'drop', got {single_candidate!r}.")
    return 1 if single_candidate == "zero" else 2


async def _score_steps(
    records: list[Record], nli: Any, mode: str, embedder: Any, single_candidate: str = "zero",
    lookup: str = "both",
) -> list[dict[str, Any]]:
    from creval.nli import partition_texts

    fewest = min_candidates(single_candidate)
    rows = []
    for record in records:
        for step in record.output.get("steps", []):
            valid = [c for c in step["candidates"] if c["valid"]]
            row: dict[str, Any] = {
                "id": record.unit.get("id"), "step": step["step"], "valid": len(valid),
                "finished_votes": sum(c["finished"] for c in step["candidates"]),
            }
            if step.get("chosen") is None:
                row["not_scored"] = "the solution finished here (no step was added)"
            elif len(valid) >= fewest:
                texts = [c["text"] for c in valid]
                part = await partition_texts(texts, nli, mode=mode, lookup=lookup)
                row.update(clusters=part.n_classes, entailment_calls=part.entailment_calls,
                           **_entropies(list(part.class_ids), valid))
                if len(texts) >= 2:
                    row.update(_diversity(texts, embedder))
            else:
                row["not_scored"] = f"fewer than {fewest} valid candidates"
            rows.append(row)
    return rows


def _solution_rows(records: list[Record], steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from creval.metrics.semantic_entropy import aggregate_steps

    rows = []
    for record in records:
        pid = record.unit.get("id")
        mine = [s for s in steps if s["id"] == pid and "discrete" in s]
        row: dict[str, Any] = {"id": pid, "steps": len(record.output.get("solution_steps", [])),
                               "stop": record.output.get("stop_reason"), "scored_steps": len(mine)}
        for est in ESTIMATORS:
            values = [s[est] for s in mine if est in s]
            if values:
                row[f"se_{est}"] = aggregate_steps(values)
                if est == "length_normalised":
                    row["se_min"] = aggregate_steps(values, how="min")
                    row["se_max"] = aggregate_steps(values, how="max")
        for name, verdict in record.output.get("verdicts", {}).items():
            row[f"{name}_overall"] = verdict.get("overall")
            row[f"{name}_tokens"] = _tokens(verdict.get("total_usage", {}))
        row["solution"] = str(record.output.get("solution", ""))[:200]
        rows.append(row)
    return rows


def _tokens(usage: dict[str, Any]) -> int:
    return int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))


def _judge_summary(records: list[Record]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    headline: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    names = sorted({n for r in records for n in r.output.get("verdicts", {})})
    for name in names:
        verdicts = [r.output["verdicts"][name] for r in records if name in r.output.get("verdicts", {})]
        criteria = sorted({c for v in verdicts for c in v["verdicts"]})
        row: dict[str, Any] = {"judge": name, "solutions": len(verdicts)}
        for c in criteria:
            row[c] = _mean([None if v["verdicts"].get(c) is None else float(v["verdicts"][c]) for v in verdicts])
        row["overall"] = _mean([v.get("overall") for v in verdicts])
        row["parse_failures"] = sum(len(v.get("parse_failures", [])) for v in verdicts)
        roles: dict[str, int] = {}
        for v in verdicts:
            for role, usage in v.get("usage", {}).items():
                roles[role] = roles.get(role, 0) + _tokens(usage)
        row["tokens"] = sum(roles.values())
        row["tokens_by_role"] = ", ".join(f"{k}={n}" for k, n in sorted(roles.items()))
        headline[f"{name}_overall"] = row["overall"]
        headline[f"{name}_tokens"] = row["tokens"]
        rows.append(row)
    return headline, rows


#: Fewest parsed YES/NO verdicts before "always the same" counts as a judge check: a judge
#: may fairly say YES to five good solutions in a row, hardly to ten without looking.
BINARY_MIN_ITEMS = 10


def judge_checks(records: list[Record], domain: str) -> list[JudgeCheck]:
    """Each convergent judge's criteria whose verdict was the same on every solution (at
    least :data:`BINARY_MIN_ITEMS` parsed). The order of the criteria is not checked: with
    YES/NO verdicts, a strict rise along three or more criteria cannot happen."""
    from creval.judges.discrimination import no_variance

    out: list[JudgeCheck] = []
    names = sorted({n for r in records for n in r.output.get("verdicts", {})})
    for name in names:
        verdicts = [r.output["verdicts"][name]["verdicts"] for r in records
                    if name in r.output.get("verdicts", {})]
        criteria = sorted({c for v in verdicts for c in v})
        columns = {c: [None if v.get(c) is None else float(v[c]) for v in verdicts] for c in criteria}
        out += no_variance(columns, min_items=BINARY_MIN_ITEMS,
                           judge=f"{name} judge ({domain}; verdicts 1 = YES, 0 = NO)")
    return out


def _per_item(solutions: list[dict[str, Any]], judge_headline: dict[str, Any]) -> dict[str, list[float | None]]:
    """The per-solution values behind ``semantic_entropy`` (its headline is their mean over the
    solutions that have one) and behind each ``<judge>_overall`` (None: not judged by it)."""
    out: dict[str, list[float | None]] = {"semantic_entropy": [s.get("se_length_normalised") for s in solutions]}
    for key in judge_headline:
        if key.endswith("_overall"):
            out[key] = [s.get(key) for s in solutions]
    return out


def score_openended(records: list[Record], options: Any, *, domain: str) -> Scores:
    """The scores of one run (see the module docstring)."""
    from creval.embed import get_embedder

    ok = [r for r in records if r.status == "ok"]
    nli, notes = asyncio.run(_resolve_entailment(options.entailment))
    embedder = get_embedder(options.diversity_embedder)
    try:
        steps = asyncio.run(_score_steps(ok, nli, options.partition_mode, embedder,
                                         options.single_candidate, options.entailment_lookup))
    except CrevalError:
        raise
    solutions = _solution_rows(ok, steps)
    judge_headline, judge_rows = _judge_summary(ok)
    sources = {r.output.get("logprobs") for r in ok}
    scored = [s for s in steps if "discrete" in s]
    headline: dict[str, Any] = {
        "semantic_entropy": _mean([s.get("se_length_normalised") for s in solutions]),
        "semantic_entropy_discrete": _mean([s.get("se_discrete") for s in solutions]),
        "semantic_entropy_probability_weighted": _mean([s.get("se_probability_weighted") for s in solutions]),
        "clusters_per_step": _mean([s["clusters"] for s in scored]),
        **{k: _mean([s.get(k) for s in scored]) for k in ("cosine_similarity", "self_bleu", "distinct_1", "distinct_2")},
        **judge_headline,
        "solutions": len(ok),
        "steps_scored": len(scored),
    }
    warnings = []
    if sources & {"none", "partial", None}:
        warnings.append(
            "Only the discrete semantic entropy could be computed for "
            f"{sum(r.output.get('logprobs') in ('none', 'partial', None) for r in ok)} of "
            f"{len(ok)} solution(s): the model returned no log-probabilities for some "
            "candidates (an OpenAI-compatible server needs logprobs support)."
        )
    notes.append(
        "Log-probabilities: " + ", ".join(sorted(str(s) for s in sources)) + " (model = the "
        "model's own distribution, Eq. 1, the default; sampling = the distribution actually "
        "sampled, after temperature and top-p; partial or none = some or all candidates came "
        "back without them, so only the discrete entropy could be computed there)."
    )
    calls = sum(s.get("entailment_calls", 0) for s in scored)
    all_pairs = sum(s["valid"] * (s["valid"] - 1) for s in scored)
    notes += [
        "semantic_entropy is the paper's length-normalised, Rao-Blackwellised estimator "
        "(natural log), averaged over steps and then over solutions; per-solution min and max "
        "are in the table.",
        f"Clustering: greedy bidirectional entailment ({options.partition_mode}, "
        f"{options.entailment_lookup} lookup); "
        f"{calls} entailment calls vs {all_pairs} for all ordered pairs.",
        "The step at which a solution ends is not scored. "
        + ("A step with one valid candidate has entropy 0 (one class)."
           if options.single_candidate == "zero" else
           "Steps with fewer than 2 valid candidates are not scored (--single-candidate drop)."),
    ]
    return Scores(
        headline=headline,
        table=solutions,
        sections=[
            {"title": "Judges", "rows": judge_rows},
            {"title": "Steps", "rows": [{k: v for k, v in s.items()} for s in steps]},
        ],
        resources={"entailment": nli.identity(), "embedder": embedder.identity()},
        notes=notes,
        warnings=warnings,
        per_item=_per_item(solutions, judge_headline),
        judge_checks=judge_checks(ok, domain),
    ).with_extra(entailment_counts=nli.counts())
