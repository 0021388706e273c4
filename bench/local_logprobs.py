"""Cost of log-probabilities in the ``local`` backend: plain generation vs ``logprobs=True``.

The same seeded request (SmolLM2-135M, ``n`` samples of ``max_tokens`` tokens, temperature 1,
top-p 0.9, the settings of semantic-entropy sampling) is generated plain and with
log-probabilities of the model's distribution and of the sampler's (``logprob_source``),
with and without top alternatives. Every variant is warmed up once (this loads the plain and
the ``logits_all`` llama.cpp instances), then rounds alternate between the variants and
medians of wall-clock and of process CPU time (less sensitive to other jobs on a shared
machine) are compared with plain generation in the same run. Each variant is checked to give
the same texts as plain generation. Goal: at most 1.3x plain.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from creval.models import GenerateRequest, ModelOptions, get_model

PROMPT = "Describe, in a few sentences, an unusual invention that could change daily life."


def variants(args: argparse.Namespace) -> dict[str, GenerateRequest]:
    base = GenerateRequest.chat(
        PROMPT, n=args.n, max_tokens=args.max_tokens, temperature=1.0, top_p=0.9, seed=args.seed
    )
    with_logprobs = base.model_copy(update={"logprobs": True})
    return {
        "plain": base,
        "logprobs, model": with_logprobs,
        "logprobs, model, top 5": with_logprobs.model_copy(update={"top_logprobs": 5}),
        "logprobs, sampling": with_logprobs.model_copy(update={"logprob_source": "sampling"}),
        "logprobs, sampling, top 5": with_logprobs.model_copy(
            update={"logprob_source": "sampling", "top_logprobs": 5}
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=4, help="samples per request (default 4)")
    parser.add_argument("--max-tokens", type=int, default=64, help="tokens per sample (default 64)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per variant (default 3)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: half the CPUs)")
    parser.add_argument("--only", nargs="*", default=None, help="variants to time besides plain")
    args = parser.parse_args()
    model = get_model("local", ModelOptions(threads=args.threads))
    requests = variants(args)
    if args.only is not None:
        requests = {k: v for k, v in requests.items() if k == "plain" or k in args.only}
    texts: dict[str, list[str]] = {}
    for name, request in requests.items():  # warm-up: loads both llama.cpp instances
        texts[name] = [c.text for c in asyncio.run(model.generate(request))]
    non_empty = sum(len(t) > 0 for t in texts["plain"])
    for name, got in texts.items():
        if got != texts["plain"]:
            raise AssertionError(f"{name!r} generated other texts than plain generation")
    wall: dict[str, list[float]] = {name: [] for name in requests}
    cpu: dict[str, list[float]] = {name: [] for name in requests}
    for _ in range(args.rounds):
        for name, request in requests.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            completions = asyncio.run(model.generate(request))
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
            assert [c.text for c in completions] == texts["plain"]
    asyncio.run(model.aclose())
    plain, plain_cpu = statistics.median(wall["plain"]), statistics.median(cpu["plain"])
    print(f"n = {args.n}, max_tokens = {args.max_tokens}, seed {args.seed}, {args.rounds} rounds "
          f"({non_empty} non-empty samples; texts identical across variants)")
    print("| request | median time | rounds | time vs plain | median CPU time | CPU vs plain |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, values in wall.items():
        median, median_cpu = statistics.median(values), statistics.median(cpu[name])
        rounds = ", ".join(f"{v:.2f}" for v in values)
        print(f"| {name} | {median:.2f} s | {rounds} | {median / plain:.2f}x "
              f"| {median_cpu:.2f} s | {median_cpu / plain_cpu:.2f}x |")


if __name__ == "__main__":
    main()
