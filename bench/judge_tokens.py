"""Tokens of the retrieval-based multi-agent judge as a fraction of the ChatEval baseline.

Both judges evaluate the same MacGyver items (the offline starter set's problems with their
reference solutions) with the same model, the same criteria (feasibility, safety,
effectiveness) and the same generation settings (temperature 0, the same ``max_tokens``).
Token counts are the backend's own (prompt and completion tokens). The paper reports the
multi-agent judge at about 37% of ChatEval's tokens (GPT-4o, Table 17); goal here: <= 30%.

    .venv/bin/python bench/judge_tokens.py                       # local SmolLM2, 3 items
    .venv/bin/python bench/judge_tokens.py --model openai:gpt-4o-mini --items 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from importlib import resources
from typing import Any

from creval.judges.criteria import JudgeVerdict
from creval.judges.debate import ChatEvalJudge
from creval.judges.multiagent import MultiAgentJudge
from creval.judges.usage import RoleUsage
from creval.models.base import Completion, GenerateRequest

#: Used only when the packaged starter set is missing.
FALLBACK_ITEMS = [
    {"id": "inline-1",
     "problem": "A kite is stuck on a branch 4 m up. You have a 2 m broom, a 5 m garden hose, "
                "a roll of duct tape and a bucket; there is no ladder. How do you get it down?",
     "solution": "Step1: Stand the bucket upside down under the branch.<br>Step2: Stand on it "
                 "and push the kite off the branch with the broom."},
    {"id": "inline-2",
     "problem": "Your bike chain came off on a muddy trail. You have a stick, a plastic bag "
                "and a water bottle. How do you put the chain back without getting greasy?",
     "solution": "Step1: Put the plastic bag over your hand.<br>Step2: Hook the chain onto "
                 "the front ring with the stick and turn the pedal backwards slowly."},
    {"id": "inline-3",
     "problem": "You need to open a stuck jar lid. You have a rubber band, a tea towel and "
                "a butter knife. How do you open it?",
     "solution": "Step1: Wrap the rubber band round the lid for grip.<br>Step2: Hold the "
                 "jar with the tea towel and twist the lid."},
]


def load_items(limit: int) -> list[dict[str, str]]:
    """The packaged MacGyver starter problems with their reference solutions."""
    try:
        text = (resources.files("creval") / "data" / "openended" / "macgyver.jsonl").read_text(
            encoding="utf-8")
    except FileNotFoundError:
        return FALLBACK_ITEMS[:limit]
    items = []
    for line in text.splitlines():
        if line.strip():
            row = json.loads(line)
            items.append({"id": str(row["id"]), "problem": row["problem"],
                          "solution": row.get("solution") or row["reference"]})
    return items[:limit]


def summarise(v: JudgeVerdict) -> dict[str, Any]:
    return {"usage": v.total_usage.to_dict(), "verdicts": v.verdicts, "rounds": v.rounds,
            "parse_failures": v.n_parse_failures,
            "stages": {k: u.to_dict() for k, u in v.stage_usage.items()}}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    from creval.embed import get_embedder
    from creval.models import ModelOptions, get_model

    model = get_model(args.model, ModelOptions(n_ctx=args.n_ctx, base_url=args.base_url))

    async def generate(request: GenerateRequest) -> list[Completion]:
        completions = await model.generate(request)
        if args.verbose:
            u = completions[0].usage
            print(f"  call: {u.input_tokens} in, {u.output_tokens} out", file=sys.stderr,
                  flush=True)
        return completions

    multi = MultiAgentJudge(generate, embedder=get_embedder("minilm"), temperature=0.0,
                            verdict_temperature=0.0, max_tokens=args.max_tokens)
    chateval = ChatEvalJudge(generate, temperature=0.0, max_tokens=args.max_tokens)
    rows = []
    totals = {"multiagent": RoleUsage(), "chateval": RoleUsage()}
    try:
        for item in load_items(args.items):
            row: dict[str, Any] = {"id": item["id"]}
            for name, judge in (("multiagent", multi), ("chateval", chateval)):
                start = time.perf_counter()
                verdict = await judge.evaluate(item["problem"], item["solution"],
                                               domain="macgyver")
                row[name] = summarise(verdict) | {"seconds": round(time.perf_counter() - start, 1)}
                totals[name] = totals[name] + verdict.total_usage
            ma, ce = row["multiagent"]["usage"], row["chateval"]["usage"]
            row["fraction"] = (ma["input_tokens"] + ma["output_tokens"]) / (
                ce["input_tokens"] + ce["output_tokens"])
            rows.append(row)
            print(f"{item['id']}: multi-agent {ma} vs chateval {ce} -> {row['fraction']:.3f}",
                  flush=True)
    finally:
        await model.aclose()
    ma_t, ce_t = totals["multiagent"], totals["chateval"]
    return {
        "model": args.model, "items": len(rows), "max_tokens": args.max_tokens, "rows": rows,
        "multiagent": ma_t.to_dict(), "chateval": ce_t.to_dict(),
        "fraction_total": ma_t.total_tokens / ce_t.total_tokens,
        "fraction_input": ma_t.input_tokens / ce_t.input_tokens,
        "fraction_output": ma_t.output_tokens / ce_t.output_tokens,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local", help="model spec (default: local SmolLM2)")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--items", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=512, help="ChatEval's setting")
    parser.add_argument("--n-ctx", type=int, default=8192,
                        help="context window for local models (ChatEval's history grows)")
    parser.add_argument("--json", default=None, help="also write the full results here")
    parser.add_argument("--verbose", action="store_true", help="print every call's tokens")
    args = parser.parse_args()
    result = asyncio.run(main_async(args))
    n = result["items"]
    print(f"\n{n} MacGyver items, model {args.model}, max_tokens {args.max_tokens}")
    for name in ("multiagent", "chateval"):
        u = result[name]
        print(f"{name:>10}: {u['input_tokens'] / n:9.0f} input + {u['output_tokens'] / n:7.0f} "
              f"output tokens per item, {u['calls'] / n:.1f} calls per item")
    print(f"multi-agent / ChatEval: total {result['fraction_total']:.3f}, input "
          f"{result['fraction_input']:.3f}, output {result['fraction_output']:.3f} "
          "(paper ~0.37; goal <= 0.30)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
