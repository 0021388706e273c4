"""A study's cost before it is paid (``--plan``): per benchmark and role, the units,
requests, input and output tokens, time at the chosen concurrency and, with the user's
prices, money. Nothing here calls a model or writes a run.

Two bases, said on every row:

* ``prompts``: every unit is driven to its end by stand-in answers
  (:func:`creval.benchmarks.simulate.simulate_units`) as long as ``max_tokens`` allows (an
  upper bound on output; a judge then reads answers of that length), so the requests and
  prompts are those creval would send; tokens are counted with the model's own tokenizer
  where it is on this machine (``local``), else estimated from the characters.
  Benchmarks with many units are simulated on an evenly spaced sample and scaled up.
* ``earlier run``: where the run directory already holds finished units of the same
  benchmark, its measured requests and tokens per unit, for the units still to run.

Prices are the user's (``--price ROLE=IN/OUT`` in currency per million tokens, or a JSON
file); creval ships no price list.

Reasoning tokens (what a reasoning model spends thinking) are output tokens: billed at the
output price and capped, with the answer, by ``max_tokens``. Each row says how many of its
output tokens are reasoning: measured (``earlier run``), or, for the tested model on the
``prompts`` basis, from ``reasoning_ratio`` (``--reasoning-ratio R``: R reasoning tokens per
answer token, so ``R / (1 + R)`` of the output); 0 when neither says.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.evaluation.run.plans import Plan

if TYPE_CHECKING:
    from creval.benchmarks.simulate import Answer
    from creval.models.base import GenerateRequest

#: Units simulated per benchmark at most; more are sampled evenly and scaled up.
SAMPLE_UNITS = 40
#: Seconds of simulation per benchmark after which no new unit is started (see
#: :func:`creval.benchmarks.simulate.simulate_units`): units with heavy local work
#: (retrieval, NLI, a sandbox) are then sampled more thinly.
SIMULATION_BUDGET = 4.0
#: Seconds after which ``--plan`` says which benchmark it is still planning.
SLOW_PLAN = 2.0
#: Assumed seconds per output token and per request when no earlier run measured them.
ASSUMED_SECONDS = {"local": (1 / 60, 0.2), "other": (1 / 50, 0.6)}


@dataclass(frozen=True)
class Price:
    """Currency per million input and output tokens."""

    input: float
    output: float


@dataclass(frozen=True)
class RoleCost:
    """What one role of one benchmark will send."""

    benchmark: str
    role: str
    model: str
    units: int
    requests: int
    input_tokens: int
    output_tokens: int
    basis: str
    tokenizer: str
    seconds: float
    cost: float | None = None
    #: the part of ``output_tokens`` that is reasoning (billed as output, included in it)
    reasoning_tokens: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse_prices(flags: Sequence[str], file: Path | None = None) -> dict[str, Price]:
    """``--price ROLE=IN/OUT`` flags and a JSON file (``{"judge": {"input": 2.5, "output":
    10}}`` or ``{"judge": "2.5/10"}``) -> prices by role (``*``: every role without one).

    >>> parse_prices(["target=0.15/0.6", "*=1/2"])["target"]
    Price(input=0.15, output=0.6)
    """
    raw: dict[str, Any] = {}
    if file is not None:
        try:
            raw.update(json.loads(Path(file).read_text()))
        except (OSError, ValueError) as exc:
            raise CrevalError(f"Price file {file}: {exc}. Write JSON such as "
                              '{"target": "0.15/0.6", "judge": {"input": 2.5, "output": 10}}.') from None
    for flag in flags:
        role, eq, value = flag.partition("=")
        if not eq or not role.strip():
            raise CrevalError(f"--price {flag!r}: write ROLE=IN/OUT per million tokens, e.g. "
                              "--price judge=2.5/10 (ROLE * for every role).")
        raw[role.strip()] = value
    return {role: _price(role, value) for role, value in raw.items()}


def _price(role: str, value: Any) -> Price:
    try:
        if isinstance(value, Mapping):
            price = Price(float(value["input"]), float(value["output"]))
        else:
            given, slash, taken = str(value).partition("/")
            if not slash:
                raise ValueError
            price = Price(float(given), float(taken))
    except (KeyError, ValueError, TypeError):
        raise CrevalError(f"Price of {role!r}: {value!r} is not IN/OUT per million tokens "
                          "(e.g. 2.5/10).") from None
    if price.input < 0 or price.output < 0 or not all(map(math.isfinite, (price.input, price.output))):
        raise CrevalError(f"Price of {role!r} must be two non-negative numbers, got {value!r}.")
    return price


def estimate_tokens(text: str) -> int:
    """Tokens of ``text`` without a tokenizer: a CJK character is one, four other
    characters are one.

    >>> estimate_tokens("Name ten nouns."), estimate_tokens("名詞を十個")
    (4, 5)
    """
    wide = sum(1 for c in text if "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef")
    return wide + math.ceil((len(text) - wide) / 4)


@dataclass(frozen=True)
class Tokens:
    """How one model's tokens are counted: ``text`` for an answer or a text to score,
    ``prompt`` for chat messages as the model receives them (its chat template, where
    known), and the way's name."""

    text: Callable[[str], int]
    prompt: Callable[[Sequence[tuple[str, str]]], int]
    name: str


