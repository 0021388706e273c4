"""creval's scorers for the single-turn benchmarks as Inspect ``@scorer`` and ``@metric``.

Each scorer scores one sample with the benchmark's own scoring code and keeps creval's
per-item result in the score's metadata; each metric aggregates those results with the
function ``creval run`` uses, so the numbers match creval's headline:

* ``dat_scorer``: :class:`~creval.benchmarks.dat.scoring.DATScorer` per answer;
  :func:`~creval.metrics.dat.summarize_dat` over them (the mean over valid trials, invalid
  ones excluded and counted).
* ``sat_scorer``: the SAT embedder and :func:`~creval.metrics.distance.paired_cosine_distances`
  per story; mean and sample deviation over stories (empty rewrites excluded and counted).
* ``neocoder_scorer``: :func:`~creval.benchmarks.neocoder.scoring.score_items` per answer
  (the program extracted and judged in creval's sandbox); pass@1 over problems.

A score's ``value`` is a dict whose entries are NaN where creval has no number (an invalid
trial, an empty rewrite), so that Inspect keeps the sample for the metrics, which read
only the metadata. The metrics take the unreduced scores: with ``--epochs``, every epoch
counts as more trials.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from creval.integrations.inspect.samples import options_of

T = TypeVar("T")
NAN = float("nan")


class Once:
    """A value built on first use, in a worker thread, once (models load slowly)."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._value: Any = None

    def _get(self) -> Any:
        with self._lock:
            if self._value is None:
                self._value = self._build()
            return self._value

    async def get(self) -> Any:
        return await anyio.to_thread.run_sync(self._get)


# -- DAT ----------------------------------------------------------------------------------
@metric(scores="unreduced")
def dat_summary() -> Metric:
    """creval's DAT headline: mean and std over valid trials, valid/invalid counts."""
    from creval.metrics.dat import DATResult, InvalidWord, summarize_dat

    def compute(scores: list[SampleScore]) -> dict[str, float | int | None]:
        results = []
        for s in scores:
            t = (s.score.metadata or {})["trial"]
            results.append(DATResult(
                variant=t["variant"], words=tuple(t["words"]), valid=tuple(t["valid"]),
                used=tuple(t["used"]), invalid=tuple(InvalidWord(**i) for i in t["invalid"]),
                duplicates=tuple(t["duplicates"]), score=t["score"], reason=t["reason"],
                detail=t["detail"],
            ))
        summary = summarize_dat(results)
        return {"dat_mean": summary["mean"], "dat_std": summary["std"],
                "valid_trials": summary["n_valid"], "invalid_trials": summary["n_invalid"],
                "unique_words": summary["n_unique_words"]}

    return compute


@scorer(metrics=[dat_summary()])
def dat_scorer(**options: Any) -> Scorer:
    """Score one DAT answer as ``creval run dat`` does (same options)."""
    from creval.benchmarks.dat import DATOptions
    from creval.benchmarks.dat.lists import parse_word_list
    from creval.benchmarks.dat.scoring import DATScorer

    opts = options_of("dat", options, DATOptions)
    built: Once = Once(lambda: DATScorer.from_options(opts))

    async def score(state: TaskState, target: Target) -> Score:
        dat = await built.get()
        text = state.output.completion
        result = dat.score_words(parse_word_list(text, expected=dat.words))
        trial = result.to_dict()
        value = NAN if result.score is None else float(result.score)
        return Score(value={"dat": value}, answer=", ".join(result.words),
                     explanation=result.detail or result.reason,
                     metadata={"trial": trial, "resources": dat.resources})

    return score


# -- SAT ----------------------------------------------------------------------------------
@metric(scores="unreduced")
def sat_summary() -> Metric:
    """creval's SAT headline: mean and sample std of the distances, stories, empty rewrites."""

    def compute(scores: list[SampleScore]) -> dict[str, float | int | None]:
        meta = [s.score.metadata or {} for s in scores]
        distances = [m["distance"] for m in meta if m.get("distance") is not None]
        return {
            "sat_mean": statistics.fmean(distances) if distances else None,
            "sat_std": statistics.stdev(distances) if len(distances) > 1 else None,
            "stories": len(distances),
            "empty_rewrites": sum(1 for m in meta if m.get("empty")),
        }

    return compute


@scorer(metrics=[sat_summary()])
def sat_scorer(**options: Any) -> Scorer:
    """Cosine distance between the embeddings of the original story and the rewrite."""
    from creval.benchmarks.sat import DEFAULT_EMBEDDER, SATOptions
    from creval.benchmarks.sat.stories import load_stories

    opts = options_of("sat", options, SATOptions)
    lang = opts.lang
    stories = {s.id: s for s in load_stories(opts.stories, lang)}
    spec = opts.embedder or DEFAULT_EMBEDDER[lang]

    def build() -> Any:
        from creval.embed import get_embedder

        return get_embedder(spec)

    embedder: Once = Once(build)

    def distance(model: Any, story: str, rewrite: str) -> float:
        from creval.metrics.distance import paired_cosine_distances

        pair = paired_cosine_distances(model.embed([story]), model.embed([rewrite]))
        return float(pair[0])

    async def score(state: TaskState, target: Target) -> Score:
        story = stories[str(state.metadata["id"])]
        rewrite = state.output.completion.strip()
        if not rewrite:
            return Score(value={"sat": NAN}, answer="", explanation="empty rewrite",
                         metadata={"id": story.id, "distance": None, "empty": True})
        model = await embedder.get()
        d = await anyio.to_thread.run_sync(distance, model, story.story, rewrite)
        return Score(value={"sat": d}, answer=rewrite[:160],
                     metadata={"id": story.id, "distance": d, "empty": False,
                               "embedder": model.identity()})

    return score


# -- NeoCoder (state 0) -------------------------------------------------------------------
@metric(scores="unreduced")
def neocoder_summary() -> Metric:
    """pass@1 at state 0 over the problems, as creval's NeoCoder table computes it."""
    from creval.metrics.neogauge import pass_at_1

    def compute(scores: list[SampleScore]) -> dict[str, float | int | None]:
        correct = [bool((s.score.metadata or {})["correct"]) for s in scores]
        return {"pass@1@0": pass_at_1(correct) if correct else None, "problems": len(correct)}

    return compute


@scorer(metrics=[neocoder_summary()])
def neocoder_scorer(**options: Any) -> Scorer:
    """Judge the program in the answer on the problem's tests in creval's sandbox."""
    from creval.benchmarks.neocoder.benchmark import NeoCoderOptions, starter_dir
    from creval.benchmarks.neocoder.data import load_neocoder
    from creval.benchmarks.neocoder.scoring import ScoreSettings, score_items

    opts = options_of("neocoder", options, NeoCoderOptions)
    dataset = load_neocoder(opts.data or starter_dir())
    settings = ScoreSettings(detector="static", judge_compat=opts.judge_compat,
                             cpu_seconds=opts.cpu_seconds,
                             float_tol=opts.float_tol,
                             empty=opts.divergent_empty, workers=1)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        item = {"problem_id": meta["problem_id"], "round": meta["round"], "t": meta["t"],
                "constraints": meta["constraints"], "answers": [state.output.completion]}
        scores = await anyio.to_thread.run_sync(score_items, dataset, [item], settings)
        correct = bool(scores.headline[f"pass@1@{meta['t']}"])
        row = scores.table[0] if scores.table else {}
        verdict = row.get("verdict")
        return Score(value={"pass": 1.0 if correct else 0.0}, answer=str(verdict or ""),
                     explanation=f"sandbox verdict: {verdict}",
                     metadata={"correct": correct, "solution": row})

    return score

