"""What ``creval rank`` compares: each run's free-text answer per item, the items the runs share,
and which pairs of models are judged (the sampling design) at what cost.

An item is a unit of the benchmark (a question, a story, a problem) *and* the task its model
was shown: two runs share an item when they have a finished answer under the same key to the
same task text (so runs of different question files or prompts are not mixed). The answer is
the run's text for that item: the first answer of a ``jcq``/``ttct`` question (as
``compare --homogeneity`` reads them, :func:`creval.evaluation.compare.homogeneity.run_answers`), the
rewrite of a ``sat`` story, the finished solution or story of ``macgyver``, ``hypogen`` and
``bookmia``, and the ``text`` output of any other benchmark that writes one (else its
``story`` or ``answer``, or the first of its ``generations``). Repeats
(``--repeats``) are left out: one answer per model and item.

>>> plan_pairs(["a", "b", "c"])
Design(name='all', pairs=[('a', 'b'), ('a', 'c'), ('b', 'c')], anchors=[], opponents=None)
>>> d = plan_pairs([f"m{i}" for i in range(8)], opponents=2, anchors=["m0"])  # 7 + 7 x 2 pairs
>>> d.name, len(d.pairs), all(("m0", m) in d.pairs for m in ["m3", "m7"])
('anchored', 21, True)
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError

if TYPE_CHECKING:
    from creval.reader import Run

#: Output fields read as the answer when there is no ``text`` (``ttcw`` writes a ``story``).
OTHER_TEXT = ("story", "answer")
OTHER_LISTS = ("generations", "answers")
#: At most this many models are compared in every pair by default (the ``auto`` design).
ALL_PAIRS_UP_TO = 6
DEFAULT_OPPONENTS = 3
DEFAULT_CRITERION = "more creative: more original and surprising while still doing what the task asks"


@dataclass
class RankedRun:
    """One run as ``creval rank`` reads it: its label and its (task, answer) per item."""

    label: str
    run: Run
    items: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Design:
    """The pairs of models judged: every pair (``all``), or each model against the anchors and
    ``opponents`` neighbours on a ring (``anchored``, connected by construction)."""

    name: str
    pairs: list[tuple[str, str]]
    anchors: list[str]
    opponents: int | None

    def requests(self, items: int, judges: int) -> int:
        """Judge requests: every pair, item and judge, in both orders."""
        return 2 * len(self.pairs) * items * judges


def judged(pair: tuple[str, str], judge: str, excluded: dict[tuple[str, str], str]) -> bool:
    """Whether ``judge`` decides ``pair``: neither model is in ``excluded`` for it (a judge of
    a rated model's family, :mod:`creval.evaluation.rank.own_family`).

    >>> judged(("a", "b"), "j", {("j", "b"): "same family"}), judged(("a", "c"), "j", {("j", "b"): "x"})
    (False, True)
    """
    return not any((judge, m) in excluded for m in pair)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _task(record_calls: list[dict[str, object]]) -> str:
    """The last user message of the first request the tested model answered."""
    for call in record_calls:
        request = call.get("request")
        if call.get("role", "target") == "target" and isinstance(request, dict):
            users = [m.get("content") for m in request.get("messages", []) if m.get("role") == "user"]
            if users and isinstance(users[-1], str):
                return users[-1]
    return ""


def run_items(run: Run) -> dict[str, tuple[str, str]]:
    """The run's ``(task, answer)`` per item key (finished units, repeat 0, non-empty answer)."""
    from creval.evaluation.compare.homogeneity import answer_text_of, run_answers

    decl = answer_text_of(run.benchmark)  # what the benchmark declares of its answers' text
    if decl.not_free_text is not None:
        raise CrevalError(f"{run.path} is a {run.benchmark} run: {decl.not_free_text}. "
                          "creval rank compares free-text answers (ttct, jcq, sat, macgyver, hypogen, "
                          "bookmia and benchmarks writing a text).")
    records = [r for r in run.records if r.status == "ok" and not r.unit.get("repeat")]
    if decl.rated is not None:
        return {r.key: pair for r in records if (pair := decl.rated(r.unit, r.output)) is not None}

    answers = run_answers(run)
    out = {}
    for r in records:
        answer = str(answers[r.key][0]) if answers.get(r.key) else _other_answer(r.output)
        if answer:
            out[r.key] = (_task(r.calls), answer)
    return out


def _other_answer(output: dict[str, object]) -> str:
    """A text answer under another name: a story (``ttcw``), an answer, or the first of several
    (``generations`` of ``noveltybench``).

    >>> _other_answer({"story": " Once. "}), _other_answer({"generations": ["", "b"]}), _other_answer({})
    ('Once.', 'b', '')
    """
    for name in OTHER_TEXT:
        value = output.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    for name in OTHER_LISTS:
        values = output.get(name)
        if isinstance(values, list):
            return next((v.strip() for v in values if isinstance(v, str) and v.strip()), "")
    return ""


def labels_for(runs: Sequence[Run]) -> list[str]:
    """A short, unique label per run: its model (a replayed run by its folder), else with its
    path."""
    from creval.evaluation.compare.homogeneity import label_for

    labels = [label_for(run.model, run.benchmark) for run in runs]
    if len(set(labels)) == len(labels):
        return labels
    return [f"{label} ({run.path.parent.name}/{run.path.name})" for label, run in zip(labels, runs, strict=True)]


def read_ranked(runs: Sequence[Run]) -> tuple[str, list[RankedRun], list[str]]:
    """The benchmark, the runs with their answers, and the item keys all of them share (in the
    first run's order). Runs of several benchmarks, fewer than two runs, a run without answers
    or one sharing no item with the others stop with what to do."""
    if len(runs) < 2:
        raise CrevalError("creval rank needs at least two runs of the same benchmark (one per model).")
    benchmarks = sorted({run.benchmark for run in runs})
    if len(benchmarks) > 1:
        shown = ", ".join(f"{run.path} ({run.benchmark})" for run in runs)
        raise CrevalError(f"The runs are of different benchmarks ({shown}); rank runs of one "
                          "benchmark at a time.")
    ranked = [RankedRun(label, run, run_items(run)) for label, run in zip(labels_for(runs), runs, strict=True)]
    for one in ranked:
        if not one.items:
            raise CrevalError(f"{one.run.path} ({one.label}) has no finished free-text answer to compare; "
                              "finish the run (run the same command again) or leave it out.")
    for one in ranked:
        others = {(k, digest(t)) for other in ranked if other is not one for k, (t, _) in other.items.items()}
        if not {(k, digest(t)) for k, (t, _) in one.items.items()} & others:
            raise CrevalError(f"{one.run.path} ({one.label}) shares no item with the other runs "
                              f"(its {len(one.items)} answered items are not among theirs, or were "
                              "asked with another task text): rank runs of the same items, or leave it out.")
    first = ranked[0]
    common = [k for k, (task, _) in first.items.items()
              if all(k in r.items and r.items[k][0] == task for r in ranked[1:])]
    if not common:
        raise CrevalError("The runs share no item that all of them answered: rank runs of the same "
                          "items (the same --questions, --stories, --limit), or fewer runs.")
    return benchmarks[0], ranked, common


def plan_pairs(labels: Sequence[str], *, design: str = "auto", opponents: int | None = None,
               anchors: Sequence[str] = ()) -> Design:
    """Which pairs of models are judged. ``all``: every pair; ``anchored``: every model against
    each anchor, and against the ``opponents`` models after it on a ring of the others (each
    model meets about ``2 * opponents`` of them); ``auto``: ``all`` up to
    :data:`ALL_PAIRS_UP_TO` models, else ``anchored``."""
    unknown = [a for a in anchors if a not in labels]
    if unknown:
        raise CrevalError(f"--anchors names {', '.join(unknown)}, which is no run's model; the models "
                          f"are {', '.join(labels)}.")
    if design not in ("auto", "all", "anchored"):
        raise CrevalError(f"--design takes auto, all or anchored, not {design!r}.")
    if opponents is not None and opponents < 1:
        raise CrevalError(f"--opponents must be at least 1, got {opponents}.")
    chosen = design if design != "auto" else ("all" if len(labels) <= ALL_PAIRS_UP_TO else "anchored")
    order = {m: i for i, m in enumerate(labels)}

    def pair(a: str, b: str) -> tuple[str, str]:
        return (a, b) if order[a] < order[b] else (b, a)

    if chosen == "all":
        pairs = {pair(a, b) for i, a in enumerate(labels) for b in labels[i + 1:]}
        return Design("all", sorted(pairs, key=lambda p: (order[p[0]], order[p[1]])), list(anchors), None)
    k = opponents or DEFAULT_OPPONENTS
    rest = [m for m in labels if m not in anchors]
    pairs = {pair(a, m) for a in anchors for m in labels if m != a}
    for i, m in enumerate(rest):
        for step in range(1, min(k, len(rest) - 1) + 1):
            pairs.add(pair(m, rest[(i + step) % len(rest)]))
    if not anchors and len(rest) > 1:
        pairs.add(pair(rest[0], rest[1]))
    return Design("anchored", sorted(pairs, key=lambda p: (order[p[0]], order[p[1]])), list(anchors), k)


@dataclass
class RankSettings:
    """How the judgements are asked and the ratings computed."""

    judges: list[str]
    judge_base_url: str | None = None
    api_key: str | None = None
    out: str | Path | None = None
    design: str = "auto"
    opponents: int | None = None
    anchors: list[str] = field(default_factory=list)
    criterion: str = DEFAULT_CRITERION
    prompt_file: str | None = None
    max_tokens: int = 256
    prior: float = 1.0
    confidence: float = 0.95
    resamples: int = 1000
    seed: int = 0
    concurrency: int | None = None
    timeout: float = 120.0
    cache: Path | None = None
    use_cache: bool = True
    progress: bool = False
    allow_same_family_judge: bool = False


@dataclass
class RankPlan:
    """Everything ``creval rank`` will ask: the runs, their common items, the design."""

    benchmark: str
    runs: list[RankedRun]
    items: list[str]
    design: Design
    judges: list[str]
    out: Path
    #: (judge, model label) -> why that judge does not decide that model's pairs (before any call)
    excluded: dict[tuple[str, str], str] = field(default_factory=dict)

    def judged(self, judge: str) -> list[tuple[str, str]]:
        """The pairs ``judge`` decides."""
        return [p for p in self.design.pairs if judged(p, judge, self.excluded)]

    @property
    def requests(self) -> int:
        """Judge requests: every pair each judge decides, item, in both orders."""
        return 2 * len(self.items) * sum(len(self.judged(j)) for j in self.judges)

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "models": [r.label for r in self.runs],
                "runs": {r.label: str(r.run.path) for r in self.runs}, "items": len(self.items),
                "design": self.design.name, "anchors": self.design.anchors,
                "opponents": self.design.opponents, "pairs": [list(p) for p in self.design.pairs],
                "judges": self.judges, "orders": 2, "requests": self.requests, "out": str(self.out),
                "same_family": [{"judge": j, "model": m, "reason": why} for (j, m), why in sorted(self.excluded.items())]}
