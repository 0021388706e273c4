"""creval inside Inspect AI, offline: tasks and scorers run by Inspect, and Inspect's providers
run by creval. The model is Inspect's own ``mockllm`` provider (scripted answers), creval's
``local`` model through the ``creval/`` model API, or a real ``llama_cpp.server``; expected
numbers come from creval's own scoring path on the same answers."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli import creval

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import EvalLog, read_eval_log  # noqa: E402
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model  # noqa: E402

from creval.benchmarks.base import get_benchmark  # noqa: E402
from creval.integrations.inspect import tasks  # noqa: E402
from creval.records import Record  # noqa: E402

from ._tiktoken import fill_cache  # noqa: E402

INSPECT = [str(Path(sys.executable).parent / "inspect")]
Script = Callable[[list[Any], list[Any], Any, GenerateConfig], ModelOutput]

DAT_GOOD = "1. cat\n2. volcano\n3. spoon\n4. democracy\n5. glacier\n6. violin\n7. tax\n8. pepper\n9. comet\n10. sock"
DAT_OTHER = "1. dog\n2. piano\n3. ocean\n4. shoe\n5. fire\n6. book\n7. moon\n8. tree\n9. salt\n10. bridge"


@pytest.fixture(scope="module")
def offline_tiktoken(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """TIKTOKEN_CACHE_DIR holding o200k_base, which mockllm's default answers need."""
    cache = tmp_path_factory.mktemp("tiktoken")
    fill_cache(cache)
    before = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    yield str(cache)
    if before is None:
        os.environ.pop("TIKTOKEN_CACHE_DIR", None)
    else:
        os.environ["TIKTOKEN_CACHE_DIR"] = before


def output(text: str) -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm", content=text)
    out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return out


def scripted(reply: Callable[[str, GenerateConfig], str], seen: list[tuple[str, GenerateConfig]]
             ) -> Any:
    """Inspect's mockllm answering ``reply(last message text, config)``; calls kept in ``seen``."""

    def answer(messages: list[Any], tools: list[Any], choice: Any, config: GenerateConfig
               ) -> ModelOutput:
        text = messages[-1].text
        seen.append((text, config))
        return output(reply(text, config))

    return get_model("mockllm/model", custom_outputs=answer)


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.status == "success", log.error
    assert log.results is not None
    (score,) = log.results.scores
    return {name: m.value for name, m in score.metrics.items()}


def headline_subset(headline: dict[str, Any], got: dict[str, float]) -> None:
    """Every number of creval's headline is the Inspect metric of the same name."""
    numbers = {k: v for k, v in headline.items() if v is not None}
    assert set(numbers) == set(got), (numbers, got)
    for name, value in numbers.items():
        assert got[name] == pytest.approx(value), name


# -- Inspect runs creval's tasks -----------------------------------------------------------
def test_dat_task_asks_creval_prompt_and_scores_like_creval(tmp_path: Path) -> None:
    from creval.benchmarks.dat.scoring import DATScorer

    seen: list[tuple[str, GenerateConfig]] = []
    answers = {1: DAT_GOOD, 2: "Default output", 3: DAT_OTHER}
    model = scripted(lambda text, config: answers[config.seed or 0], seen)
    (log,) = inspect_eval(tasks.dat(trials=5, seed=1, max_tokens=99), model=model, limit=3,
                          display="none", log_dir=str(tmp_path))
    got = metrics(log)

    bench = get_benchmark("dat")
    options = bench.parse_options({"trials": 5, "seed": 1, "max_tokens": 99})
    prompt = bench.prompt(options)  # type: ignore[attr-defined]
    assert sorted(config.seed for _, config in seen) == [1, 2, 3]  # seed + trial, as the runner
    assert {text for text, _ in seen} == {prompt}
    assert {(c.temperature, c.max_tokens) for _, c in seen} == {(1.0, 99)}
    expected = DATScorer.from_options(options).score_answers(  # type: ignore[arg-type]
        [(f"trial-{i:05d}", answers[i + 1]) for i in range(3)]).headline
    assert expected["valid_trials"] == 2 and expected["invalid_trials"] == 1
    headline_subset(expected, got)
    assert log.samples is not None
    assert sorted(str(s.id) for s in log.samples) == ["trial-00000", "trial-00001", "trial-00002"]


