"""``creval references check PATH``: runs a user makes, held against the published values.

Each case of issue 26's audit is a small run against loopback endpoints (which report the
model id they were asked for, as OpenAI-compatible servers do) on the staged upstream files
(``../shared/data``, read in place or copied to a temporary folder): an option that changes
the number, a judge alias, data by name, invalid DAT trials and semantic entropy without
log-probabilities must each be said; the paper's own set-up must leave nothing but the item
count (a full run of it is comparable).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer
from tests_paths import shared_data_path

from creval.benchmarks.neocoder.published import NEOCODER_SHA256

KEY = {"OPENAI_API_KEY": "sk-test", "HF_HUB_OFFLINE": "1"}
CAPPED = [False]  # the DAT server answers trial 0 invalidly while set
NOUNS = ["冷蔵庫", "砂糖", "地図", "傘", "鉛筆", "時計", "山", "猫", "音楽", "椅子", "川", "机",
         "電話", "雲", "魚", "靴", "窓", "花", "鍵", "本"]


def checks(path: Path) -> list[dict[str, Any]]:
    done = creval("references", "check", str(path), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def reasons_of(found: list[dict[str, Any]], protocol: str) -> set[str]:
    mine = [c for c in found if c["protocol"] == protocol]
    assert mine, f"no published value of protocol {protocol} was checked"
    return {w for c in mine for w in c["reasons"]}


def run(*args: str) -> None:
    done = creval("run", *args, "--no-progress", env=KEY)
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: some units failed


def test_jcq_every_judge_and_answer_option_and_the_judge_alias_are_said(tmp_path: Path) -> None:
    questions = shared_data_path("jcq", "test.jsonl")
    prompt = tmp_path / "mine.txt"
    prompt.write_text("Rate the answer.\n{question}\n{answer}\n", encoding="utf-8")
    server = ChatServer(reply=lambda body: (200, "流暢性: 3\n柔軟性: 3\n独創性: 3\n精緻性: 3"))
    try:
        run("jcq", "--model", "openai:w", "--base-url", server.url, "--preset", "paper",
            "--judge", "openai:gpt-4o", "--judge-base-url", server.url, "--questions",
            str(questions), "--limit", "2", "--judge-prompt-file", str(prompt),
            "--structured-judge", "true", "--max-tokens", "64", "--parser", "strict",
            "--out", str(tmp_path / "run"))
    finally:
        server.close()
    found = checks(tmp_path / "run")
    assert found and not any(c["comparable"] for c in found)
    said = reasons_of(found, "jcq-released-judgements")
    for reason in (f"judge_prompt_file={prompt}, the paper used null or sha256:",
                   "max_tokens=64, the paper used 512", "parser=strict, the paper used upstream",
                   "judge answered as gpt-4o (spec openai:gpt-4o), the paper's was gpt-4o-2024-08-06"):
        assert any(w.startswith(reason) for w in said), (reason, said)
    # --structured-judge true on an endpoint that cannot constrain: compared by its effect
    assert not any(w.startswith("structured_judge") for w in said), said
    assert any(n.startswith("structured_judge=true was asked but not applied") for n in found[0]["notes"])
    assert not any(w.startswith("the data") for w in said)  # the staged upstream file is the paper's
    assert ("2 items behind the value (questions with a parsed judgement; 10 of 10 judgements parsed; "
            "2 of 700 items of the paper's data), the paper measured 700") in said, said
    text = creval("references", "check", str(tmp_path / "run")).stdout
    assert "jcq-released-judgements (seed 004): not comparable" in text
    assert "- max_tokens=64, the paper used 512" in text


def test_dat_ja_options_invalid_trials_and_units(tmp_path: Path) -> None:
    pytest.importorskip("sudachipy", reason="Japanese noun checking needs the ja extra")

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        seed = int(body.get("seed") or 0)
        if CAPPED[0] and seed % 4 == 0:
            return 200, "cat dog"  # trial 0 of the 4-trial run (samples 0, 4, 8, ...): never valid
        words = [NOUNS[(seed * 7 + i * 3) % len(NOUNS)] for i in range(10)]
        words = list(dict.fromkeys(words)) + [w for w in NOUNS if w not in words]
        if "response_format" in body:
            return 200, json.dumps(words[:5], ensure_ascii=False)
        return 200, "\n".join(f"{i}. {w}" for i, w in enumerate(words[:10], start=1))

    prompt = tmp_path / "dat.txt"
    prompt.write_text("名詞を{words}個書いてください。\n", encoding="utf-8")
    server = ChatServer(reply=reply)
    try:
        CAPPED[0] = True
        run("dat", "--lang", "ja", "--model", "openai:w", "--base-url", server.url,
            "--trials", "4", "--out", str(tmp_path / "cap"))
        CAPPED[0] = False
        run("dat", "--lang", "ja", "--model", "openai:w", "--base-url", server.url,
            "--trials", "2", "--prompt-file", str(prompt), "--words", "5", "--attempts", "1",
            "--constrain-answers", "true", "--out", str(tmp_path / "mine"))
        done = creval("profile", "--model", "openai:w", "--base-url", server.url, "--lang", "ja",
                      "--only", "dat", "--size", "smoke", "--set", "dat.trials=4", "--no-progress", "--out",
                      str(tmp_path / "profile"), env=KEY)
    finally:
        server.close()
    # the trial that reached the cap is invalid: 3 trials behind the value, not 4
    said = reasons_of(checks(tmp_path / "cap"), "dat-ja")
    assert "3 items behind the value, the paper measured 100" in said, said
    said = reasons_of(checks(tmp_path / "mine"), "dat-ja")
    for reason in ("prompt_file=", "words=5, the paper used 10", "attempts=1, the paper used null or 10",
                   "constrain_answers=true, the paper used false"):
        assert any(w.startswith(reason) for w in said), (reason, said)
    # a Japanese DAT score is on 0-1: the items it needs come from the 0-1 gap (0.013)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads((tmp_path / "profile" / "profile.json").read_text())
    (m,) = [m for f in doc["families"] for m in f["measurements"] if m["key"] == "dat_mean"]
    assert m["value"] < 1
    if m["low"] is None:  # 4 trials: too few for an interval, so no items-needed figure either
        assert m["items_to_separate"] is None and "too few" in m["interval"]
    else:
        half = (m["high"] - m["low"]) / 2
        assert m["items_to_separate"] == max(1, math.ceil(m["n"] * (half / (0.013 / 2)) ** 2))


def _staged_neocoder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in NEOCODER_SHA256:
        shutil.copy(shared_data_path("neocoder", "NeoCoder", name), folder / name)
    return folder


def test_neocoder_reachable_with_fetched_data_and_its_options_and_a_named_folder_said(
    tmp_path: Path,
) -> None:
    fetched = _staged_neocoder(tmp_path / "data" / "neocoder")  # what `creval data fetch` writes
    from creval.benchmarks.neocoder.benchmark import starter_dir

    named = shutil.copytree(starter_dir(), tmp_path / "upstream")  # a folder called upstream
    program = "```python\nprint(input())\n```"
    server = ChatServer(reply=lambda body: (200, program if "python" in json.dumps(body).lower()
                                            and body["model"] == "w" else "[]"))
    prompt = tmp_path / "solve.txt"
    prompt.write_text("Solve it in Python.\n", encoding="utf-8")
    try:
        common = ["--model", "openai:w", "--base-url", server.url, "--judge-base-url",
                  server.url, "--limit", "1", "--states", "0", "--preset", "paper"]
        run("neocoder", *common, "--data", str(fetched), "--out", str(tmp_path / "paper"))
        run("neocoder", *common, "--data", str(named), "--prompt-file", str(prompt),
            "--divergent-empty", "exclude", "--judge-compat", "none", "--out", str(tmp_path / "mine"))
    finally:
        server.close()
    # the paper's data (by content), judge snapshot and options: only the item count is short
    said = reasons_of(checks(tmp_path / "paper"), "neocoder-direct")
    assert said == {"1 item behind the value (1 of 1063 items of the paper's data), the paper "
                    "measured 1063"}
    said = reasons_of(checks(tmp_path / "mine"), "neocoder-direct")
    for reason in ("the data: 1 of 1 items are not the paper's (", "prompt_file=",
                   "divergent_empty=exclude, the paper used zero",
                   "judge_compat=none, the paper used neocoder"):
        assert any(w.startswith(reason) for w in said), (reason, said)


def test_macgyver_semantic_entropy_options_and_solutions_without_log_probabilities(
    tmp_path: Path,
) -> None:
    sheet = shared_data_path("macgyver", "problem_solution_pair.xlsx")
    prompt = tmp_path / "step.txt"
    prompt.write_text("Problem: {problem}\nSteps so far: {steps}\nNext step {step} of {max_steps}:",
                      encoding="utf-8")
    steps = iter(range(10**6))
    server = ChatServer(reply=lambda body: (200, f"Use the rope, idea {next(steps) % 3}."))
    try:
        run("macgyver", "--model", "openai:w", "--base-url", server.url, "--source", str(sheet),
            "--subset", "paper300", "--limit", "1", "--n", "2", "--max-steps", "1",
            "--judges", "none", "--entailment", "embedding:0.95", "--logprob-source", "sampling",
            "--continuation", "highest_probability", "--single-candidate", "drop",
            "--prompt-file", str(prompt), "--out", str(tmp_path / "run"))
    finally:
        server.close()
    found = [c for c in checks(tmp_path / "run") if c["measure"] == "semantic_entropy"]
    said = reasons_of(found, "macgyver-se")
    for reason in ("logprob_source=sampling, the paper used model",
                   "continuation=highest_probability, the paper used greedy",
                   "single_candidate=drop, the paper used zero", "max_steps=1, the paper used 10",
                   "prompt_file=", "entailment=embedding:0.95, the paper used hf:"):
        assert any(w.startswith(reason) for w in said), (reason, said)
    # the endpoint gave no log-probabilities: no solution is behind the value
    assert ("0 items behind the value (1 of 1306 items of the paper's data), the paper "
            "measured 300") in said, said
    assert not any(w.startswith("the data") for w in said)  # the staged sheet is the paper's
