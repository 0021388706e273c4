"""TRL's own trainers use the DAT reward (GRPO) and load the built SFT and DPO data, one
step each on a tiny model built from a config, on CPU."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from creval.benchmarks.dat.reward import DATReward
from creval.benchmarks.dat.training_data import write_training_data

from ._tiny import tiny_model_and_tokenizer

trl = pytest.importorskip("trl", reason="TRL is not installed (pip install 'creval[train]')")
datasets = pytest.importorskip("datasets", reason="datasets is not installed (pip install 'creval[train]')")


def _common(tmp_path: Path) -> dict[str, Any]:
    return {"output_dir": str(tmp_path / "out"), "max_steps": 1, "per_device_train_batch_size": 2,
            "report_to": "none", "save_strategy": "no", "logging_steps": 1, "use_cpu": True,
            "learning_rate": 1e-3}


def _words(rows: list[dict[str, Any]]) -> list[str]:
    return sorted({w for row in rows for w in re.findall(r"\w+", json.dumps(row))})


def _load(path: Path) -> Any:
    return datasets.load_dataset("json", data_files=str(path / "train.jsonl"), split="train")


def test_grpo_trainer_calls_the_dat_reward(dat_runs: list[Path], tmp_path: Path) -> None:
    summary = write_training_data(dat_runs[:1], tmp_path / "grpo", "grpo")
    dataset = _load(tmp_path / "grpo").select(range(2))
    model, tokenizer = tiny_model_and_tokenizer(_words(dataset.to_list()))
    reward = DATReward.from_options(lang="en")
    config = trl.GRPOConfig(**_common(tmp_path), num_generations=2, max_completion_length=24,
                            temperature=1.0)
    trainer = trl.GRPOTrainer(model=model, reward_funcs=reward, args=config, train_dataset=dataset,
                              processing_class=tokenizer)
    trainer.train()
    assert summary["rows"] >= 2
    assert reward.seen, "the trainer never called the reward"
    [logged] = [e for e in trainer.state.log_history if "rewards/dat_reward/mean" in e]
    assert logged["rewards/dat_reward/mean"] >= 0.0 and "dat_valid_share" in logged


@pytest.mark.parametrize("fmt", ["sft", "dpo"])
def test_sft_and_dpo_trainers_load_the_data_and_step(fmt: str, dat_runs: list[Path], tmp_path: Path) -> None:
    write_training_data(dat_runs, tmp_path / fmt, fmt, top=2)  # type: ignore[arg-type]
    dataset = _load(tmp_path / fmt)
    assert len(dataset) >= 2
    model, tokenizer = tiny_model_and_tokenizer(_words(dataset.to_list()))
    if fmt == "sft":
        trainer = trl.SFTTrainer(model=model, args=trl.SFTConfig(**_common(tmp_path), max_length=256),
                                 train_dataset=dataset, processing_class=tokenizer)
    else:
        import copy

        trainer = trl.DPOTrainer(model=model, ref_model=copy.deepcopy(model),
                                 args=trl.DPOConfig(**_common(tmp_path), max_length=256),
                                 train_dataset=dataset, processing_class=tokenizer)
    trainer.train()
    [logged] = [e for e in trainer.state.log_history if "loss" in e]
    assert logged["loss"] == logged["loss"]  # a number, not NaN
