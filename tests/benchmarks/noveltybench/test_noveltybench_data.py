"""NoveltyBench's prompts: the starter set, the paper's files, the pinned fetch, bad input."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.noveltybench.data import FETCHED_SHA256, load_prompts
from creval.errors import CrevalError
from tests._cli import creval


def test_starter_and_paper_subsets() -> None:
    starter = load_prompts(None, None)
    assert len(starter) == 6 and {p.subset for p in starter} == {"starter"}
    data = str(shared_data_path("noveltybench", "data"))
    curated = load_prompts(data, "curated")
    assert len(curated) == 100 and all(len(p.prompt_paraphrases) == 10 for p in curated)
    assert curated[0].category == "Creativity"
    both = load_prompts(data, None)
    assert len(both) == 1100 and both[-1].subset == "wildchat" and both[-1].category == "WildChat"


def test_pinned_digests_are_the_staged_files() -> None:
    root = shared_data_path("noveltybench")
    for local, prefix in FETCHED_SHA256.items():
        assert hashlib.sha256((root / local).read_bytes()).hexdigest().startswith(prefix), local


def test_paper_subset_without_data_says_what_to_pass() -> None:
    with pytest.raises(CrevalError, match="--subset curated needs the paper's prompts"):
        load_prompts(None, "curated")


@pytest.mark.parametrize(("args", "said"), [
    (["--subset", "wildchat"], "creval data fetch noveltybench"),
    (["--sampling", "paraphrase"], "has 3 paraphrases"),
    (["--partitioner", "bert"], "--partitioner 'bert'"),
])
def test_bad_options_exit_2_with_what_to_fix(args: list[str], said: str, tmp_path: Path) -> None:
    done = creval("run", "noveltybench", "--model", "local", "--no-progress",
                  "--out", str(tmp_path / "x"), *args)
    assert done.returncode == 2
    assert said in done.stderr + done.stdout
    assert "Traceback" not in done.stderr + done.stdout
