"""TTCW's published references, declared for the evaluation layer: the experts' pass rates per
story source (``creval/data/references/ttcw.json``, computed from the released annotations,
BSD-3-Clause) that a ``ttcw`` run is placed beside, never comparable (its judge is not the
experts); the released TTCW judges as per-item results for ``creval compare RUN --published``;
and the ``creval data fetch`` source.

Chakrabarty et al. released the verdicts of seven LLM judges (GPT-3.5, GPT-4, Gemini Pro,
Claude 1.3/2/2.1/3 Opus) on every story and test. A ``ttcw-judges`` run's judge and each
released judge are paired on the (story, test) items both judged: per item the value is 1
when the verdict equals the three experts' majority and 0 otherwise (measure ``agreement``),
so the paired difference is the difference of their accuracies on the same items. The
released files are read from the run's ``--data`` folder, or from ``--published-data``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from creval.errors import CrevalError
from creval.records.references import (
    DataSource,
    ItemValues,
    PaperReferences,
    Protocol,
    Published,
    PublishedItems,
    packaged_references,
)

if TYPE_CHECKING:
    from creval.reader import Run

BENCHMARK = "ttcw-judges"
MEASURE = "agreement"
#: Options of ``ttcw-judges`` that do not change what is measured, each with why.
NOT_COMPARED: dict[str, str] = {
    **{name: "the run's judge is what is compared: each released TTCW judge is paired with it "
       "on the (story, test) items both judged" for name in (
           "data", "stories", "tests", "temperature", "max_tokens", "wording", "prompt_file")},
    "resamples": "the intervals shown beside kappa, not the per-item agreement",
}


REFERENCES = "ttcw.json"
#: Options of ``ttcw`` that do not change what is measured, each with why.
WRITING_NOT_COMPARED: dict[str, str] = {
    "data": "where the plots are read from: the stories behind the value are counted against "
            "the paper's 12 plots, and the experts' values are never comparable with an LLM "
            "judge's",
    "resamples": "unused: the intervals are a jackknife over stories",
    "judge_agreement": "a ttcw-judges run shown beside the pass rates, not how they are measured",
}


def references() -> list[PaperReferences]:
    """The experts' pass rates per story source, as a paper's references."""
    return [packaged_references(REFERENCES)]


def ttcw_protocol() -> Protocol:
    """Any judge on the paper's stories and tests: the pairing itself keeps to the items
    both judged, so no option or item count is required."""
    return Protocol(
        id="ttcw-released-judges", benchmark=BENCHMARK, data="none", items=None, judge=None,
        description="TTCW (Chakrabarty et al., CHI 2024): the released LLM judges' Yes/No "
        "verdicts on the 14 tests of the LLM-written stories, each item scored 1 when it "
        "equals the three experts' majority.")


def run_values(run: Run) -> ItemValues:
    """The run's judge per item: ``{"agreement": {item key: 1.0 or 0.0}}`` from its scores."""
    if run.scores is None:
        return {}
    values = {str(r["key"]): float(r["agrees"]) for r in run.scores.table
              if r.get("key") is not None and r.get("agrees") is not None}
    return {MEASURE: values} if values else {}


def data_folder(run: Run, published: Path | None) -> Path | None:
    where = published if published is not None else run.manifest.options.get("data")
    if where in (None, ""):
        return None
    folder = Path(str(where))
    if not (folder / "data").is_dir():
        if published is not None:
            raise CrevalError(f"{published} holds no data/annotations_*.jsonl: point "
                              "--published-data at the TTCW folder (`creval data fetch ttcw`).")
        return None
    return folder


def released_values(folder: Path) -> list[tuple[str, str, dict[str, float]]]:
    """(judge, file, item key -> 1.0/0.0) of each released judge, on the LLM-written stories."""
    from creval.benchmarks.ttcw.agreement import item_agreement
    from creval.benchmarks.ttcw.data import RELEASED_JUDGES, load_ttcw
    from creval.benchmarks.ttcw.scoring import released_verdicts

    data = load_ttcw(folder)
    items = [(s.story_id, t.idx) for s in data.written_by_llms() for t in data.tests]
    files = {name: str(folder / "data" / f"annotations_{stem}.jsonl")
             for stem, name in RELEASED_JUDGES.items()}
    return [(name, files[name], item_agreement(data, verdicts, items))
            for name, verdicts in released_verdicts(data).items()]


def published_items() -> PublishedItems:
    return PublishedItems(
        ttcw_protocol(), (MEASURE,), item_identity="(story, test) of the LLM-written stories",
        licence="BSD-3-Clause (salesforce/creativity_eval): read at run time from the fetched "
        "folder",
        fetched_from="data/annotations_*.jsonl of `creval data fetch ttcw` (the run's --data), "
        "or --published-data")


def read_published(run: Run, published: Path | None) -> tuple[list[Published], str | None]:
    folder = data_folder(run, published)
    if folder is None:
        return [], "no released TTCW judges (data/annotations_*.jsonl) in the run's --data folder"
    return [Published(name, BENCHMARK, ttcw_protocol(), file, {MEASURE: values})
            for name, file, values in released_values(folder)], None


def data_source() -> DataSource:
    from creval.benchmarks.ttcw.fetch import UPSTREAM_COMMIT, UPSTREAM_FILES

    return DataSource(
        "ttcw", "TTCW tests, stories, expert verdicts and released LLM judges from GitHub "
        "salesforce/creativity_eval (Art_or_Artifice)", "creval.benchmarks.ttcw.fetch:fetch_ttcw",
        url="https://github.com/salesforce/creativity_eval", commit=UPSTREAM_COMMIT,
        digests={local: sha for local, (_, sha) in UPSTREAM_FILES.items()},
        licence="BSD-3-Clause")