def test_ttct_task_judge_from_grader_role_aggregated_like_creval(tmp_path: Path) -> None:
    from creval.benchmarks.common import format_prompt, load_prompt
    from creval.benchmarks.ttct.scoring import score_rubric_records

    def answer(question: str, config: GenerateConfig) -> str:
        return f"idea {config.seed} for {question[:20]}"

    def verdict(prompt: str, config: GenerateConfig) -> str:
        assert config.temperature == 0.0 and config.seed == 0 and config.max_tokens == 64
        if "idea 1 for" in prompt and "colander" in prompt:
            return "I liked it a lot."  # does not parse: a recorded failure, never a score
        seed = int(prompt.split("idea ")[1].split(" ")[0])
        return (f"Fluency: {2 + seed}\nFlexibility: 3\nOriginality: {5 - seed}\n"
                f"Elaboration: {1 + len(prompt) % 3}")

    targets: list[tuple[str, GenerateConfig]] = []
    judged: list[tuple[str, GenerateConfig]] = []
    (log,) = inspect_eval(
        tasks.ttct(limit=2, answers=2), model=scripted(answer, targets), display="none",
        model_roles={"grader": scripted(verdict, judged)}, log_dir=str(tmp_path),
    )
    got = metrics(log)
    assert len(targets) == 4 and len(judged) == 4

    bench = get_benchmark("ttct")
    template = load_prompt("ttct_judge_en")
    assert log.samples is not None
    records: dict[str, dict[str, Any]] = {}
    for sample in sorted(log.samples, key=lambda s: str(s.id)):
        question = sample.input[-1].text  # type: ignore[union-attr]
        text = sample.output.completion
        prompt = format_prompt(template, "ttct_judge_en", question=question, answer=text)
        assert prompt in {p for p, _ in judged}  # creval's rubric prompt, word for word
        (_, reply), = [(p, verdict(p, GenerateConfig(temperature=0.0, seed=0, max_tokens=64)))
                       for p, _ in judged if p == prompt]
        key = sample.metadata["creval"]["key"]
        unit = {"question_id": sample.metadata["question_id"], "task": sample.metadata["task"]}
        entry = records.setdefault(key, {"unit": unit, "answers": [], "judgements": []})
        entry["answers"].append(text)
        entry["judgements"].append(reply)
    expected = score_rubric_records(
        [Record(key=k, status="ok", unit=v["unit"],
                output={"answers": v["answers"], "judgements": v["judgements"]})
         for k, v in records.items()], lang="en", parser="strict").headline
    assert expected["parsed"] == 3 and expected["parse_failures"] == 1
    assert bench.name == "ttct"
    headline_subset(expected, got)


def test_jcq_task_parses_japanese_labels_and_counts_epochs_as_answers(tmp_path: Path) -> None:
    def verdict(prompt: str, config: GenerateConfig) -> str:
        return "流暢性: 4\n柔軟性: 3\n独創性: 5\n精緻性: 2" if "回答A" in prompt else "よい"

    answers = iter(["回答A", "回答B", "回答A", "回答A"])
    (log,) = inspect_eval(
        tasks.jcq(limit=1, answers=2), model=scripted(lambda text, config: next(answers), []),
        epochs=2, model_roles={"grader": scripted(verdict, [])}, display="none",
        log_dir=str(tmp_path), max_samples=1,
    )
    got = metrics(log)
    # two answers x two epochs = answer indices 0..3 of one question; one judgement unparsed
    assert got["parsed"] == 3 and got["parse_failures"] == 1
    assert got["fluency"] == 4 and got["originality"] == 5 and got["mean"] == 3.5
    assert got["fluency_std"] == 0


@pytest.mark.slow
def test_sat_task_distances_like_creval(tmp_path: Path) -> None:
    """Loads the packaged MiniLM (sentence-transformers): ~30 s."""
    def rewrite(text: str, config: GenerateConfig) -> str:
        return "" if "tortoise" in text.lower() else f"A city story told on phones, take {config.seed}."

    (log,) = inspect_eval(tasks.sat(), model=scripted(rewrite, []), limit=3, display="none",
                          log_dir=str(tmp_path))
    got = metrics(log)
    assert log.samples is not None
    records = [Record(key=str(s.id), status="ok", output={"text": s.output.completion},
                      unit={k: s.metadata[k] for k in ("id", "title", "story_digest")})
               for s in log.samples]
    bench = get_benchmark("sat")
    expected = bench.score(records, bench.parse_options({"limit": 3})).headline
    assert expected["empty_rewrites"] == 1 and expected["stories"] == 2
    headline_subset(expected, got)


def test_neocoder_state0_pass_rate_from_creval_sandbox(tmp_path: Path) -> None:
    from creval.benchmarks.neocoder.benchmark import starter_dir
    from creval.benchmarks.neocoder.data import load_neocoder
    from creval.benchmarks.neocoder.scoring import ScoreSettings, score_items

    dataset = load_neocoder(starter_dir())
    assert dataset.human_solutions is not None
    right = "```python\n" + dataset.human_solutions["CRV01A"][0] + "\n```"
    wrong = "```python\nprint(0)\n```"
    seen: list[tuple[str, GenerateConfig]] = []
    model = scripted(lambda text, config: right if "Even Pair Sums" in text else wrong, seen)
    (log,) = inspect_eval(tasks.neocoder(), model=model, display="none", limit=2,
                          log_dir=str(tmp_path))
    got = metrics(log)
    assert got == {"pass@1@0": 0.5, "problems": 2.0}
    assert log.samples is not None
    items = [{**{k: s.metadata[k] for k in ("problem_id", "round", "t", "constraints")},
              "answers": [s.output.completion]} for s in log.samples]
    expected = score_items(dataset, items, ScoreSettings(detector="static")).headline
    assert expected["pass@1@0"] == got["pass@1@0"]
    verdicts = {str(s.id): s.scores["neocoder_scorer"].answer for s in log.samples}  # type: ignore[index]
    assert verdicts["CRV01A-r0"] == "pass"


def test_neocoder_task_refuses_other_states() -> None:
    from creval.errors import CrevalError
    from creval.integrations.inspect import neocoder

    with pytest.raises(CrevalError, match="state 0"):
        neocoder(states="1")


def test_bad_option_names_the_option() -> None:
    from creval.errors import CrevalError
    from creval.integrations.inspect import dat

    with pytest.raises(CrevalError, match="--trails is not an option of dat"):
        dat(trails=3)


