"""SFT, DPO and GRPO data from DAT runs (seed 004, sections 5.1.1-5.1.3).

Every answer of one or more ``creval run dat`` runs is scored again with its run's options
(the DAT mean cosine distance, unscaled; an invalid answer scores 0, as the paper's DPO
data has it) and the rows are written in TRL's conversational formats, which its trainers
load with ``datasets.load_dataset("json", data_files=...)``:

* ``sft``: the ``top`` best valid answers, ``{"prompt": [user], "completion": [assistant]}``
  (the paper: the top 16,384 of 131,072, one eighth, which is the default here);
* ``dpo``: per prompt, the ``top`` best answers as ``chosen`` paired with the ``top`` worst as
  ``rejected`` (best with worst, second best with second worst, ...), ``{"prompt", "chosen",
  "rejected"}``; a pair whose two answers score the same is left out;
* ``grpo``: one ``{"prompt": [user]}`` row per answer's prompt, to train with
  :class:`creval.benchmarks.dat.reward.DATReward`.

The paper's SFT answers were lists of random nouns (from Juman++'s dictionary) rather than a
model's answers; here they are whatever the runs hold, so pass a run of such lists (for
example through ``replay:`` of a transcript) to build them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from creval.errors import CrevalError

if TYPE_CHECKING:
    import pandas as pd

Format = Literal["sft", "dpo", "grpo"]
FORMATS: tuple[str, ...] = ("sft", "dpo", "grpo")


def dat_answers(runs: Sequence[Path | str]) -> pd.DataFrame:
    """Every answer in the runs with its prompt and DAT distance: columns ``run``, ``key``,
    ``prompt`` (chat messages), ``answer``, ``distance`` (None when invalid), ``score``
    (the distance, 0 when invalid) and ``reason`` (why it is invalid)."""
    import pandas as pd

    from creval.benchmarks.dat.reward import DATReward, dat_options
    from creval.reader import read_run

    rows = []
    for path in runs:
        reward = DATReward.from_options(**dat_options(path))
        for record in read_run(path).records:
            for call in record.calls:
                prompt = call.get("request", {}).get("messages", [])
                for completion in call.get("completions", []):
                    text = str(completion.get("text", ""))
                    distance = reward.distance(text)
                    reason = None if distance is not None else \
                        reward.scorer.invalid_reason(text) or "invalid"
                    rows.append({"run": str(path), "key": record.key, "prompt": prompt, "answer": text,
                                 "distance": distance, "score": distance or 0.0, "reason": reason})
    if not rows:
        raise CrevalError("The runs hold no answers; run `creval run dat` first.")
    return pd.DataFrame(rows)


def _prompt_key(prompt: list[dict[str, Any]]) -> str:
    return json.dumps(prompt, sort_keys=True, ensure_ascii=False)


def _assistant(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


def training_rows(answers: pd.DataFrame, fmt: Format, *, top: int | None = None) -> list[dict[str, Any]]:
    """The rows of ``fmt`` from :func:`dat_answers`; ``top`` defaults to one eighth of the
    answers (the paper's 16,384 of 131,072), at least 1."""
    if fmt not in FORMATS:
        raise CrevalError(f"The format must be one of {', '.join(FORMATS)}, got {fmt!r}.")
    count = top if top is not None else max(1, math.ceil(len(answers) / 8))
    if count < 1:
        raise CrevalError(f"--top must be at least 1, got {count}.")
    if fmt == "grpo":
        return [{"prompt": p} for p in answers["prompt"]]
    if fmt == "sft":
        valid = answers[answers["distance"].notna()].sort_values("distance", ascending=False, kind="stable")
        return [{"prompt": row.prompt, "completion": _assistant(row.answer)} for row in valid.head(count).itertuples()]
    rows = []
    for _, group in answers.groupby(answers["prompt"].map(_prompt_key), sort=False):
        ranked = group.sort_values("score", ascending=False, kind="stable")
        pairs = min(count, len(ranked) // 2)
        best, worst = ranked.head(pairs), ranked.iloc[::-1].head(pairs)
        for chosen, rejected in zip(best.itertuples(), worst.itertuples(), strict=True):
            if chosen.score > rejected.score:
                rows.append({"prompt": chosen.prompt, "chosen": _assistant(chosen.answer),
                             "rejected": _assistant(rejected.answer)})
    return rows


def write_training_data(runs: Sequence[Path | str], out: Path | str, fmt: Format, *,
                        top: int | None = None) -> dict[str, Any]:
    """Write ``out/train.jsonl`` (the rows) and ``out/dat-data.json`` (what was built, from
    what, with the score range of the rows); returns the latter."""
    answers = dat_answers(runs)
    rows = training_rows(answers, fmt, top=top)
    if not rows:
        raise CrevalError(f"No {fmt} rows: the runs have no valid answer (sft) or no two answers "
                          "with different scores (dpo).")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "train.jsonl").open("w", encoding="utf-8") as file:
        for row in rows:
            file.write(json.dumps(row, ensure_ascii=False) + "\n")
    valid = answers["distance"].dropna()
    summary = {
        "format": fmt, "rows": len(rows), "answers": len(answers), "valid_answers": int(valid.size),
        "top": top if top is not None else max(1, math.ceil(len(answers) / 8)),
        "mean_distance": float(valid.mean()) if valid.size else None,
        "runs": [str(r) for r in runs], "file": str(folder / "train.jsonl"),
    }
    (folder / "dat-data.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary
