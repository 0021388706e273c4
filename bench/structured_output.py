"""Parse failures of the offline default model as judge, with and without structured output.

The offline default (``local``, SmolLM2-135M-Instruct) judges with each instrument twice:
free text, and constrained to the instrument's JSON schema (:mod:`creval.judges.structured`).
Every answer goes through the same strict parser. Reported per instrument: answers, parse
failures, the failure rate, output tokens, and the constrained run's output tokens as a
ratio of the free run's (same items, same prompts, greedy decoding).

* ``jcq`` / ``ttct``: the rubric judge on the starter questions, each with one canned answer;
* ``macgyver``: the multi-agent judge on starter problems with their reference solutions
  (one criterion, one round, to stay small); a failure is any recorded parse failure over
  the parsed answers (discussion turns, confidences, stances, verdicts);
* ``chateval``: the debate judge on the same problems (one criterion, two rounds of the
  three referees); a failure is a last-round vote that does not parse (the discussion turns
  of the first round are free text either way and are not counted);
* ``neocoder``: technique detection on small programs.

    .venv/bin/python bench/structured_output.py            # about 12 minutes on 2 busy cores
    .venv/bin/python bench/structured_output.py --items 6 --macgyver-items 2
    .venv/bin/python bench/structured_output.py --only chateval
    .venv/bin/python bench/structured_output.py --model hf:/path/to/model-dir  # llguidance

``--model`` takes a judge model whose backend constrains decoding: ``local`` (the default)
or ``hf:DIR`` with llguidance installed.

The rubric prompts are long for SmolLM2's tokenizer (the Japanese one is about 1,850 tokens),
so prompt evaluation, not the answer, is most of the time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from typing import Any

from creval.benchmarks.common import format_prompt, load_prompt
from creval.benchmarks.neocoder.techniques import detection_request, parse_techniques
from creval.benchmarks.ttct.questions import load_questions
from creval.judges.debate import DEFAULT_PERSONAS, ChatEvalJudge
from creval.judges.multiagent import MultiAgentJudge
from creval.judges.rubric import TTCT_CRITERIA_EN, TTCT_CRITERIA_JA, parse_rubric
from creval.judges.structured import as_text, render_rubric, rubric_schema
from creval.models import Completion, GenerateRequest, get_model

ANSWER = {
    "en": "1. Use it as a doorstop.\n2. Build a small wall.\n3. Grind it into red pigment.",
    "ja": "1. ドアストッパーにする。\n2. 小さな壁を作る。\n3. 砕いて赤い顔料にする。",
}
CODES = [
    "def solve():\n    n = int(input())\n    print(sum(range(n)))\n",
    "def solve():\n    seen = set()\n    for x in input().split():\n        if x in seen:\n            print(x)\n            break\n        seen.add(x)\n",
    "def solve():\n    a = sorted(map(int, input().split()))\n    lo, hi = 0, len(a) - 1\n    while lo < hi:\n        lo += 1\n    print(a[lo])\n",
    "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\ndef solve():\n    print(fib(int(input())))\n",
    "def solve():\n    d = {}\n    for w in input().split():\n        d[w] = d.get(w, 0) + 1\n    print(max(d, key=d.get))\n",
]


FEASIBILITY = {"feasibility": "Every step can really be done with the items given."}

class Counting:
    """The judge model, counting output tokens."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.output_tokens = 0

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        out: list[Completion] = await self.model.generate(request)
        self.output_tokens += sum(c.usage.output_tokens for c in out)
        return out