def test_inspect_cli_runs_creval_dat_with_mockllm(tmp_path: Path, offline_tiktoken: str) -> None:
    """``inspect eval creval/dat --model mockllm/model --limit 3``: found by the entry point.

    (In-process tests pass Task objects: with ``src/`` on ``sys.path``, as pytest's doctest
    collection puts it, Inspect reads ``src/creval.egg-info``, which is not marked editable,
    and registers creval's tasks without the ``creval/`` prefix.)"""
    done = subprocess.run(
        [*INSPECT, "eval", "creval/dat", "--model", "mockllm/model", "--limit", "3",
         "--log-dir", str(tmp_path), "--display", "none", "--log-format", "json"],
        capture_output=True, text=True, timeout=300, env={**os.environ},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = tmp_path.glob("*.json")
    log = read_eval_log(str(path))
    got = metrics(log)
    # mockllm's default answer is one sentence, not a list of nouns: every trial is invalid
    assert got == {"valid_trials": 0.0, "invalid_trials": 3.0, "unique_words": 0.0}
    assert log.eval.task == "creval/dat"


# -- creval runs Inspect's providers -------------------------------------------------------
def test_inspect_backend_sends_each_sample_seeded(offline_tiktoken: str) -> None:
    from creval.models import GenerateRequest, ModelOptions
    from creval.models.inspect_backend import InspectModel

    model = InspectModel("mockllm/model", ModelOptions())
    request = GenerateRequest.chat("hi", system="be brief", n=2, seed=7, max_tokens=33,
                                   temperature=0.3)
    completions = asyncio.run(model.generate(request))
    assert [c.text for c in completions] == ["Default output from mockllm/model"] * 2
    assert completions[0].usage.input_tokens > 0 and completions[1].usage.input_tokens == 0
    assert model.capabilities.n is False and model.capabilities.logprobs is False
    assert model.identity() == {"provider": "inspect", "model": "mockllm/model", "base_url": None}


def test_inspect_backend_errors_are_creval_errors() -> None:
    """Through Inspect's OpenAI-compatible provider: a 429 is transient (creval's runner retries
    it), a 400 is final, a closed port is an unreachable endpoint, a 200 is an answer."""
    from _servers import ChatServer, free_port

    from creval.models import (
        EndpointUnreachable,
        GenerateRequest,
        ModelError,
        ModelOptions,
        TransientModelError,
    )
    from creval.models.inspect_backend import InspectModel

    # the provider's SDK may retry a 429 itself before giving up: give it three
    server = ChatServer(script=[429, 429, 429, 400])
    try:
        model = InspectModel("openai-api/local/echo", ModelOptions(base_url=server.url,
                                                                   api_key="none"))
        request = GenerateRequest.chat("hi", seed=1)
        transient = 0
        while True:
            try:
                asyncio.run(model.generate(request))
            except TransientModelError:
                transient += 1
                continue
            except ModelError as exc:
                assert "BadRequestError" in str(exc)  # the 400: final, not retried
                break
        assert transient >= 1
        (completion,) = asyncio.run(model.generate(request))
        assert completion.text == "echo: hi" and completion.usage.input_tokens == 3
        assert server.bodies[-1]["seed"] == 1
    finally:
        server.close()
    down = InspectModel("openai-api/local/echo",
                        ModelOptions(base_url=f"http://127.0.0.1:{free_port()}/v1", api_key="x"))
    with pytest.raises(EndpointUnreachable):
        asyncio.run(down.generate(GenerateRequest.chat("hi")))


def test_creval_run_dat_with_inspect_mockllm(tmp_path: Path, offline_tiktoken: str) -> None:
    out = tmp_path / "run"
    done = creval("run", "dat", "--model", "inspect:mockllm/model", "--trials", "2",
                  "--out", str(out), "--no-progress", "--allow-no-score")
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert [r["output"]["text"] for r in records] == ["Default output from mockllm/model"] * 2
    scores = json.loads((out / "scores.json").read_text())
    headline = scores["headline"]
    assert headline["invalid_trials"] == 2 and headline["valid_trials"] == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert "inspect:mockllm/model" in json.dumps(manifest)


def test_inspect_spec_without_provider_is_an_error() -> None:
    from creval.errors import CrevalError
    from creval.models import get_model as creval_model

    with pytest.raises(CrevalError, match="PROVIDER/MODEL"):
        creval_model("inspect:gpt-4o")


# -- with creval's local model -------------------------------------------------------------
@pytest.mark.slow
def test_inspect_cli_dat_on_creval_local_model(tmp_path: Path) -> None:
    """``inspect eval creval/dat --model creval/local``: the packaged SmolLM2 through Inspect."""
    done = subprocess.run(
        [*INSPECT, "eval", "creval/dat", "--model", "creval/local", "--limit", "2",
         "-T", "max_tokens=60", "-M", "threads=2", "--log-dir", str(tmp_path),
         "--display", "none", "--log-format", "json"],
        capture_output=True, text=True, timeout=600, env={**os.environ},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (path,) = tmp_path.glob("*.json")
    log = read_eval_log(str(path))
    got = metrics(log)
    assert got["valid_trials"] + got["invalid_trials"] == 2
    assert log.samples is not None and all(s.output.completion.strip() for s in log.samples)
    assert log.stats.model_usage["creval/local"].output_tokens > 0


@pytest.mark.slow
def test_creval_run_dat_with_inspect_openai_on_llama_server(tmp_path: Path, llama_server: str
                                                             ) -> None:
    """creval -> Inspect's OpenAI-compatible provider (``openai-api``) -> a real llama.cpp server."""
    out = tmp_path / "run"
    done = creval("run", "dat", "--model", "inspect:openai-api/llama/smollm2",
                  "--base-url", llama_server,
                  "--api-key", "none", "--trials", "2", "--max-tokens", "60", "--out", str(out),
                  "--no-progress", "--allow-no-score")
    assert done.returncode == 0, done.stderr[-3000:]
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["status"] == "ok" for r in records)
    assert all(r["output"]["text"].strip() for r in records)
