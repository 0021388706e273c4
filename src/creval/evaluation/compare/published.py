"""Published per-item results, and a run's own values on the same items.

Two papers released results item by item, so a run can be compared with each published
model on the very items both measured (:mod:`creval.evaluation.compare.paired`):

- **JCQ** (seed 004): JCQ-judge's GPT-4o judgements of 22 models, 3,500 answers each (700
  questions x 5 answers, ``question_id = (answer_id - 1) // 5 + 1``), parsed with the
  repository's own pattern. Per question, each criterion is the mean over the question's
  parsed answers, and ``mean`` the mean of the answers' four-criterion means; a run's
  values are made the same way from its judgements. The files are looked for beside the
  run's questions file (``judgements_gpt-4o-2024-08-06/`` as in ``creval``'s data notes, or
  ``judgements/gpt-4o-2024-08-06/`` as in the repository), or where ``published`` points.
- **NeoCoder** (seed 000): GPT-4's code for every (problem, state) ships in
  ``NeoCoder.json`` (``codes``); each is judged by creval's compat judge (the repository's
  verdicts, :mod:`creval.benchmarks.neocoder.compat`), giving ``pass@1@t`` per problem. A
  run's values are its own verdicts from ``scores.json``.

Each source names the protocol its values were measured under; a run is compared with it
only when it measured the same way (:func:`creval.evaluation.compare.paired.comparable`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.reader import Run
from creval.report.references import Protocol, load_references

#: measure -> item id -> value
ItemValues = dict[str, dict[str, float]]
CRITERIA = ("fluency", "flexibility", "originality", "elaboration")
JCQ_MEASURES = ("mean", *CRITERIA)
JCQ_JUDGE_DIRS = ("judgements_gpt-4o-2024-08-06", "judgements/gpt-4o-2024-08-06")


def _neocoder_protocol() -> Protocol:
    """The published codes' protocol: the paper's (``neocoder-direct``: every option a
    correctness verdict depends on) without a technique detector, at any number of items."""
    for paper in load_references():
        if "neocoder-direct" in paper.protocols:
            return replace(
                paper.protocols["neocoder-direct"], id="neocoder-gpt4-codes", items=None,
                judge=None,  # correctness only: no technique detector is involved
                options={**paper.protocols["neocoder-direct"].options,
                         "detector": ("llm", "static", "both")},
                description="NeoCoder (Codeforces problems at Denial Prompting "
                "states), GPT-4's (gpt-4-1106-preview) released code per (problem, state) at "
                "temperature 1, judged correct or not by creval's compat judge (the "
                "repository's verdicts).")
    raise CrevalError("The packaged references lost the neocoder-direct protocol.")


@dataclass(frozen=True)
class Published:
    """One published model's per-item values under one protocol."""

    subject: str
    benchmark: str
    protocol: Protocol
    #: Where the values came from (a file).
    source: str
    values: ItemValues


def benchmark_of(run: Run) -> str:
    return run.manifest.benchmark


# --- the run's own values ------------------------------------------------------------------

def run_item_values(run: Run) -> ItemValues:
    """Per-item values of ``run`` keyed by item id: per question for ``jcq``/``ttct``, per
    problem (``pass@1@t``) for ``neocoder``; empty for a benchmark without item ids."""
    bench = benchmark_of(run)
    if bench in ("jcq", "ttct"):
        from creval.benchmarks.ttct.scoring import judgement_rows

        parser = str(run.manifest.options.get("parser", "strict"))
        rows, _ = judgement_rows(run.records, lang="ja" if bench == "jcq" else "en", parser=parser)
        return per_question(rows)
    if bench == "noveltybench":
        from creval.evaluation.compare.noveltybench_published import run_values

        return run_values(run)
    if bench == "neocoder" and run.scores is not None:
        out: ItemValues = defaultdict(dict)
        for row in run.scores.table:
            if {"problem", "t", "correct"} <= set(row):
                out[f"pass@1@{int(row['t'])}"][str(row["problem"])] = float(bool(row["correct"]))
        return dict(out)
    if bench == "ttcw-judges":
        from creval.evaluation.compare.ttcw_published import run_values

        return run_values(run)
    return {}


