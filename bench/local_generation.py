"""Generation speed of the ``local`` backend beside bare llama-cpp-python, in one run.

Every variant generates the same chat requests (SmolLM2-135M-Instruct, the packaged GGUF;
temperature 1, top-p 0.9, seeds fixed) and must give the same texts as the bare loop:

* ``bare``: llama-cpp-python's ``create_chat_completion`` called in a plain loop on the main
  thread (the engine, the baseline);
* ``creval, 1 stream``: creval's ``local`` backend as the runner drives it, one request at a
  time (the llama.cpp thread, the batch engine with one sequence);
* ``creval, K in flight``: the same requests sent at once, K decoded together;
* ``n shared`` vs ``n apart``: one request of ``n`` samples (one prompt evaluation copied to
  every sample) vs ``n`` one-sample requests in flight at once (a prompt evaluation each),
  with a longer prompt, where the evaluation weighs.

Each variant runs at ``--threads`` 1 and 2 (``--thread-counts``). ``creval, K in flight, R
copies x 1 thr`` (``--replica-counts``) is ``--threads 1 --replicas R``: R one-thread copies of
the model, compared with one copy of R threads (the same cores). Rounds interleave the
variants; medians of wall-clock and of process CPU time (every thread of the process; steadier
on a shared machine) are compared as ratios within the run. The load average before and after
is printed: on a machine shared with other jobs the wall-clock ratios are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from creval.models import GenerateRequest, ModelOptions, get_model
from creval.models.local import LocalModel, _chat_kwargs, _messages, _seed, default_model_path

PROMPTS = [
    "Name three unusual uses for a brick.",
    "Write a short poem about a lighthouse keeper.",
    "Describe a sport that could be played on the Moon.",
    "Invent a new holiday and say how people celebrate it.",
    "What could a city do with its empty parking garages?",
    "Tell a very short story about a lost umbrella.",
    "Suggest a creative name for a bakery run by robots, and explain it.",
    "List four surprising ways to use an old bicycle wheel.",
]
LONG_PROMPT = (
    "You are helping a design workshop. The participants have spent the morning studying how "
    "people in a small coastal town use their public spaces: the harbour wall where fishermen "
    "mend nets, the covered market that is empty after noon, the school yard that is locked at "
    "weekends, the old railway platform that no train has stopped at for thirty years, and the "
    "steep lanes that connect the upper town to the sea. They noticed that older residents rarely "
    "go down to the harbour because the lanes are hard to climb back up, that teenagers gather "
    "at the bus shelter because there is nowhere else to sit, and that tourists crowd the same "
    "two cafes in summer while the rest of the town stays quiet. Propose one unusual idea that "
    "would bring these groups together in one of these places, in two or three sentences."
)


def requests(args: argparse.Namespace) -> list[GenerateRequest]:
    return [
        GenerateRequest.chat(PROMPTS[i % len(PROMPTS)], seed=100 + i, max_tokens=args.max_tokens,
                             temperature=1.0, top_p=0.9)
        for i in range(args.requests)
    ]


#: per request, (text, output tokens) of each sample
Answers = list[list[tuple[str, int]]]
Runner = Callable[[list[GenerateRequest]], Answers]


def bare_runner(threads: int, n_ctx: int) -> tuple[Any, Runner]:
    from llama_cpp import Llama

    llm = Llama(model_path=str(default_model_path()), n_ctx=n_ctx, n_threads=threads,
                n_threads_batch=threads, verbose=False)

    def run(batch: list[GenerateRequest]) -> Answers:
        out = []
        for request in batch:
            texts = []
            for i in range(request.n):
                llm.reset()
                response = llm.create_chat_completion(
                    _messages(request), **_chat_kwargs(request, _seed(request.seed, i)))
                texts.append((response["choices"][0]["message"]["content"],
                              response["usage"]["completion_tokens"]))
            out.append(texts)
        return out

    return llm, run


def creval_runner(model: LocalModel, in_flight: bool) -> Runner:
    async def go(batch: list[GenerateRequest]) -> Answers:
        if in_flight:
            answers = await asyncio.gather(*(model.generate(r) for r in batch))
        else:
            answers = [await model.generate(r) for r in batch]
        return [[(c.text, c.usage.output_tokens) for c in a] for a in answers]

    return lambda batch: asyncio.run(go(batch))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=16, help="chat requests (default 16)")
    parser.add_argument("--max-tokens", type=int, default=64, help="tokens per answer (default 64)")
    parser.add_argument("--n", type=int, default=8, help="samples of the shared-prompt request (default 8)")
    parser.add_argument("--n-tokens", type=int, default=32, help="tokens per sample there (default 32)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    parser.add_argument("--thread-counts", default="1,2", help="llama.cpp threads to compare (default 1,2)")
    parser.add_argument("--in-flight", type=int, default=8, help="sequences decoded together (default 8)")
    parser.add_argument("--replica-counts", default="2",
                        help="one-thread copies to compare with one copy of as many threads (default 2; '' for none)")
    args = parser.parse_args()
    counts = [int(t) for t in args.thread_counts.split(",")]
    n_ctx = 4096
    plain = requests(args)
    shared = GenerateRequest.chat(LONG_PROMPT, n=args.n, seed=7, max_tokens=args.n_tokens,
                                  temperature=1.0, top_p=0.9)
    apart = [shared.with_n(1, seed=7 + i) for i in range(args.n)]

    variants: dict[str, tuple[Runner, list[GenerateRequest]]] = {}
    baseline: dict[str, str] = {}
    keep: list[Any] = []  # the bare instances
    models: list[LocalModel] = []
    for t in counts:
        llm, bare = bare_runner(t, n_ctx)
        keep.append(llm)
        model = get_model("local", ModelOptions(threads=t, n_ctx=n_ctx, concurrency=args.in_flight))
        assert isinstance(model, LocalModel)
        models.append(model)
        one, many = creval_runner(model, in_flight=False), creval_runner(model, in_flight=True)
        names = [f"bare, {t} thr", f"creval, 1 stream, {t} thr",
                 f"creval, {args.in_flight} in flight, {t} thr", f"n={args.n} apart, {t} thr",
                 f"n={args.n} shared, {t} thr"]
        for name, runner, batch, base in zip(
            names, [bare, one, many, many, many], [plain, plain, plain, apart, [shared]],
            [f"bare, {counts[0]} thr", names[0], names[1], names[3], names[3]], strict=True,
        ):
            variants[name] = (runner, batch)
            baseline[name] = base
    for r in [int(x) for x in args.replica_counts.split(",") if x]:
        model = get_model("local", ModelOptions(threads=1, replicas=r, n_ctx=n_ctx,
                                                concurrency=args.in_flight))
        assert isinstance(model, LocalModel)
        models.append(model)
        name = f"creval, {args.in_flight} in flight, {r} copies x 1 thr"
        variants[name] = (creval_runner(model, in_flight=True), plain)
        same_cores = f"creval, {args.in_flight} in flight, {r} thr"
        baseline[name] = same_cores if same_cores in variants else f"bare, {counts[0]} thr"

    load_before = os.getloadavg()
    expected: dict[str, Answers] = {}
    out_tokens: dict[str, int] = {}
    for name, (run, batch) in variants.items():  # warm-up, and the texts every variant must give
        answers = run(batch)
        out_tokens[name] = sum(k for answer in answers for _, k in answer)
        texts = [t for answer in answers for t, _ in answer]
        key = "plain" if batch is plain else "n samples"
        if key not in expected:
            expected[key] = answers
        mine = [t for answer in expected[key] for t, _ in answer]
        if texts != mine:
            diff = sum(a != b for a, b in zip(texts, mine, strict=True))
            print(f"NOTE {name}: {diff} of {len(texts)} texts differ from {list(variants)[0]}'s")
    wall: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.rounds):
        for name, (run, batch) in variants.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            run(batch)
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    load_after = os.getloadavg()
    for model in models:
        asyncio.run(model.aclose())
    print(f"{args.requests} requests of <= {args.max_tokens} tokens; n = {args.n} samples of "
          f"<= {args.n_tokens} tokens on a {len(LONG_PROMPT.split())}-word prompt; {args.rounds} rounds; "
          f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")
    print("| variant | tokens | median wall (tokens/s) | rounds | median CPU | ratio (wall) | ratio (CPU) | vs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, base in baseline.items():
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        bw, bc = statistics.median(wall[base]), statistics.median(cpu[base])
        rounds = ", ".join(f"{v:.1f}" for v in wall[name])
        print(f"| {name} | {out_tokens[name]} | {w:.2f} s ({out_tokens[name] / w:.1f}) | {rounds} | {c:.2f} s "
              f"| {bw / w:.2f} | {bc / c:.2f} | {base} |")
    print("ratio: the baseline's time / the variant's (above 1: the variant is faster)")


if __name__ == "__main__":
    main()
