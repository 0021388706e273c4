"""Tokens of the retrieval-based multi-agent judge as a fraction of the ChatEval baseline.

Both judges evaluate the same MacGyver items (the offline starter set's problems with their
reference solutions) with the same criteria (feasibility, safety, effectiveness) and the same
generation settings (temperature 0, the same ``max_tokens``). The paper reports the
multi-agent judge at about 37% of ChatEval's tokens (GPT-4o, Table 17); goal here: <= 30%.

Two responders answer the judges' prompts:

* ``--responder model`` (default): a real model; token counts are the backend's own.
* ``--responder compliant``: NOT A MODEL. A deterministic in-process stand-in that recognises
  each judge prompt by its template text and answers in the expected format at realistic
  lengths (a fraction ``--fill`` of each prompt's word limit; ChatEval turns of
  ``--chateval-words`` words with the vote in the last round; confidence ``--confidence``).
  Prompt and answer are counted with a real tokenizer (the SmolLM2 GGUF's, vocabulary only),
  so the ratio reflects the protocols' structure, not one model's verbosity or obedience.
  ``--sensitivity`` runs a small grid of such settings. With ``--stances mixed`` its
  stance and verdict on a criterion follow a fixed pseudo-random truth per (problem,
  criterion), so that verdict agreement between two multi-agent panels checks that each
  verdict still reaches its own criterion (it cannot show what a real model would decide).

Every run also holds the multi-agent judge with ``panel="joint"`` (one discussion of all
criteria, then a verdict per criterion) beside the default per-criterion panel, and reports
its token fraction and how many of its verdicts agree with the default panel's.

    .venv/bin/python bench/judge_tokens.py                       # local SmolLM2, 3 items
    .venv/bin/python bench/judge_tokens.py --model openai:gpt-4o-mini --items 10
    .venv/bin/python bench/judge_tokens.py --responder compliant --sensitivity
    .venv/bin/python bench/judge_tokens.py --responder compliant --chateval-words 430 --stances mixed
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from creval.judges.criteria import JudgeVerdict, judge_prompt
from creval.judges.debate import ChatEvalJudge
from creval.judges.multiagent import MultiAgentJudge
from creval.judges.usage import GenerateFn, RoleUsage
from creval.models.base import Completion, GenerateRequest, Usage

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


# --- the compliant responder (a stand-in, not a model) ---------------------------------------

#: Which prompt a request is, recognised by text that only that template contains.
PROMPT_MARKERS = {
    "judge_ma_problem_init": "your job now is to understand the problem",
    "judge_ma_solution_init": "your job now is to understand the solution",
    "judge_ma_criterion_init": "your job now is to pin down what that criterion demands",
    "judge_ma_discussion": "Reply in exactly three labelled parts",
    "judge_ma_confidence": "How certain are you that you can now reach",
    "judge_ma_verdict": "Now act as the panel's judge",
    "judge_debate_judge": "You are the presiding judge",
    "judge_debate_turn": "It is your turn to speak",
}
FINAL_MARKER = "This is your last turn"  # judge_debate_final, inside a debate turn
_LIMIT = re.compile(r"at most (\d+) words")
_SPEAKER = re.compile(r"You are the (problem|solution|criterion) analyst")
_NEXT = {"problem": "solution", "solution": "criterion", "criterion": "problem"}
_JUDGING_TEXT = (
    "the step works because it holds steady and the person can reach it without help "
    "which means the result is likely safe enough but the length of the item is uncertain "
    "so we assume a typical size and check whether the goal is fully met by the end"
)
_JUDGING_WORDS = _JUDGING_TEXT.split()


def check_markers() -> None:
    """Fail loudly when a packaged template no longer contains its marker."""
    for name, marker in {**PROMPT_MARKERS, "judge_debate_final": FINAL_MARKER}.items():
        if marker not in judge_prompt(name, {}):
            raise SystemExit(f"compliant responder: marker {marker!r} not in prompt {name}; "
                             "update PROMPT_MARKERS in bench/judge_tokens.py")


@dataclass(frozen=True)
class Lengths:
    """How long the compliant answers are."""

    fill: float = 0.9  # share of a prompt's "at most N words" the analysts use
    chateval_words: int = 150  # every ChatEval turn (the last adds a one-line vote)
    confidence: float = 0.8  # every analyst's stated certainty (>= 0.5 stops after round 1)
    verdict_words: int = 20
    stances: str = "yes"  # "yes": always YES; "mixed": a fixed truth per (problem, criterion)


class CompliantResponder:
    """Answers every judge prompt in its expected format; counts tokens with a real tokenizer.

    Text is deterministic filler drawn from the prompt's own words (seeded by the prompt), so
    its tokens-per-word ratio is that of the item's English.
    """

    def __init__(self, lengths: Lengths, tokenizer_path: str | None = None) -> None:
        from llama_cpp import Llama

        from creval.models.local import default_model_path

        check_markers()
        path = tokenizer_path or str(default_model_path())
        self._vocab = Llama(model_path=path, vocab_only=True, verbose=False)
        self.lengths = lengths

    def count(self, text: str, *, chat: bool) -> int:
        if chat:  # a single user message in ChatML, no default system prompt
            text = f"<|im_start|>user\n{text}<|im_end|>\n<|im_start|>assistant\n"
        return len(self._vocab.tokenize(text.encode("utf-8"), add_bos=False, special=chat))

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        prompt = request.messages[-1].text()
        answer = self.answer(prompt)
        usage = Usage(input_tokens=self.count(prompt, chat=True),
                      output_tokens=self.count(answer, chat=False))
        return [Completion(text=answer, finish_reason="stop", usage=usage)]

    def stance(self, prompt: str) -> str:
        """YES, or with ``stances="mixed"`` a fixed truth per (problem, criterion) in ``prompt``
        (about one criterion in three fails)."""
        if self.lengths.stances != "mixed":
            return "YES"
        problem = prompt.split("Problem:", 1)[-1].split("Proposed solution:", 1)[0].strip()
        m = re.search(r"^Criterion: (.+)$", prompt, re.MULTILINE)
        key = f"{problem}|{m.group(1).strip() if m else ''}".encode()
        return "NO" if hashlib.sha256(key).digest()[0] % 3 == 0 else "YES"

    def answer(self, prompt: str) -> str:
        kind = next((k for k, m in PROMPT_MARKERS.items() if m in prompt), None)
        if kind is None:
            raise SystemExit(f"compliant responder: unknown prompt:\n{prompt[:300]}")
        rng = random.Random(hashlib.sha256(prompt.encode("utf-8")).digest())
        pool = re.findall(r"[A-Za-z]+", prompt.split("Criteri")[0])[-150:] + _JUDGING_WORDS
        limit = int(m.group(1)) if (m := _LIMIT.search(prompt)) else 0
        words = max(1, round(limit * self.lengths.fill))

        def prose(n: int) -> str:
            return _prose(rng, pool, n)

        ln = self.lengths
        yes = self.stance(prompt)
        if kind.endswith("_init"):  # points of 30-60 words, up to the word budget
            points, left = [], words
            while left > 0:
                size = min(left, rng.randint(30, 60))
                points.append(f"[[POINT]] {prose(size)}")
                left -= size
            return "\n".join(points)
        if kind == "judge_ma_discussion":
            me = _SPEAKER.search(prompt)
            asked = "Questions addressed to you:\nNone" not in prompt
            answers = f"To the asker's question: {prose(words // 4)}" if asked else "None"
            opinion = prose(words - (words // 4 if asked else 0) - 12)
            to = _NEXT[me.group(1) if me else "problem"]
            return (f"[[ANSWERS]] {answers}\n[[OPINION]] {opinion}\n"
                    f"[[QUESTIONS]] To {to} analyst: {prose(11)[:-1]}?")
        if kind == "judge_ma_confidence":
            return f"{prose(words)[:-1]}, so [[{ln.confidence:.1f}]] ([{yes}])"
        if kind == "judge_ma_verdict":
            return f"[[{yes}]] {prose(ln.verdict_words)}"
        if kind == "judge_debate_judge":
            return f"{prose(45)}\n[[YES]] [[{ln.confidence:.1f}]]"
        turn = prose(ln.chateval_words)
        return f"{turn}\nVerdict: [[YES]]" if FINAL_MARKER in prompt else turn


def _prose(rng: random.Random, pool: list[str], n: int) -> str:
    """``n`` words from ``pool`` as sentences of 8-16 words."""
    sentences, left = [], n
    while left > 0:
        size = min(left, rng.randint(8, 16))
        words = [rng.choice(pool).lower() for _ in range(size)]
        sentences.append(" ".join(words).capitalize() + ".")
        left -= size
    return " ".join(sentences)


# --- running both judges ---------------------------------------------------------------------

def summarise(v: JudgeVerdict) -> dict[str, Any]:
    return {"usage": v.total_usage.to_dict(), "verdicts": v.verdicts, "rounds": v.rounds,
            "parse_failures": v.n_parse_failures,
            "stages": {k: u.to_dict() for k, u in v.stage_usage.items()},
            "roles": {k: u.to_dict() for k, u in v.usage.items()}}


class CachedEmbedder:
    """The packaged ``minilm`` embedder with a per-text cache (compliant texts repeat across
    scenarios; vectors are identical, only the time is saved)."""

    def __init__(self) -> None:
        from creval.embed import get_embedder

        self._inner = get_embedder("minilm")
        self.spec = self._inner.spec
        self._cache: dict[str, Any] = {}

    def identity(self) -> dict[str, Any]:
        return self._inner.identity()

    def embed(self, texts: Sequence[str]) -> Any:
        import numpy as np

        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            self._cache.update(zip(missing, self._inner.embed(missing), strict=True))
        return np.stack([self._cache[t] for t in texts]) if texts else self._inner.embed([])


_EMBEDDER: list[CachedEmbedder] = []

#: Result name -> ``MultiAgentJudge.panel``; "multiagent" is the current default judge.
MULTI_AGENT_PANELS = {"multiagent": "per_criterion", "multiagent_joint": "joint"}


def make_judges(generate: GenerateFn, args: argparse.Namespace, **multi_knobs: Any
                ) -> dict[str, Any]:  # fmt: skip
    """The judges compared, by result name: the default (per-criterion) multi-agent panel,
    the joint panel and ChatEval."""
    if not _EMBEDDER:
        _EMBEDDER.append(CachedEmbedder())
    knobs = {"k_discussion": args.k_discussion, "j_confidence": args.j_confidence,
             "init_max_words": args.init_max_words} | multi_knobs  # fmt: skip
    judges: dict[str, Any] = {
        name: MultiAgentJudge(generate, embedder=_EMBEDDER[0], temperature=0.0,
                              verdict_temperature=0.0, max_tokens=args.max_tokens,
                              **({"panel": panel} | knobs))
        for name, panel in MULTI_AGENT_PANELS.items()
    }  # fmt: skip
    return judges | {"chateval": ChatEvalJudge(generate, temperature=0.0,
                                               max_tokens=args.max_tokens)}


async def compare(judges: dict[str, Any], items: list[dict[str, str]], *,
                  quiet: bool = False) -> dict[str, Any]:  # fmt: skip
    """Run every judge on ``items``; totals, per-stage and per-role usage, the token fraction
    of each multi-agent panel against ChatEval and its verdict agreement with the default."""
    rows = []
    totals = {name: RoleUsage() for name in judges}
    stages: dict[str, dict[str, RoleUsage]] = {name: {} for name in judges}
    roles: dict[str, dict[str, RoleUsage]] = {name: {} for name in judges}
    for item in items:
        row: dict[str, Any] = {"id": item["id"]}
        for name, judge in judges.items():
            start = time.perf_counter()
            verdict = await judge.evaluate(item["problem"], item["solution"], domain="macgyver")
            row[name] = summarise(verdict) | {"seconds": round(time.perf_counter() - start, 1)}
            totals[name] = totals[name] + verdict.total_usage
            for table, usage in ((stages, verdict.stage_usage), (roles, verdict.usage)):
                for key, u in usage.items():
                    table[name][key] = table[name].get(key, RoleUsage()) + u
        ce = row["chateval"]["usage"]
        for name in MULTI_AGENT_PANELS:
            ma = row[name]["usage"]
            row[f"fraction_{name}"] = (ma["input_tokens"] + ma["output_tokens"]) / (
                ce["input_tokens"] + ce["output_tokens"])
        row["fraction"] = row["fraction_multiagent"]
        rows.append(row)
        if not quiet:
            print(f"{item['id']}: " + ", ".join(
                f"{name} {row[name]['usage']}" for name in judges) + " -> " + ", ".join(
                f"{name} {row[f'fraction_{name}']:.3f}" for name in MULTI_AGENT_PANELS),
                flush=True)  # fmt: skip
    ce_t = totals["chateval"]
    panels = {}
    for name in MULTI_AGENT_PANELS:
        pairs = [(r["multiagent"]["verdicts"][c], r[name]["verdicts"][c])
                 for r in rows for c in r["multiagent"]["verdicts"]]  # fmt: skip
        panels[name] = {
            "usage": totals[name].to_dict(),
            "fraction_total": totals[name].total_tokens / ce_t.total_tokens,
            "agreeing_verdicts": sum(a == b for a, b in pairs), "verdicts": len(pairs),
            "verdicts_no": sum(b is False for _, b in pairs),
            "parse_failures": sum(r[name]["parse_failures"] for r in rows),
        }
    ma_t = totals["multiagent"]
    return {
        "items": len(rows), "rows": rows, "multiagent": ma_t.to_dict(),
        "chateval": ce_t.to_dict(), "panels": panels,
        "stages": {j: {s: u.to_dict() for s, u in st.items()} for j, st in stages.items()},
        "roles": {j: {r: u.to_dict() for r, u in rl.items()} for j, rl in roles.items()},
        "fraction_total": ma_t.total_tokens / ce_t.total_tokens,
        "fraction_input": ma_t.input_tokens / ce_t.input_tokens,
        "fraction_output": ma_t.output_tokens / ce_t.output_tokens,
    }


async def run_model(args: argparse.Namespace) -> dict[str, Any]:
    from creval.models import ModelOptions, get_model

    model = get_model(args.model, ModelOptions(n_ctx=args.n_ctx, base_url=args.base_url))

    async def generate(request: GenerateRequest) -> list[Completion]:
        completions = await model.generate(request)
        if args.verbose:
            u = completions[0].usage
            print(f"  call: {u.input_tokens} in, {u.output_tokens} out", file=sys.stderr,
                  flush=True)
        return completions

    try:
        result = await compare(make_judges(generate, args), load_items(args.items or 3))
    finally:
        await model.aclose()
    return {"responder": "model", "model": args.model, "max_tokens": args.max_tokens} | result


def lengths_from(args: argparse.Namespace) -> Lengths:
    return Lengths(fill=args.fill, chateval_words=args.chateval_words,
                   confidence=args.confidence, stances=args.stances)


#: (label, changes to Lengths, changes to the multi-agent knobs) for ``--sensitivity``.
SCENARIOS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("baseline (ChatEval 150 words/turn, early stop)", {}, {}),
    ("ChatEval 80 words/turn", {"chateval_words": 80}, {}),
    ("ChatEval 250 words/turn", {"chateval_words": 250}, {}),
    ("ChatEval 430 words/turn (~480 tokens = Table 17's 8,634 / 18)",
     {"chateval_words": 430}, {}),
    ("no early stop (confidence 0.3: both rounds)", {"confidence": 0.3}, {}),
    ("no early stop, ChatEval 430 words/turn", {"confidence": 0.3, "chateval_words": 430}, {}),
    ("upstream code's k=4, j=5", {}, {"k_discussion": 4, "j_confidence": 5}),
    ("init limit 150 words (paper: answers <= 150)", {}, {"init_max_words": 150}),
    ("analysts use 60% of their word limits", {"fill": 0.6}, {}),
    ("init limit 150 words, ChatEval 430 words/turn", {"chateval_words": 430},
     {"init_max_words": 150}),
]


async def run_compliant(args: argparse.Namespace) -> dict[str, Any]:
    items = load_items(args.items or 5)
    base = lengths_from(args)
    responder = CompliantResponder(base, args.tokenizer)
    scenarios = SCENARIOS if args.sensitivity else SCENARIOS[:1]
    results = []
    for label, length_changes, knobs in scenarios:
        responder.lengths = Lengths(**(vars(base) | length_changes))
        result = await compare(make_judges(responder, args, **knobs), items,
                               quiet=args.sensitivity)
        label = label if args.sensitivity else "settings as given"
        results.append({"scenario": label, "lengths": vars(responder.lengths),
                        "multiagent_knobs": knobs} | result)
        if args.sensitivity:
                print(f"{label}: {result['fraction_total']:.3f} (joint panel "
                  f"{result['panels']['multiagent_joint']['fraction_total']:.3f})", flush=True)
    return {"responder": "compliant", "max_tokens": args.max_tokens, "scenarios": results}


# --- reporting -------------------------------------------------------------------------------

def print_result(result: dict[str, Any], title: str) -> None:
    n = result["items"]
    print(f"\n{title}")
    for name in result["stages"]:
        u = result["panels"][name]["usage"] if name in result["panels"] else result[name]
        print(f"{name:>16}: {u['input_tokens'] / n:9.0f} input + {u['output_tokens'] / n:7.0f} "
              f"output tokens per item, {u['calls'] / n:.1f} calls per item")
        for kind in ("stages", "roles"):
            for key, s in result[kind][name].items():
                print(f"{'':>18}{key:>18}: {s['input_tokens'] / n:8.0f} in "
                      f"{s['output_tokens'] / n:7.0f} out {s['calls'] / n:5.1f} calls")
    print("| multi-agent panel | in / out / calls per item | / ChatEval | verdicts agreeing "
          "with the default panel | NO verdicts | parse failures |\n| --- | --- | --- | --- "
          "| --- | --- |")
    for name, p in result["panels"].items():
        u = p["usage"]
        print(f"| {MULTI_AGENT_PANELS[name]} | {u['input_tokens'] / n:,.0f} / "
              f"{u['output_tokens'] / n:,.0f} / {u['calls'] / n:.0f} | **{p['fraction_total']:.3f}**"
              f" | {p['agreeing_verdicts']} / {p['verdicts']} | {p['verdicts_no']} "
              f"| {p['parse_failures']} |")
    print(f"default panel / ChatEval: total {result['fraction_total']:.3f}, input "
          f"{result['fraction_input']:.3f}, output {result['fraction_output']:.3f} "
          "(paper ~0.37; goal <= 0.30)")


def print_sensitivity(scenarios: list[dict[str, Any]]) -> None:
    print("\n| scenario | multi-agent in / out / calls | ChatEval in / out / calls | "
          "fraction (total) | joint panel in / out / calls | joint fraction | joint verdicts "
          "agreeing |\n| --- | --- | --- | --- | --- | --- | --- |")
    for s in scenarios:
        n = s["items"]
        ma, ce = s["multiagent"], s["chateval"]
        joint = s["panels"]["multiagent_joint"]
        ju = joint["usage"]
        print(f"| {s['scenario']} | {ma['input_tokens'] / n:,.0f} / {ma['output_tokens'] / n:,.0f}"
              f" / {ma['calls'] / n:.0f} | {ce['input_tokens'] / n:,.0f} / "
              f"{ce['output_tokens'] / n:,.0f} / {ce['calls'] / n:.0f} | "
              f"**{s['fraction_total']:.3f}** | {ju['input_tokens'] / n:,.0f} / "
              f"{ju['output_tokens'] / n:,.0f} / {ju['calls'] / n:.0f} | "
              f"**{joint['fraction_total']:.3f}** | {joint['agreeing_verdicts']} / "
              f"{joint['verdicts']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--responder", choices=("model", "compliant"), default="model",
                        help="a real model, or the deterministic format-compliant stand-in")
    parser.add_argument("--model", default="local", help="model spec (default: local SmolLM2)")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--items", type=int, default=None,
                        help="how many items (default: 3 with a model, 5 compliant)")
    parser.add_argument("--max-tokens", type=int, default=512, help="ChatEval's setting")
    parser.add_argument("--n-ctx", type=int, default=8192,
                        help="context window for local models (ChatEval's history grows)")
    parser.add_argument("--k-discussion", type=int, default=5)
    parser.add_argument("--j-confidence", type=int, default=4)
    parser.add_argument("--init-max-words", type=int, default=300)
    compliant = parser.add_argument_group("compliant responder")
    compliant.add_argument("--fill", type=float, default=0.9,
                           help="share of each prompt's word limit an analyst uses")
    compliant.add_argument("--chateval-words", type=int, default=150,
                           help="words per ChatEval turn")
    compliant.add_argument("--confidence", type=float, default=0.8,
                           help="every analyst's certainty (>= 0.5: stop after round 1)")
    compliant.add_argument("--stances", choices=("yes", "mixed"), default="yes",
                           help="YES everywhere, or a fixed truth per (problem, criterion)")
    compliant.add_argument("--tokenizer", default=None,
                           help="GGUF whose vocabulary counts tokens (default: SmolLM2's)")
    compliant.add_argument("--sensitivity", action="store_true",
                           help="run the grid of answer lengths and judge knobs")
    parser.add_argument("--json", default=None, help="also write the full results here")
    parser.add_argument("--verbose", action="store_true", help="print every call's tokens")
    args = parser.parse_args()
    if args.responder == "compliant":
        result = asyncio.run(run_compliant(args))
        for s in result["scenarios"]:
            print_result(s, f"[compliant stand-in] {s['scenario']}: {s['items']} MacGyver "
                            f"items, lengths {s['lengths']}, knobs {s['multiagent_knobs']}")
        if args.sensitivity:
            print_sensitivity(result["scenarios"])
    else:
        result = asyncio.run(run_model(args))
        print_result(result, f"{result['items']} MacGyver items, model {args.model}, "
                             f"max_tokens {args.max_tokens}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