def per_question(rows: Iterable[dict[str, Any]]) -> ItemValues:
    """Per question: each criterion's mean over its parsed answers, and ``mean``, the mean
    of the answers' four-criterion means.

    >>> rows = [{"question_id": 1, "fluency": 4, "flexibility": 4, "originality": 2,
    ...          "elaboration": 2}, {"question_id": 1, "fluency": 2, "flexibility": 2,
    ...          "originality": 2, "elaboration": 2}]
    >>> per_question(rows)["mean"], per_question(rows)["fluency"]
    ({'1': 2.5}, {'1': 3.0})
    """
    by_q: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_q[str(row["question_id"])].append(row)
    out: ItemValues = {m: {} for m in JCQ_MEASURES}
    for q, answers in by_q.items():
        for c in CRITERIA:
            out[c][q] = sum(float(a[c]) for a in answers) / len(answers)
        out["mean"][q] = sum(sum(float(a[c]) for c in CRITERIA) / 4 for a in answers) / len(answers)
    return out


# --- published values ----------------------------------------------------------------------

def _jcq_protocol() -> Protocol:
    for paper in load_references():
        if "jcq-released-judgements" in paper.protocols:
            # paired on the items both measured: no minimum number of questions
            return replace(paper.protocols["jcq-released-judgements"], items=None)
    raise CrevalError("The packaged references lost the jcq-released-judgements protocol.")


def jcq_judgement_folder(run: Run, published: Path | None) -> Path | None:
    """The folder of JCQ-judge's released judgement files for ``run``: ``published`` when
    given (the folder itself or one holding it), else beside the run's questions file."""
    bases = [published] if published is not None else []
    questions = run.manifest.options.get("questions")
    if published is None and questions not in (None, "", "upstream"):
        bases.append(Path(str(questions)).parent)
    for base in bases:
        # the folder itself only when the user named it (beside test.jsonl it is not one)
        inside = (base,) if base == published else ()
        for folder in (*(base / d for d in JCQ_JUDGE_DIRS), *inside):
            if folder.is_dir() and any(folder.glob("*.jsonl")):
                return Path(folder)
    if published is not None:
        raise CrevalError(f"{published} holds no JCQ judgement files (*.jsonl with answer_id and "
                          f"judgement), nor {' or '.join(JCQ_JUDGE_DIRS)} inside it.")
    return None


def jcq_published(folder: Path) -> list[Published]:
    """One :class:`Published` per judgement file in ``folder`` (the subject is its stem)."""
    protocol = _jcq_protocol()
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        stat = path.stat()
        values = _jcq_file(str(path.resolve()), stat.st_mtime_ns, stat.st_size)
        out.append(Published(path.stem, "jcq", protocol, str(path),
                             {m: dict(v) for m, v in values.items()}))
    return out


@lru_cache(maxsize=64)
def _jcq_file(path: str, mtime_ns: int, size: int) -> ItemValues:
    """One released judgement file per question, read once per process while unchanged (a
    run's report and its profile both ask)."""
    from creval.benchmarks.ttct.judgements import load_jcq_judgements

    return per_question(load_jcq_judgements(path, parser="upstream"))


def neocoder_data_file(run: Run, published: Path | None) -> Path | None:
    """``NeoCoder.json`` of the run's data (or of ``published``), when it exists."""
    where = published if published is not None else run.manifest.options.get("data")
    if where in (None, ""):
        return None
    base = Path(str(where))
    for candidate in (base, base / "NeoCoder.json", base / "NeoCoder" / "NeoCoder.json"):
        if candidate.is_file():
            return candidate
    if published is not None:
        raise CrevalError(f"{published} holds no NeoCoder.json: point --published-data at the "
                          "NeoCoder data directory (creval data fetch neocoder).")
    return None


#: Compat verdicts of released codes already judged in this process (a run's report and its
#: profile both ask): (file, mtime, size, problem, code) -> 1.0 or 0.0.
_NEOCODER_VERDICTS: dict[tuple[str, int, int, str, str | None], float] = {}


