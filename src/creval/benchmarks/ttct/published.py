"""JCQ's and TTCT's published references, declared for the evaluation layer: the seed paper's
values (``creval/data/references/seed004-ttct.json``), the paper's data by digest, and
JCQ-judge's released judgements as per-item results to pair a run with.

JCQ-judge released GPT-4o's judgements of 22 models, 3,500 answers each (700 questions x 5
answers, ``question_id = (answer_id - 1) // 5 + 1``), parsed with the repository's own
pattern. Per question, each criterion is the mean over the question's parsed answers, and
``mean`` the mean of the answers' four-criterion means; a run's values are made the same way
from its judgements. The files are looked for beside the run's questions file
(``judgements_gpt-4o-2024-08-06/`` as in ``creval``'s data notes, or
``judgements/gpt-4o-2024-08-06/`` as in the repository), or where ``published`` points.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.records.references import (
    ItemValues,
    PaperData,
    PaperReferences,
    Protocol,
    Published,
    PublishedItems,
    packaged_references,
)

if TYPE_CHECKING:
    from creval.reader import Run

REFERENCES = "seed004-ttct.json"
#: nlp-waseda/JCQ test.jsonl (700 questions), identical in every commit of JCQ-judge.
JCQ_TEST_SHA256 = "adbdea66e521d3b483f99d3aee17eacecc19a6a9c1d553b3a8ead753da6cfe07"
JCQ_DATA = PaperData("questions", files=frozenset({JCQ_TEST_SHA256}), items="jcq.json")
TTCT_DATA = PaperData("questions")
CRITERIA = ("fluency", "flexibility", "originality", "elaboration")
JCQ_MEASURES = ("mean", *CRITERIA)
JCQ_JUDGE_DIRS = ("judgements_gpt-4o-2024-08-06", "judgements/gpt-4o-2024-08-06")


def references() -> list[PaperReferences]:
    return [packaged_references(REFERENCES)]


def jcq_protocol() -> Protocol:
    """The released judgements' protocol, paired on the items both measured: no minimum
    number of questions."""
    paper = packaged_references(REFERENCES)
    if "jcq-released-judgements" not in paper.protocols:
        raise CrevalError("The packaged references lost the jcq-released-judgements protocol.")
    return replace(paper.protocols["jcq-released-judgements"], items=None)


def jcq_published_items() -> PublishedItems:
    return PublishedItems(
        jcq_protocol(), JCQ_MEASURES, item_identity="question_id of nlp-waseda/JCQ test.jsonl",
        licence="as the JCQ-judge repository states it: read at run time, never shipped",
        fetched_from="the judgements folder beside the run's questions file, or "
        "--published-data")


def run_values(run: Run, lang: str) -> ItemValues:
    """The run's per-question values, from its judgements."""
    from creval.benchmarks.ttct.scoring import judgement_rows

    parser = str(run.manifest.options.get("parser", "strict"))
    rows, _ = judgement_rows(run.records, lang=lang, parser=parser)
    return per_question(rows)


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
    protocol = jcq_protocol()
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        stat = path.stat()
        values = _jcq_file(str(path.resolve()), stat.st_mtime_ns, stat.st_size)
        out.append(Published(path.stem, "jcq", protocol, str(path),
                             {m: dict(v) for m, v in values.items()}))
    return out


def read_jcq_published(run: Run, published: Path | None) -> tuple[list[Published], str | None]:
    folder = jcq_judgement_folder(run, published)
    if folder is None:
        return [], ("the released JCQ judgements were not found beside the questions file; "
                    "pass --published-data with JCQ-judge's judgements folder")
    return jcq_published(folder), None


@lru_cache(maxsize=64)
def _jcq_file(path: str, mtime_ns: int, size: int) -> ItemValues:
    """One released judgement file per question, read once per process while unchanged (a
    run's report and its profile both ask)."""
    from creval.benchmarks.ttct.judgements import load_jcq_judgements

    return per_question(load_jcq_judgements(path, parser="upstream"))