def _estimated_prompt(messages: Sequence[tuple[str, str]]) -> int:
    """Chat messages without a tokenizer: each message's text, four tokens of framing per
    message and three to start the answer (OpenAI's documented overhead)."""
    return sum(estimate_tokens(text) + 4 for _, text in messages) + 3


def token_counter(spec: str) -> Tokens:
    """How the tokens of ``spec``'s prompts and answers are counted: the GGUF's own
    tokenizer and chat template for ``local`` models, else an estimate from characters."""
    path: Path | None = None
    if spec == "local" or spec.startswith("local:"):
        from creval.models.local import default_model_path

        path = Path(spec.removeprefix("local:")) if spec.startswith("local:") else default_model_path()
    if path is not None and path.is_file():
        try:
            from llama_cpp import Llama
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            with _quiet_stderr():  # llama.cpp warns about the context of a vocabulary-only load
                vocab = Llama(model_path=str(path), vocab_only=True, n_ctx=64, verbose=False)
            template = vocab.metadata.get("tokenizer.chat_template")
        except (ImportError, ValueError, RuntimeError, OSError):
            pass
        else:
            pieces = _by_pieces if vocab.metadata.get("tokenizer.ggml.model") == "gpt2" else _whole
            text = pieces(lambda v: len(vocab.tokenize(v.encode(), add_bos=False, special=False)))
            rendered = pieces(lambda v: len(vocab.tokenize(v.encode(), add_bos=False, special=True)))
            chat = None if template is None else Jinja2ChatFormatter(
                template=template, eos_token="", bos_token="")  # compiled once, not per prompt

            def prompt(messages: Sequence[tuple[str, str]]) -> int:
                if chat is None or any(r == "text" for r, _ in messages):
                    return sum(text(t) for _, t in messages)
                chat_messages: Any = [{"role": r, "content": t} for r, t in messages]
                return rendered(chat(messages=chat_messages).prompt)

            return Tokens(text, prompt, f"{path.name} tokenizer")
    return Tokens(estimate_tokens, _estimated_prompt, "estimated from characters")


#: Where a BPE tokenizer splits a text anyway: before a space and a letter after a non-space,
#: and before a line break between two letters or digits.
_PIECE = re.compile(r"(?<=\S)(?= [^\W\d_])|(?<=[^\W_])(?=\n[^\W_])")


def _by_pieces(count: Callable[[str], int]) -> Callable[[str], int]:
    r"""``count`` (a BPE tokenizer's) as the sum over a text's words and lines, each distinct
    piece counted once: a plan's prompts repeat the same words and lines, and llama.cpp
    tokenizes at ~10 us per character (a standard profile's prompts took a minute). Exact
    for BPE tokenizers, which never merge across these splits; not for SentencePiece ones
    (each piece would get a space of its own), which count whole texts.

    >>> calls = []
    >>> words = _by_pieces(lambda t: calls.append(t) or len(t.split()))
    >>> text = "one two\nthree " * 400
    >>> words(text) == len(text.split()), sorted(set(calls))
    (True, ['\nthree', '\nthree ', ' one', ' two', 'one'])
    """
    @functools.lru_cache(maxsize=1 << 16)
    def piece(text: str) -> int:
        return count(text)

    def counted(text: str) -> int:
        return sum(piece(p) for p in _PIECE.split(text))

    return counted


