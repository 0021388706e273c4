"""``creval rank RUN...``: pairwise ratings of the models of several runs of one benchmark.

For every item the runs share (:mod:`creval.evaluation.rank.items`), every pair of the design
and every judge, the judge is shown the task and the two answers twice, once in each order,
and says which is better (``A``, ``B`` or a tie). The judgements run through the runner like
any run (:mod:`creval.runner.engine`): one unit per judgement with a stable key (the item,
the two models in the order shown, the judge, and a digest of the request), appended to
``records.jsonl`` in the output directory, answered from the response cache when asked
before, so a rerun (or a rerun with one more model) asks only what it has not. The output
directory holds ``rank.json`` (what was asked: runs, judges, design, prompt digest),
``records.jsonl`` and ``ratings.json``; it is not a run of a benchmark (no ``manifest.json``),
so readers of runs never take it for one.

The ratings are :func:`creval.metrics.bradley_terry.bootstrap_bradley_terry`: Bradley-Terry
strengths with a first-position bias, ties as half wins, intervals from a bootstrap over
items and judges together; beside them the win-rate matrix, circular triads among the models
and within items, and each run's own headline scores.

>>> parse_winner("After weighing both, Winner: B")
'B'
>>> parse_winner('{"winner": "tie"}'), parse_winner("**A**"), parse_winner("both are fine") is None
('tie', 'A', True)
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.evaluation.rank.items import RankPlan, RankSettings, digest, plan_pairs, read_ranked

PROMPT = "rank_pairwise"
RANK_FILE, RATINGS = "rank.json", "ratings.json"
WINNER_SCHEMA = {"type": "object", "properties": {"winner": {"type": "string", "enum": ["A", "B", "tie"]}},
                 "required": ["winner"], "additionalProperties": False}
_LINE = re.compile(r"winner\s*[:：=-]?\s*[*_`\"'\[(]*\s*(?:answer\s+)?(A|B|tie)\b", re.IGNORECASE)
_BARE = re.compile(r"^[\s*_`\"'\[(]*(?:answer\s+)?(A|B|tie)[\s*_`\"'\]).]*$", re.IGNORECASE)


def parse_winner(text: str) -> str | None:
    """``A``, ``B`` or ``tie`` from a judge's answer (a ``{"winner": ...}`` object, the last
    ``Winner: X`` line, or the bare label), None when it says none of them; never guessed."""
    from creval.judges.structured import as_text

    text = as_text(text, lambda v: f"Winner: {v['winner']}")
    found = _LINE.findall(text) or _BARE.findall(text.strip())
    if not found:
        return None
    value = str(found[-1])
    return "tie" if value.lower() == "tie" else value.upper()


def plan_rank(paths: Sequence[str | Path], settings: RankSettings) -> RankPlan:
    """Read the runs, find their common items and the pairs to judge; nothing is asked."""
    from creval.reader import read_runs

    if not settings.judges or not all(j.strip() for j in settings.judges):
        raise CrevalError("--judge needs a model spec (or several, separated by commas).")
    benchmark, ranked, items = read_ranked(list(read_runs(list(paths))))
    design = plan_pairs([r.label for r in ranked], design=settings.design, opponents=settings.opponents,
                        anchors=settings.anchors)
    out = Path(settings.out) if settings.out else Path("runs") / "rank" / benchmark
    if (out / "manifest.json").is_file():
        raise CrevalError(f"{out} is a run directory of a benchmark; give creval rank an --out of its own.")
    excluded = {}
    if not settings.allow_same_family_judge:
        from creval.evaluation.rank.own_family import by_spec, check_left, run_families

        excluded = by_spec(run_families(ranked), settings.judges)
        check_left(design.pairs, settings.judges, excluded)
    return RankPlan(benchmark, ranked, items, design, list(settings.judges), out, excluded)


def _template(settings: RankSettings) -> tuple[str, str]:
    from creval._util.prompts import load_prompt

    return load_prompt(PROMPT, settings.prompt_file), settings.prompt_file or f"{PROMPT}.txt"


def _units(plan: RankPlan, settings: RankSettings, structured: list[bool]) -> list[Any]:
    from creval._util.prompts import format_prompt
    from creval.models.base import GenerateRequest
    from creval.runner.engine import Unit, UnitContext

    template, source = _template(settings)
    by_label = {r.label: r for r in plan.runs}
    units = []
    for j, judge in enumerate(plan.judges):
        for a, b in plan.judged(judge):
            for item in plan.items:
                task = by_label[a].items[item][0]
                for first, second in ((a, b), (b, a)):
                    prompt = format_prompt(template, source, task=task, criterion=settings.criterion,
                                           answer_a=by_label[first].items[item][1],
                                           answer_b=by_label[second].items[item][1])
                    request = GenerateRequest.chat(prompt, temperature=0.0, max_tokens=settings.max_tokens,
                                                   seed=0, response_schema=WINNER_SCHEMA if structured[j] else None)

                    async def run(ctx: UnitContext, request: GenerateRequest = request, role: str = f"judge{j}") -> dict[str, Any]:
                        (answer,) = await ctx.generate(request, role=role)
                        winner = parse_winner(answer.text)
                        return {"text": answer.text, "winner": winner,
                                **({} if winner else {"parse_error": "no Winner: A, B or tie in the answer"})}

                    meta = {"item": item, "first": first, "second": second, "judge": judge,
                            "prompt": digest(prompt)}
                    key = f"{item}|{first}|{second}|{judge}|{digest(prompt + judge)}"
                    units.append(Unit(key=key, run=run, meta=meta))
    return units


def run_rank(plan: RankPlan, settings: RankSettings) -> dict[str, Any]:
    """Ask every judgement not yet recorded in ``plan.out``, then compute the ratings document
    (also written to ``ratings.json``)."""
    from creval.models import ModelOptions, get_model
    from creval.runner.cache import ResponseCache, default_cache_path
    from creval.runner.engine import Runner
    from creval.runner.store import RunStore, write_json_atomic

    models = {f"judge{j}": get_model(spec, ModelOptions(base_url=settings.judge_base_url, api_key=settings.api_key,
                                                          timeout=settings.timeout, concurrency=settings.concurrency))
              for j, spec in enumerate(plan.judges)}
    structured = [m.capabilities.structured_output for m in models.values()]
    units = _units(plan, settings, structured)
    template, _ = _template(settings)
    store = RunStore(plan.out)
    write_json_atomic(plan.out / RANK_FILE, {
        "creval_rank": 1, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **plan.to_dict(),
        "criterion": settings.criterion, "prompt": digest(template), "prompt_file": settings.prompt_file,
        "max_tokens": settings.max_tokens,
        "judge_models": {role: m.identity() for role, m in models.items()}})
    cache = ResponseCache(settings.cache or default_cache_path()) if settings.use_cache else None
    runner = Runner(store, models, cache=cache, progress=settings.progress, label="rank")
    started = time.time()

    async def go() -> None:
        try:
            await runner.run(units, concurrency=settings.concurrency, keep=False)
        finally:
            for model in models.values():
                await model.aclose()

    try:
        asyncio.run(go())
    finally:
        store.log_invocation({"seconds": time.time() - started, **runner.counters.as_dict()})
        if cache is not None:
            cache.close()
    latest = store.latest()
    store.close()
    keys = {u.key for u in units}
    records = [r for k, r in latest.items() if k in keys]
    from creval.evaluation.rank.fit import ratings_document

    doc = ratings_document(plan, settings, records, runner.down)
    write_json_atomic(plan.out / RATINGS, doc)
    return doc


def rank(paths: str | Path | Sequence[str | Path], *, judge: str | Sequence[str] = "local",
         plan: bool = False, **options: Any) -> dict[str, Any]:
    """The ratings document of the runs under ``paths`` (``creval rank`` from Python);
    ``options`` are :class:`RankSettings` fields (``out``, ``anchors``, ``judge_base_url``...);
    ``plan=True`` returns what would be asked instead, asking nothing.

    >>> rank([], judge="")
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: --judge needs a model spec (or several, separated by commas).
    """
    judges = [j.strip() for j in judge.split(",")] if isinstance(judge, str) else list(judge)
    settings = RankSettings(judges=judges, **options)
    planned = plan_rank([paths] if isinstance(paths, str | Path) else list(paths), settings)
    return planned.to_dict() if plan else run_rank(planned, settings)


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False)
