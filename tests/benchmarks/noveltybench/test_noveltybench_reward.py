"""``--quality reward``: a tiny reward model built from a config (no download) rates each
answer through its chat template; the run's ratings and utility equal the model's own
forward pass mapped by the paper's thresholds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from creval.metrics.noveltybench import reward_to_rating, utility
from tests._cli import creval
from tests._servers import ChatServer

pytest.importorskip("transformers")

TEMPLATE = ("{% for m in messages %}{{ m['role'] }} {{ m['content'] }} {% endfor %}")


def tiny_reward_model(path: Path) -> Path:
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    from tests.nli.tiny_nli import build_tokenizer

    tokenizer = build_tokenizer()
    tokenizer.chat_template = TEMPLATE
    torch.manual_seed(0)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=32, max_position_embeddings=64,
                        initializer_range=3.0, num_labels=1, pad_token_id=tokenizer.pad_token_id)
    BertForSequenceClassification(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def reply(body: dict[str, Any]) -> tuple[int, str]:
    text = body["messages"][-1]["content"]
    if "Answer A:" in text:
        return 200, "different"
    return 200, ["a cat sleeps on the warm mat", "the dog runs in the park",
                 "boil the water with the kettle"][body["seed"] % 3]


def test_reward_ratings_are_the_models_own(tmp_path: Path) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model_dir = tiny_reward_model(tmp_path / "rm")
    server = ChatServer(reply=reply)
    try:
        done = creval("run", "noveltybench", "--model", "openai:m", "--base-url", server.url,
                      "--api-key", "x", "--quality", "reward", "--reward-model", str(model_dir),
                      "--k", "3", "--limit", "1", "--no-progress", "--out", str(tmp_path / "r"))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr + done.stdout
    [row] = json.loads((tmp_path / "r" / "scores.json").read_text())["table"]
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    expected = []
    for answer in ["a cat sleeps on the warm mat", "the dog runs in the park",
                   "boil the water with the kettle"]:
        ids = tok.apply_chat_template([{"role": "user", "content": _prompt()},
                                       {"role": "assistant", "content": answer}],
                                      tokenize=True, return_tensors="pt", return_dict=True)
        with torch.no_grad():
            expected.append(float(model(**ids).logits[0, 0]))
    assert row["rewards"] == pytest.approx(expected, abs=1e-5)
    ratings = [reward_to_rating(x) for x in expected]
    assert row["partition"] == [0, 1, 2]
    assert row["utility"] == pytest.approx(utility([0, 1, 2], ratings))


def _prompt() -> str:
    from creval.benchmarks.noveltybench.data import load_prompts

    return load_prompts(None, None)[0].prompt