def _whole(count: Callable[[str], int]) -> Callable[[str], int]:
    """``count`` of whole texts, each distinct text counted once."""
    return functools.lru_cache(maxsize=1 << 12)(count)


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 to /dev/null for a block (C code's own prints included)."""
    sys.stderr.flush()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _filler(count: Callable[[str], int]) -> Callable[[int], str]:
    """Stand-in answers of a given token length under ``count``."""
    unit = "idea "
    per = max(1, count(unit * 50)) / 50

    def text(tokens: int) -> str:
        return (unit * max(1, int(tokens / per))).strip()

    return text


def _earlier(run_dir: Path, benchmark: str) -> dict[str, dict[str, float]] | None:
    """Per role: requests, input and output tokens per finished unit of an earlier run of
    ``benchmark`` in ``run_dir``, with its unit count; None when there is none."""
    records, manifest = run_dir / "records.jsonl", run_dir / "manifest.json"
    if not records.is_file() or not manifest.is_file():
        return None
    try:
        if json.loads(manifest.read_text()).get("benchmark") != benchmark:
            return None
    except ValueError:
        return None
    roles: dict[str, dict[str, float]] = {}
    units = 0
    for line in records.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("status") != "ok":
            continue
        units += 1
        for call in record.get("calls") or []:
            row = roles.setdefault(call.get("role", "target"),
                                   {"requests": 0, "input": 0, "output": 0, "reasoning": 0})
            row["requests"] += 1
            for completion in call.get("completions") or [call]:
                usage = completion.get("usage") or {}
                row["input"] += usage.get("input_tokens") or 0
                row["output"] += usage.get("output_tokens") or 0
                row["reasoning"] += usage.get("reasoning_tokens") or 0
    if units == 0:
        return None
    return {role: {**{k: v / units for k, v in row.items()}, "units": units}
            for role, row in roles.items()}


def plan_costs(
    cells: Sequence[tuple[str, Plan]], *, judge: str | None = None,
    roles: Mapping[str, str] | None = None, concurrency: int | None = None,
    prices: Mapping[str, Price] | None = None, progress: bool = False,
    reasoning_ratio: float | None = None,
) -> list[RoleCost]:
    """Every role's requests, tokens, time and cost of each (model, plan) in ``cells``,
    without calling a model; with ``progress``, a line on stderr for each benchmark that
    takes more than :data:`SLOW_PLAN` seconds (``reasoning_ratio``: see the module's
    docstring)."""
    if reasoning_ratio is not None and not (math.isfinite(reasoning_ratio) and reasoning_ratio >= 0):
        raise CrevalError(f"--reasoning-ratio takes reasoning tokens per answer token, a number "
                          f">= 0 (e.g. 4), not {reasoning_ratio!r}.")
    from creval.benchmarks.simulate import simulate_units
    from creval.evaluation.run.roles import choose
    from creval.models import ModelOptions

    counters: dict[str, Tokens] = {}
    out: list[RoleCost] = []
    for model, plan in _announced(cells, progress):
        choices = choose(plan.benchmark, model=model, model_options=ModelOptions(),
                         judge=plan.judge or judge, judge_options=None,
                         roles={**(roles or {}), **plan.roles}, role_options={})
        units = plan.benchmark.units(plan.options)
        done = _done_keys(plan.out)
        todo = [u for u in units if u.key not in done]
        earlier = _earlier(plan.out, plan.benchmark.name)
        if earlier is not None:
            rows = {role: (m["requests"] * len(todo), m["input"] * len(todo),
                           m["output"] * len(todo)) for role, m in earlier.items()}
            basis = f"earlier run ({int(next(iter(earlier.values()))['units'])} unit(s))"
            tokenizers = dict.fromkeys(rows, "measured")
            thinking = {role: m.get("reasoning", 0) * len(todo) for role, m in earlier.items()}
        else:
            filler = _filler(_counter(counters, choices["target"].spec).text)
            stand_in = {role: plan.benchmark.plan_answer(plan.options, role) for role in choices}
            step = max(1, math.ceil(len(todo) / SAMPLE_UNITS))
            sample = todo[::step]
            worst = getattr(plan.benchmark, "plan_worst_case", None)
            calls, driven = simulate_units(
                plan.benchmark, plan.options, _stand_in(stand_in, filler, distinct=bool(worst)),
                units=sample, budget=SIMULATION_BUDGET, at_least=1)
            scale = len(todo) / driven if driven else 0.0
            rows, tokenizers = {}, {}
            for call in calls:
                spec = choices.get(call.role, choices["target"]).spec
                tokens = _counter(counters, spec)
                tokenizers[call.role] = tokens.name
                prompt = tokens.prompt(call.messages)
                # every sample at its max_tokens: an upper bound, whatever the stand-in's length
                output = call.n * call.max_tokens if call.kind == "generate" else 0
                requests, given, taken = rows.get(call.role, (0, 0, 0))
                rows[call.role] = (requests + 1, given + prompt, taken + output)
            rows = {r: (v[0] * scale, v[1] * scale, v[2] * scale) for r, v in rows.items()}
            basis = "prompts" + (f" (sample of {driven}, scaled)" if driven < len(todo) else "")
            basis += f" (worst case: {worst})" if worst else ""
            share = (reasoning_ratio or 0.0) / (1 + (reasoning_ratio or 0.0))
            thinking = {role: row[2] * share for role, row in rows.items() if role == "target"}
        for role, (requests, given, taken) in sorted(rows.items()):
            spec = choices.get(role, choices["target"]).spec
            seconds = _seconds(spec, requests, taken, concurrency, plan.out, earlier, role)
            price = (prices or {}).get(role) or (prices or {}).get("*")
            cost = None if price is None else (given * price.input + taken * price.output) / 1e6
            out.append(RoleCost(plan.benchmark.name, role, spec, len(todo), round(requests),
                                round(given), round(taken), basis, tokenizers.get(role, "measured"),
                                round(seconds, 1), None if cost is None else round(cost, 4),
                                round(thinking.get(role, 0))))
    return out


def _announced(cells: Sequence[tuple[str, Plan]], progress: bool) -> Iterator[tuple[str, Plan]]:
    """``cells`` one by one; with ``progress``, one that is still being planned after
    :data:`SLOW_PLAN` seconds is named on stderr."""
    for i, (model, plan) in enumerate(cells, 1):
        line = (f"planning {plan.benchmark.name} ({i} of {len(cells)}) for {model}: driving its "
                "units with stand-in answers ...")
        timer = threading.Timer(SLOW_PLAN, print, (line,), {"file": sys.stderr, "flush": True})
        timer.daemon = True
        if progress:
            timer.start()
        try:
            yield model, plan
        finally:
            timer.cancel()


def _stand_in(given: Mapping[str, str | None], filler: Callable[[int], str], *,
              distinct: bool = False) -> Answer:
    """A role's well-formed answer where the benchmark gives one, else ``max_tokens`` of text;
    with ``distinct`` (a benchmark's ``plan_worst_case``), the target's samples all differ (a
    benchmark that compares its answers, such as NoveltyBench's partition, asks the most)."""

    def answer(role: str, request: GenerateRequest, sample: int) -> str:
        text = given.get(role) or filler(request.max_tokens)
        return f"{sample} {text}" if distinct and role == "target" else text

    return answer


def _counter(known: dict[str, Tokens], spec: str) -> Tokens:
    """``spec``'s token counter, made once per plan."""
    if spec not in known:
        known[spec] = token_counter(spec)
    return known[spec]


def _done_keys(run_dir: Path) -> set[str]:
    path = run_dir / "records.jsonl"
    if not path.is_file():
        return set()
    keys = set()
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("status") == "ok":
            keys.add(str(record.get("key")))
    return keys


def _seconds(spec: str, requests: float, output: float, concurrency: int | None, run_dir: Path,
             earlier: Mapping[str, Any] | None, role: str) -> float:
    """Time for ``role``'s requests: measured per request where an earlier run timed them,
    else assumed per output token and per request; an in-process model shares this
    machine's cores, so its time is not divided by the concurrency."""
    local = spec == "local" or spec.startswith(("local:", "hf:"))
    per_token, per_request = ASSUMED_SECONDS["local" if local else "other"]
    if earlier is not None:
        measured = _measured_seconds(run_dir)
        if measured is not None:
            per_token, per_request = 0.0, measured
    lanes = 1 if local else max(1, concurrency or 8)
    return (requests * per_request + output * per_token) / lanes


def _measured_seconds(run_dir: Path) -> float | None:
    """Seconds per request of the earlier invocations in ``run_dir`` (``scores.json``)."""
    try:
        usage = json.loads((run_dir / "scores.json").read_text()).get("usage") or {}
    except (OSError, ValueError):
        return None
    last = usage.get("this_invocation") or {}
    requests = sum(int(m.get("requests") or 0) for m in (last.get("models") or {}).values())
    seconds = float(last.get("seconds") or 0)
    return seconds / requests if requests and seconds else None


def plan_summary(costs: Sequence[RoleCost]) -> dict[str, Any]:
    """The plan as JSON: every row, totals per role and in all."""
    by_role: dict[str, dict[str, Any]] = {}
    for c in costs:
        row = by_role.setdefault(c.role, {"requests": 0, "input_tokens": 0, "output_tokens": 0,
                                          "seconds": 0.0, "cost": 0.0})
        for name in ("requests", "input_tokens", "output_tokens", "seconds"):
            row[name] += getattr(c, name)
        row["cost"] = None if c.cost is None or row["cost"] is None else row["cost"] + c.cost
    priced = all(c.cost is not None for c in costs)
    return {
        "creval_plan": 1,
        "rows": [c.as_dict() for c in costs],
        "roles": by_role,
        "total": {
            "requests": sum(c.requests for c in costs),
            "input_tokens": sum(c.input_tokens for c in costs),
            "output_tokens": sum(c.output_tokens for c in costs),
            "reasoning_tokens": sum(c.reasoning_tokens for c in costs),
            "seconds": round(sum(c.seconds for c in costs), 1),
            "cost": round(sum(c.cost or 0.0 for c in costs), 4) if priced and costs else None,
        },
        "notes": [
            "prompts: every unit driven by stand-in answers as long as max_tokens allows "
            "(output tokens are an upper bound); earlier run: measured per unit.",
            "seconds: measured per request where an earlier run timed it, else assumed; "
            "an in-process model shares the machine's cores: concurrency does not divide its time.",
            "reasoning_tokens: the part of output_tokens a reasoning model spends thinking "
            "(billed as output, so in the cost): measured by an earlier run, else from "
            "--reasoning-ratio for the tested model.",
        ],
    }


def plan(
    benchmarks: Sequence[str] | None = None, model: str = "local", *,
    profile: str | None = None, out: str | Path | None = None, lang: str = "en",
    preset: str | None = None, judge: str | None = None, roles: Mapping[str, str] | None = None,
    concurrency: int | None = None, prices: Mapping[str, str | Price] | None = None,
    reasoning_ratio: float | None = None, **options: Any,
) -> Any:
    """What ``benchmarks`` (or the profile battery of size ``profile``) would send to
    ``model``, as a pandas frame with one row per benchmark and role; nothing is sent.

    ``prices``: ``{"judge": "2.5/10"}`` per million input/output tokens (``*``: every role).
    ``reasoning_ratio``: reasoning tokens per answer token of a reasoning model under test.
    ``options`` are benchmark options (``trials=10``) as in :func:`creval.evaluate`.
    """
    import pandas as pd

    from creval.evaluation.profile.profiling import ProfileRequest, default_out, plan_profile
    from creval.evaluation.run.plans import plan_runs

    chosen = {r: (p if isinstance(p, Price) else _price(r, p)) for r, p in (prices or {}).items()}
    if profile is not None:
        request = ProfileRequest(model=model, size=profile, lang=lang, preset=preset,
                                 judge=judge, roles=dict(roles or {}),
                                 only=tuple(benchmarks or ()))
        root = Path(out) if out is not None else default_out(request)
        cells = [(model, p) for _, p in plan_profile(request, root)]
    else:
        plans = plan_runs(list(benchmarks or []), dict(options),
                          Path(out) if out is not None else None, model, preset=preset,
                          judge=judge, roles=roles)
        cells = [(model, p) for p in plans]
    costs = plan_costs(cells, judge=judge, roles=roles, concurrency=concurrency, prices=chosen,
                       reasoning_ratio=reasoning_ratio)
    return pd.DataFrame([c.as_dict() for c in costs])