def neocoder_published(file: Path, wanted: ItemValues) -> list[Published]:
    """GPT-4's released codes of the (problem, state) pairs in ``wanted``, judged by the
    compat judge: ``pass@1@t`` per problem. Only those pairs are judged (each code runs
    in the sandbox), once per process."""
    from creval.benchmarks.neocoder.compat import judge_compat_many, upstream_program
    from creval.benchmarks.neocoder.data import load_neocoder, states

    dataset = load_neocoder(file)
    if dataset.tests is None:
        raise CrevalError(f"No test cases beside {file}: the compat judge needs them.")
    codes = {p.problem_id: p.codes for p in dataset.problems}
    chosen = []
    for state in states(dataset):
        measure = f"pass@1@{state.t}"
        code_list = codes.get(state.problem_id)
        if state.problem_id in wanted.get(measure, {}) and code_list and state.round < len(code_list):
            chosen.append((measure, state.problem_id, code_list[state.round]))
    cases = dataset.tests
    stat = file.stat()
    where = (str(file.resolve()), stat.st_mtime_ns, stat.st_size)
    todo = [(m, pid, code) for m, pid, code in chosen
            if pid in cases and (*where, pid, code) not in _NEOCODER_VERDICTS]
    verdicts = judge_compat_many([
        (upstream_program(code, fenced=False), cases[pid].input, cases[pid].output)
        for _, pid, code in todo])
    for (_, pid, code), verdict in zip(todo, verdicts, strict=True):
        _NEOCODER_VERDICTS[(*where, pid, code)] = float(verdict.correct)
    values: ItemValues = defaultdict(dict)
    for measure, pid, code in chosen:
        if pid in cases:
            values[measure][pid] = _NEOCODER_VERDICTS[(*where, pid, code)]
    return [Published("GPT-4 (gpt-4-1106-preview)", "neocoder", _neocoder_protocol(), str(file),
                      dict(values))]


def source_protocol(benchmark: str) -> Protocol | None:
    """The protocol of the published per-item results of ``benchmark`` (None: there are none)."""
    if benchmark == "jcq":
        return _jcq_protocol()
    if benchmark == "neocoder":
        return _neocoder_protocol()
    if benchmark == "ttcw-judges":
        from creval.evaluation.compare.ttcw_published import ttcw_protocol

        return ttcw_protocol()
    if benchmark == "noveltybench":
        from creval.evaluation.compare.noveltybench_published import protocol

        return protocol()
    return None


def find_published(run: Run, published: Path | None = None) -> tuple[list[Published], str | None]:
    """The published per-item results for ``run`` and, when there are none, why not.

    Call it only for a run comparable with :func:`source_protocol` (NeoCoder's codes are
    judged here, in the sandbox)."""
    bench = benchmark_of(run)
    if bench == "jcq":
        folder = jcq_judgement_folder(run, published)
        if folder is None:
            return [], ("the released JCQ judgements were not found beside the questions file; "
                        "pass --published-data with JCQ-judge's judgements folder")
        return jcq_published(folder), None
    if bench == "neocoder":
        file = neocoder_data_file(run, published)
        if file is None:
            return [], "no NeoCoder.json with GPT-4's codes (run on the upstream data)"
        return neocoder_published(file, run_item_values(run)), None
    if bench == "ttcw-judges":
        from creval.evaluation.compare import ttcw_published as ttcw

        folder = ttcw.data_folder(run, published)
        if folder is None:
            return [], "no released TTCW judges (data/annotations_*.jsonl) in the run's --data folder"
        return [Published(name, bench, ttcw.ttcw_protocol(), file, {ttcw.MEASURE: values})
                for name, file, values in ttcw.released_values(folder)], None
    if bench == "noveltybench":
        from creval.evaluation.compare import noveltybench_published as nb

        site = nb.site_folder(run, published)
        if site is None:
            return [], ("the site's published results were not found beside the run's --data; "
                        "pass --published-data with a copy of novelty-bench.github.io")
        return [Published(model, bench, nb.protocol(), file, values)
                for model, file, values in nb.published_sources(site)], None
    return [], f"no paper released per-item results of {bench}"
