"""Open-ended problem loaders (MacGyver, HypoGen, BookMIA) and MacGyver's human labels."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.openended.data import (
    FIELDS,
    Problem,
    load_macgyver_table,
    load_problems,
    problem_from_record,
    seed42_order,
    split_sentences,
)
from creval.benchmarks.openended.human_labels import (
    HumanLabel,
    load_human_labels,
    parse_human_labels,
    score_against_labels,
)
from creval.errors import CrevalError

# --- starter sets -------------------------------------------------------------------


@pytest.mark.parametrize("domain", ["macgyver", "hypogen", "bookmia"])
def test_starter_sets_load_offline(domain: str) -> None:
    problems = load_problems(domain)
    assert len(problems) >= 5
    assert len({p.id for p in problems}) == len(problems)
    for p in problems:
        assert p.domain == domain and set(p.fields) == set(FIELDS[domain])
        assert all(len(v) > 20 for v in p.fields.values())
        assert p.reference
    assert [p.id for p in load_problems(domain, limit=2)] == [p.id for p in problems[:2]]


def test_problem_texts_for_prompts_and_judges() -> None:
    story = load_problems("bookmia")[0]
    text = story.full_solution(["One.", "  ", "Two."])
    assert text.startswith(story.fields["start"]) and text.endswith(story.fields["end"])
    assert " One. Two. " in text
    assert story.fields["start"] in story.judge_text()
    steps = load_problems("macgyver")[0].full_solution(["Clip it.", "Seal it."])
    assert steps == "Step 1: Clip it.\nStep 2: Seal it."
    with pytest.raises(ValueError, match="lacks flip"):
        Problem(id="x", domain="hypogen", fields={"bit": "b", "flip": " "})


def test_load_problems_errors() -> None:
    with pytest.raises(CrevalError, match="Unknown domain"):
        load_problems("poetry")
    with pytest.raises(CrevalError, match="does not exist"):
        load_problems("hypogen", "/nonexistent/hypogen.jsonl")
    with pytest.raises(CrevalError, match="Unknown subset"):
        load_problems("hypogen", subset="paper300")
    with pytest.raises(CrevalError, match="upstream"):
        load_problems("macgyver", subset="paper300")
    with pytest.raises(CrevalError, match="limit"):
        load_problems("macgyver", limit=0)


def test_local_jsonl_in_upstream_shapes(tmp_path: Path) -> None:
    hypo = tmp_path / "hypogen.jsonl"
    rows = [
        {"bit_flip_spark": {"bit": "Models need labels.", "flip": "Use self-supervision.",
                            "spark": "labels are scarce"}, "chain_of_reasoning": "Because."},
        {"bit": "Grids must be fine.", "flip": "Learn the dynamics."},
    ]  # fmt: skip
    hypo.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")
    problems = load_problems("hypogen", str(hypo))
    assert [p.id for p in problems] == ["0", "1"]
    assert problems[0].fields == {"bit": "Models need labels.", "flip": "Use self-supervision."}
    assert problems[0].reference == "Because." and problems[0].meta["spark"] == "labels are scarce"
    assert problems[1].reference is None

    books = tmp_path / "bookmia.jsonl"
    snippets = [
        {"book_id": 3, "book": "b.txt", "snippet_id": 9, "label": 1,
         "snippet": "It was late.\nThe dog barked twice. Nobody came! She locked the gate."},
        {"book_id": 3, "book": "b.txt", "snippet_id": 10, "label": 0,
         "snippet": "Too short. Only two."},
    ]  # fmt: skip
    books.write_text("\n".join(json.dumps(r) for r in snippets), encoding="utf-8")
    (story,) = load_problems("bookmia", str(books))  # the 2-sentence snippet is skipped
    assert story.fields == {"start": "It was late.", "end": "She locked the gate."}
    assert story.reference == "The dog barked twice. Nobody came!"
    assert story.meta == {"book": "b.txt", "book_id": 3, "snippet_id": 9, "label": 1}

    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"bit": "only a bit"}\n', encoding="utf-8")
    with pytest.raises(CrevalError, match="record 1.*lacks flip"):
        load_problems("hypogen", str(broken))
    broken.write_text('{"bit": \n', encoding="utf-8")
    with pytest.raises(CrevalError, match="broken.jsonl:1: not valid JSON"):
        load_problems("hypogen", str(broken))


def test_split_sentences_rules() -> None:
    text = 'Dr. Watson came in.  "Where?" he said.\nMrs. Hudson sighed... It was 5 p.m. Done'
    assert split_sentences(text) == [
        "Dr. Watson came in.",
        '"Where?" he said.',
        "Mrs. Hudson sighed...",
        "It was 5 p.m. Done",
    ]
    assert split_sentences("") == []


def test_macgyver_csv_missing_columns(tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.csv"
    with sheet.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["ID", "Problem", "Solution"], ["1", "p", "s"]])
    with pytest.raises(CrevalError, match=r"lacks the MacGyver column\(s\) Solvable\?"):
        load_problems("macgyver", str(sheet))
    with sheet.open("w", newline="", encoding="utf-8") as f:
        rows = [["ID", "Problem", "Solvable?", "Solution"], ["5", "p5", "No", "x"],
                ["6", "p6", "Yes", "s6"], ["7", "p7", "Yes", "s7"]]  # fmt: skip
        csv.writer(f).writerows(rows)
    assert [p.id for p in load_problems("macgyver", str(sheet))] == ["6", "7"]
    every = load_macgyver_table(sheet, solvable_only=False)
    assert [(p.id, p.meta["solvable"]) for p in every] == [("5", False), ("6", True), ("7", True)]


def test_xlsx_without_openpyxl_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "openpyxl", None)  # as if it were not installed
    fake = tmp_path / "sheet.xlsx"
    fake.write_bytes(b"not really")
    with pytest.raises(CrevalError, match=r"pip install 'creval\[data\]'.*CSV"):
        load_problems("macgyver", str(fake))


def test_hf_source_without_datasets_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(CrevalError, match=r"pip install 'creval\[data\]'"):
        load_problems("bookmia", "hf")
    with pytest.raises(CrevalError, match="no Hugging Face source"):
        load_problems("macgyver", "hf")


def test_hf_source_reads_a_local_dataset_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    folder = tmp_path / "bookmia"
    folder.mkdir()
    row = {"book_id": 1, "book": "x.txt", "snippet_id": 4, "label": 0,
           "snippet": "The rain began. We ran home. The door was open."}  # fmt: skip
    (folder / "book_data.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    (story,) = load_problems("bookmia", f"hf:{folder}")
    assert story.fields == {"start": "The rain began.", "end": "The door was open."}
    assert story.reference == "We ran home." and story.meta["snippet_id"] == 4
    with pytest.raises(CrevalError, match="Could not load"):
        load_problems("hypogen", f"hf:{tmp_path / 'absent'}")


def test_problem_from_record_skips_unsolvable() -> None:
    row = {"ID": 12, "Problem": "p", "Solvable?": "No", "Solution": "cannot"}
    assert problem_from_record("macgyver", row, "0") is None


# --- the paper's 300 MacGyver problems (shared data, read in place) ------------------


def _paper300_ids() -> list[str]:
    lines = shared_data_path("creativity_eval", "macgyver_first300_seed42.jsonl").read_text("utf-8")
    return [str(json.loads(line)["ID"]) for line in lines.splitlines() if line.strip()]


def test_paper300_subset_matches_the_documented_selection_from_csv() -> None:
    sheet = shared_data_path("macgyver", "problem_solution_pair.csv")
    expected = _paper300_ids()
    problems = load_problems("macgyver", str(sheet), subset="paper300")
    assert [p.id for p in problems] == expected
    reference = [json.loads(line) for line in shared_data_path(
        "creativity_eval", "macgyver_first300_seed42.jsonl").read_text("utf-8").splitlines()]  # fmt: skip
    assert all(p.fields["problem"] == r["Problem"] and p.reference == r["Solution"]
               for p, r in zip(problems, reference, strict=True))  # fmt: skip
    assert [
        p.id for p in load_problems("macgyver", str(sheet), subset="paper300", limit=5)
    ] == expected[:5]


def test_paper300_is_the_same_300_from_the_sheet_in_another_row_order(tmp_path: Path) -> None:
    """The shipped IDs are the documented selection; the rows reordered (as CSV) or the
    .xlsx give the same 300 problems; a file without them all falls back to its own order."""
    from importlib import resources

    shipped = json.loads((resources.files("creval") / "data" / "openended" /
                          "macgyver_paper300.json").read_text("utf-8"))["ids"]
    assert shipped == _paper300_ids()
    sheet = shared_data_path("macgyver", "problem_solution_pair.csv")
    with sheet.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        header, rows = list(reader.fieldnames or []), list(reader)
    reordered = tmp_path / "reordered.csv"
    with reordered.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header)
        writer.writeheader()
        writer.writerows(rows[::-1])
    assert [p.id for p in load_problems("macgyver", str(reordered), subset="paper300")] == shipped
    xlsx = shared_data_path("macgyver", "problem_solution_pair.xlsx")
    assert [p.id for p in load_problems("macgyver", str(xlsx), subset="paper300", limit=3)] == shipped[:3]
    fewer = tmp_path / "fewer.csv"
    with fewer.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header)
        writer.writeheader()
        writer.writerows([r for r in rows if r["ID"] != shipped[0]])
    solvable = [p.id for p in load_problems("macgyver", str(fewer))]
    assert [p.id for p in load_problems("macgyver", str(fewer), subset="paper300")] == [
        solvable[i] for i in seed42_order(len(solvable))[:300]]


def test_subset_order_file_is_the_seed42_permutation_of_solvable_rows() -> None:
    sheet = shared_data_path("macgyver", "problem_solution_pair.csv")
    order = shared_data_path("creativity_eval", "macgyver_subset_order_seed42.csv")
    with order.open(encoding="utf-8", newline="") as f:
        documented = [row["ID"] for row in csv.DictReader(f)]
    solvable = load_macgyver_table(sheet)
    assert len(solvable) == len(documented) == 1306
    assert [solvable[i].id for i in seed42_order(len(solvable))] == documented


def test_paper300_from_xlsx_matches_csv() -> None:
    pytest.importorskip("openpyxl")
    sheet = shared_data_path("macgyver", "problem_solution_pair.xlsx")
    assert [
        p.id for p in load_problems("macgyver", str(sheet), subset="paper300")
    ] == _paper300_ids()


# --- MacGyver human labels (shared data, read in place) ------------------------------


def test_human_labels_from_benchmark_results() -> None:
    path = shared_data_path("macgyver", "benchmark_results.json")
    raw = json.loads(path.read_text(encoding="utf-8"))
    items = [(pid, i, item) for pid, lst in raw.items() for i, item in enumerate(lst)]
    labels = load_human_labels(path)
    # Every item with an annotation becomes one label; the rest are listed as unannotated.
    assert len(labels.labels) + len(labels.unannotated) == len(items)
    missing = [(pid, i, item["model"]) for pid, i, item in items if not item.get("annotation")]
    assert labels.unannotated == missing == [("924", 3, "Prolific")]  # the README's one item
    for label in labels.labels:
        assert label.correct == label.annotation.startswith("correct_")
        assert raw[label.problem_id][label.index]["solution"] == label.solution
    # README counts: correct_* = 1385 + 1020 + 421, wrong_* = 783 + 729 + 432.
    assert sum(x.correct for x in labels.labels) == 2826
    assert sum(not x.correct for x in labels.labels) == 1944
    assert len({x.key for x in labels.labels}) == len(labels.labels)


def test_human_labels_attach_problem_text() -> None:
    sheet = shared_data_path("macgyver", "problem_solution_pair.csv")
    path = shared_data_path("macgyver", "benchmark_results.json")
    problems = load_macgyver_table(sheet, solvable_only=False)
    labels = load_human_labels(path, problems=problems).labels
    by_id = {p.id: p for p in problems}
    assert all(x.problem == by_id[x.problem_id].fields["problem"] for x in labels)
    assert {x.problem_solvable for x in labels} == {True, False}
    with pytest.raises(CrevalError, match="not among the problems"):
        load_human_labels(path, problems=problems[:10])


def test_human_label_errors_and_scoring() -> None:
    with pytest.raises(CrevalError, match="unknown annotation 'right'"):
        parse_human_labels({"1": [{"model": "m", "solution": "s", "annotation": "right"}]}, "f")
    with pytest.raises(CrevalError, match="missing text field"):
        parse_human_labels({"1": [{"model": "m", "annotation": "correct_efficient"}]}, "f")
    with pytest.raises(CrevalError, match="does not exist"):
        load_human_labels("/nonexistent/benchmark_results.json")
    # Humans: T T F F T; judge: T F F T (no verdict for the last).
    truth = [True, True, False, False, True]
    labels = [HumanLabel("9", i, "m", "s", "a", c) for i, c in enumerate(truth)]
    verdicts = {"9:0": True, "9:1": False, "9:2": False, "9:3": True}
    result = score_against_labels(labels, verdicts)
    assert (result.n, result.missing, result.accuracy) == (4, 1, 0.5)
    assert (result.true_positive, result.false_negative, result.true_negative,
            result.false_positive) == (1, 1, 1, 1)  # fmt: skip
    assert result.kappa.kappa == pytest.approx(0.0)  # p_o = 1/2 = p_e
    with pytest.raises(CrevalError, match="not labels"):
        score_against_labels(labels, {"9:7": True})