async def rubric(gen: Counting, lang: str, items: int, constrained: bool) -> tuple[int, int]:
    starter = ("jcq", "questions_ja.jsonl") if lang == "ja" else ("ttct", "questions_en.jsonl")
    name = "jcq_judge_ja" if lang == "ja" else "ttct_judge_en"
    criteria = TTCT_CRITERIA_JA if lang == "ja" else TTCT_CRITERIA_EN
    labels = [c.labels[0].capitalize() for c in criteria]
    template = load_prompt(name)
    failures = 0
    questions = load_questions(None, starter)[:items]
    for q in questions:
        prompt = format_prompt(template, name, question=q.question, answer=ANSWER[lang])
        req = GenerateRequest.chat(prompt, temperature=0.0, max_tokens=64, seed=0,
                                   response_schema=rubric_schema(labels) if constrained else None)
        (c,) = await gen(req)
        text = as_text(c.text, render_rubric) if constrained else c.text
        failures += not parse_rubric(text, criteria).ok
    return len(questions), failures


async def _judged_problems(judge: Any, items: int, answers_each: int) -> tuple[int, int]:
    """A judge over MacGyver problems: (answers asked for, parse failures)."""
    from creval.benchmarks.openended.data import load_problems

    answers = failures = 0
    for p in load_problems("macgyver", None, limit=items):
        solution = getattr(p, "solution", "") or "Step 1: Use the items as given."
        v = await judge.evaluate(p.judge_text(), str(solution), domain="macgyver")
        answers += answers_each
        failures += v.n_parse_failures
    return answers, failures


async def macgyver(gen: Counting, items: int, constrained: bool) -> tuple[int, int]:
    judge = MultiAgentJudge(gen, criteria=FEASIBILITY, max_rounds=1, max_tokens=320,
                            structured=constrained)
    return await _judged_problems(judge, items, 3 + 3 * 2 + 1)  # turns, confidences + stances, verdict


async def chateval(gen: Counting, items: int, constrained: bool) -> tuple[int, int]:
    judge = ChatEvalJudge(gen, criteria=FEASIBILITY, rounds=2, max_tokens=160, structured=constrained)
    return await _judged_problems(judge, items, len(DEFAULT_PERSONAS))  # the last-round votes


async def neocoder(gen: Counting, items: int, constrained: bool) -> tuple[int, int]:
    failures = 0
    for code in CODES[:items]:
        (c,) = await gen(detection_request(code, constrained=constrained, max_tokens=128))
        failures += not parse_techniques(c.text).ok
    return min(items, len(CODES)), failures


async def main(items: int, macgyver_items: int, codes: int, *, spec: str = "local",
               only: list[str] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    model = get_model(spec)
    if not model.capabilities.structured_output:
        raise SystemExit(f"{spec} cannot constrain decoding (Capabilities.structured_output is False)")
    rows = []
    tasks = {"jcq": lambda g, c: rubric(g, "ja", items, c), "ttct": lambda g, c: rubric(g, "en", items, c),
             "macgyver": lambda g, c: macgyver(g, macgyver_items, c),
             "chateval": lambda g, c: chateval(g, macgyver_items, c),
             "neocoder": lambda g, c: neocoder(g, codes, c)}  # fmt: skip
    for name, task in tasks.items():
        if only and name not in only:
            continue
        row: dict[str, Any] = {"instrument": name, "model": spec}
        for constrained in (False, True):
            gen = Counting(model)
            start = time.perf_counter()
            n, failed = await task(gen, constrained)
            tag = "constrained" if constrained else "free"
            row[tag] = {"answers": n, "failures": failed, "rate": round(failed / n, 3),
                        "output_tokens": gen.output_tokens,
                        "seconds": round(time.perf_counter() - start, 1)}  # fmt: skip
        free_tokens = row["free"]["output_tokens"]
        row["token_ratio"] = round(row["constrained"]["output_tokens"] / free_tokens, 2) if free_tokens else None
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=3, help="Questions for jcq and ttct.")
    parser.add_argument("--macgyver-items", type=int, default=1, help="MacGyver problems.")
    parser.add_argument("--codes", type=int, default=5, help="Programs for technique detection.")
    parser.add_argument("--model", default="local", help="The judge model (local, hf:DIR, ...).")
    parser.add_argument("--only", action="append", help="Run only this instrument (repeatable).")
    args = parser.parse_args()
    asyncio.run(main(args.items, args.macgyver_items, args.codes, spec=args.model, only=args.only))
