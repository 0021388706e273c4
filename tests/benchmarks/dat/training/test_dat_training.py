"""The DAT reward and the SFT/DPO/GRPO data builder, on scripted runs and on the packaged
model's recorded outputs (``packaged_dat/``: 16 answers of the packaged SmolLM2-135M to the
English DAT prompt, ``creval run dat --model local --trials 16 --temperature 0.5
--max-tokens 80``), replayed with ``replay:``."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from _cli import creval

from creval.benchmarks.dat.reward import DATReward
from creval.benchmarks.dat.training_data import dat_answers
from creval.embed import get_word_vectors
from creval.reader import read_run

PACKAGED = Path(__file__).parent / "packaged_dat"
ANSWER = "1. cat\n2. galaxy\n3. spoon\n4. democracy\n5. volcano\n6. violin\n7. tractor\n8. oxygen\n9. pillow\n10. shark"


@pytest.fixture(scope="module")
def packaged_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged model's recorded answers, scored again through ``replay:``."""
    out = tmp_path_factory.mktemp("packaged") / "dat"
    done = creval("run", "dat", "--model", f"replay:{PACKAGED}", "--trials", "16", "--temperature", "0.5",
                  "--max-tokens", "80", "--no-progress", "--allow-no-score", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def test_reward_is_ten_times_the_mean_cosine_distance_of_the_first_seven_words() -> None:
    glove = get_word_vectors("glove-6b-50d")
    vectors = [np.asarray(glove.vector(w), dtype=float) for w in ANSWER.split()[1::2][:7]]
    distances = [1 - a @ b / np.linalg.norm(a) / np.linalg.norm(b) for a, b in itertools.combinations(vectors, 2)]
    assert len(distances) == 21
    reward = DATReward.from_options(lang="en")
    [got] = reward(prompts=["p"], completions=[[{"role": "assistant", "content": ANSWER}]])
    assert got == pytest.approx(10 * float(np.mean(distances)), abs=1e-5)
    # the same answer again, and an answer with too few words, earn nothing
    assert reward(completions=[ANSWER.replace("\n", "\n "), "1. cat\n2. dog"]) == [0.0, 0.0]
    assert DATReward.from_options(lang="en", zero_repeats=False)(completions=[ANSWER, ANSWER]) == [got, got]


def test_reward_agrees_with_the_runs_own_scores(dat_runs: list[Path]) -> None:
    scores = read_run(dat_runs[0]).scores
    assert scores is not None
    reward = DATReward.from_run(dat_runs[0], zero_repeats=False)
    trials = {t["key"]: t["score"] for t in scores.model_dump()["trials"]}
    for record in read_run(dat_runs[0]).records:
        expected = 0.0 if trials[record.key] is None else trials[record.key] / 10  # olson: x100
        assert reward(completions=[record.output["text"]]) == [pytest.approx(expected, abs=1e-6)]


def test_packaged_model_answers_are_scored_like_the_benchmark_scores_them(packaged_run: Path) -> None:
    scores = read_run(packaged_run).scores
    assert scores is not None and scores.headline["invalid_trials"] + scores.headline["valid_trials"] == 16
    answers = dat_answers([packaged_run])
    assert len(answers) == 16
    assert int(answers["distance"].notna().sum()) == scores.headline["valid_trials"]
    reward = DATReward.from_run(packaged_run, zero_repeats=False)
    assert sum(r > 0 for r in reward(completions=answers["answer"].tolist())) == scores.headline["valid_trials"]


def test_sft_keeps_the_best_eighth_and_dpo_pairs_best_with_worst(
        dat_runs: list[Path], packaged_run: Path, tmp_path: Path) -> None:
    runs = [str(r) for r in dat_runs]
    done = creval("train", "dat-data", *runs, "--out", str(tmp_path / "sft"))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "sft" / "train.jsonl").read_text().splitlines()]
    answers = dat_answers(runs)
    best = answers.dropna(subset=["distance"]).sort_values("distance", ascending=False)
    assert len(rows) == 2  # ceil(16 answers / 8)
    assert [r["completion"][0]["content"] for r in rows] == best["answer"].head(2).tolist()
    assert rows[0]["prompt"][0]["role"] == "user" and "nouns" in rows[0]["prompt"][0]["content"]

    # best scripted answers as chosen, the packaged model's invalid answers (score 0) as rejected
    done = creval("train", "dat-data", runs[0], str(packaged_run), "--out", str(tmp_path / "dpo"),
                  "--format", "dpo", "--top", "3")
    assert done.returncode == 0, done.stderr
    pairs = [json.loads(line) for line in (tmp_path / "dpo" / "train.jsonl").read_text().splitlines()]
    packaged = set(dat_answers([packaged_run])["answer"])
    assert len(pairs) == 3
    assert all(p["rejected"][0]["content"] in packaged for p in pairs)
    assert pairs[0]["chosen"][0]["content"] == dat_answers(runs[:1]).sort_values(
        "score", ascending=False, kind="stable")["answer"].iloc[0]
    summary = json.loads((tmp_path / "dpo" / "dat-data.json").read_text())
    assert summary["format"] == "dpo" and summary["answers"] == 8 + 16


def test_bad_input_says_what_to_fix(packaged_run: Path, tmp_path: Path) -> None:
    done = creval("train", "dat-data", str(packaged_run), "--out", str(tmp_path / "x"))
    assert done.returncode == 2 and "No sft rows" in done.stderr
    done = creval("train", "dat-data", str(packaged_run), "--out", str(tmp_path / "x"), "--format", "ppo")
    assert done.returncode == 2 and "--format takes one of sft, dpo, grpo" in done.stderr
