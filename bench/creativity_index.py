"""Creativity Index on a 10M-word local index: one suffix-array search vs the reference two-pointer.

Builds once, into ``<creval cache>/indexes/bench-ci-...`` (outside the repository), a
word-level index (creval's tokenisation + infini-gram's indexer) of the staged MacGyver
problems and solutions (``../shared/data``) plus the Python source (code, docstrings and
comments) of the packages installed in this virtual environment, in sorted path order,
until the corpus holds ``--corpus-words`` words (10M by default). Then scores the same
texts with each method, after one warm-up text each:

- creval: ``LocalIndex.match_ends_many``, one vectorised binary search of the memory-mapped
  suffix array for every word of every text of the batch (:mod:`creval.index.suffix`);
  also timed text by text (``match_ends``);
- before: infini-gram's ``creativity()``, one engine call per text (``engine_match_ends``);
- reference (Lu et al. 2024, ``DJ_search_exact.py``): a two-pointer search of growing spans
  with one ``count()`` query per span, once per L.

Half the texts are corpus documents (long matches: the reference grows many spans), half
are texts from elsewhere (short matches). Every method's L-uniqueness is checked against a
brute-force scan of the corpus's words (no suffix array, no engine) on every text.
Records, as ratios in one run: texts per second of creval over the reference (goal: at
least 10x) and over ``creativity()``, by wall clock and by CPU time (best of ``--repeat``
runs each), and the load average beside them. ``--profile``
prints where each method's time goes (cProfile). Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import math
import os
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from creval._util.paths import cache_root
from creval.index import LocalIndex, build_index, words
from creval.index.words import HALF, separator_id
from creval.metrics.creativity_index import creativity_index, l_uniqueness, spans_from_match_ends

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "creative_eval"
SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
CHARS_PER_WORD = 5.6  # measured on this source text: casual_tokenize gives a word per 5.6 chars


def docs_and_texts(limit: int, seed: int) -> tuple[list[str], list[str], str]:
    """Corpus documents of our own (MacGyver) and the scored texts: half of them copied
    from those documents, half from elsewhere (the starter data when shared data is absent)."""
    macgyver = SHARED / "problem_solving" / "macgyver_solvable_labeled.jsonl"
    rng = random.Random(seed)
    if macgyver.is_file():
        rows = [json.loads(line) for line in macgyver.read_text(encoding="utf-8").splitlines()]
        docs = [r["problem"] for r in rows] + [r["solution"].replace("<br>", " ") for r in rows]
        outside = []
        for path in sorted((SHARED / "creative_writing" / "creativity_index").rglob("*.json")):
            outside += [r["text"] for r in json.loads(path.read_text(encoding="utf-8"))]
        name = "staged MacGyver problems and solutions"
    else:
        from importlib import resources

        data = resources.files("creval") / "data" / "metric_validity"
        docs = [json.loads(x)["text"] for x in (data / "reference_corpus.jsonl").read_text().splitlines()]
        outside = [json.loads(x)["text"] for x in (data / "writing.jsonl").read_text().splitlines()]
        name = "starter reference corpus"
    half = limit // 2
    texts = rng.sample(docs, min(half, len(docs))) + rng.sample(outside, min(limit - half, len(outside)))
    return docs, texts, name


def source_files(corpus_words: int) -> list[Path]:
    """Python files of the installed packages, in path order, about ``corpus_words`` words."""
    budget, chosen = corpus_words * CHARS_PER_WORD * 1.05, []
    for path in sorted(p for p in SITE.rglob("*.py") if p.is_file()):
        chosen.append(path)
        budget -= path.stat().st_size
        if budget <= 0:
            return chosen
    raise SystemExit(f"{SITE} holds fewer than {corpus_words:,} words of Python source.")


def cached_index(docs: list[str], corpus_words: int) -> Path:
    """The bench index, built on first use under the creval cache (never in the repository)."""
    files = source_files(corpus_words)
    key = hashlib.sha256(json.dumps([docs, [(str(p), p.stat().st_size) for p in files]]).encode()).hexdigest()[:12]
    target = cache_root() / "indexes" / f"bench-ci-{corpus_words}-{key}"
    if (target / "creval-index.json").is_file():
        return target
    work = target.with_name(target.name + ".building")
    work.mkdir(parents=True, exist_ok=True)
    source = work / "corpus.jsonl"
    with source.open("w", encoding="utf-8") as out:
        for doc in docs:
            out.write(json.dumps({"text": doc}) + "\n")
        for path in files:
            out.write(json.dumps({"text": path.read_text(encoding="utf-8", errors="replace")}) + "\n")
    print(f"building the bench index from {len(files):,} files into {target} ...", flush=True)
    build_index([str(source)], work / "index", mem_gib=4)
    source.unlink()
    os.replace(work / "index", target)
    work.rmdir()
    return target


def corpus_words_array(index: LocalIndex) -> np.ndarray:
    """The corpus as word ids (-1 between documents), read back from ``tokenized.0``."""
    raw = np.fromfile(index.path / "tokenized.0", dtype=np.uint16 if index.width != "u32" else np.uint32)
    if index.width != "u16x2":
        ids = raw.astype(np.int64)
        ids[raw == separator_id(index.width)] = -1
        return ids
    is_sep = raw == separator_id("u16x2")
    word_starts = np.flatnonzero(~is_sep)[0::2]
    out = np.full(len(raw), -2, dtype=np.int64)
    out[is_sep] = -1
    out[word_starts] = raw[word_starts].astype(np.int64) * HALF + raw[word_starts + 1] - HALF
    return out[out != -2]


def brute_force_ends(corpus: np.ndarray, ids: list[int]) -> list[int]:
    """The longest match at each word by scanning every corpus position with its first word."""
    q = np.asarray(ids, dtype=np.int64)
    present = np.isin(corpus, np.unique(q))
    where, which = np.flatnonzero(present), corpus[present]
    ends = []
    for i in range(len(q)):
        cands, k = where[which == q[i]], 1
        while len(cands) and i + k < len(q):
            cands = cands[(cands + k < len(corpus))]
            cands = cands[corpus[cands + k] == q[i + k]]
            if len(cands):
                k += 1
        ends.append(i + k if len(where[which == q[i]]) else i)
    return ends


def timed(label: str, run: Callable[[], Any], repeat: int, profile: bool) -> tuple[Any, float, float]:
    """The answer and the best of ``repeat`` wall-clock and CPU timings (CPU time of all the
    process's threads: it varies less than wall time on a shared machine); with ``profile``,
    one more run under cProfile prints where the time goes."""
    best = cpu = math.inf
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = run()
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    if profile:
        profiler = cProfile.Profile()
        profiler.runcall(run)
        print(f"--- where the time goes: {label} (best run {best:.3f} s; under cProfile) ---")
        pstats.Stats(profiler).sort_stats("tottime").print_stats(8)
    return out, best, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=40)
    parser.add_argument("--min-l", type=int, default=5)
    parser.add_argument("--max-l", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus-words", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5, help="timings per method; the best is kept")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top entries per method")
    args = parser.parse_args()
    docs, texts, name = docs_and_texts(args.texts, args.seed)
    index = LocalIndex(cached_index(docs, args.corpus_words))
    manifest = index.manifest
    tokenized = [t for t in (words(x) for x in texts) if len(t) > args.max_l]
    lengths = range(args.min_l, args.max_l + 1)
    n = len(tokenized)

    def score(ends: list[list[int]]) -> list[dict[int, float]]:
        return [creativity_index(len(t), spans_from_match_ends(e), min_l=args.min_l, max_l=args.max_l).uniqueness
                for t, e in zip(tokenized, ends, strict=True)]

    def reference() -> list[dict[int, float]]:
        return [{length: l_uniqueness(len(t), index.reference_spans(t, min_length=length), min_length=length)
                 for length in lengths} for t in tokenized]

    # Warm the page cache and every code path on one text first.
    index.match_ends_many(tokenized[:1])
    index.engine_match_ends(tokenized[0])
    index.reference_spans(tokenized[0], min_length=args.min_l)
    load = os.getloadavg()
    index.queries = 0
    batch, batch_s, batch_c = timed("creval, one batch", lambda: score(index.match_ends_many(tokenized)), args.repeat, args.profile)
    assert index.queries == n * (args.repeat + args.profile)  # one query per text
    each, each_s, each_c = timed("creval, text by text", lambda: score([index.match_ends(t) for t in tokenized]), args.repeat, args.profile)
    before, before_s, before_c = timed("creativity(), text by text",
                             lambda: score([index.engine_match_ends(t) for t in tokenized]), args.repeat, args.profile)
    index.queries = 0
    ref, ref_s, ref_c = timed("reference two-pointer", reference, args.repeat, args.profile)
    ref_queries = index.queries // (args.repeat + args.profile)
    load = tuple(max(a, b) for a, b in zip(load, os.getloadavg(), strict=True))

    start = time.perf_counter()
    corpus = corpus_words_array(index)
    truth = score([brute_force_ends(corpus, [index.vocab.ids.get(w, -3) for w in t]) for t in tokenized])
    brute_s = time.perf_counter() - start

    def mismatches(got: list[dict[int, float]]) -> int:
        return sum(abs(g[length] - b[length]) > 1e-12 for g, b in zip(got, truth, strict=True) for length in lengths)

    checks = n * len(lengths)
    print(f"corpus: {name} + Python source of {SITE}: {manifest['documents']:,} documents, "
          f"{manifest['words']:,} words, vocabulary {manifest['vocabulary']:,} ({manifest['id_width']})")
    print(f"index: {index.path} (build {manifest['seconds']} s, {manifest['words_per_second']:,} words/s)")
    print(f"texts scored: {n} (L = {args.min_l}..{args.max_l}), mean {sum(map(len, tokenized)) / n:.0f} words; "
          f"load average (1, 5, 15 min, highest seen) {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    print(f"reference: {ref_queries / n:.1f} count() queries per text")
    rows = (("creval, one batch", batch, batch_s, batch_c), ("creval, text by text", each, each_s, each_c),
            ("creativity(), text by text", before, before_s, before_c),
            ("reference two-pointer", ref, ref_s, ref_c))
    for label, got, seconds, cpu in rows:
        print(f"{label:28s} {n / seconds:9,.1f} texts/s  {ref_s / seconds:6.1f}x the reference "
              f"(CPU time: {n / cpu:9,.1f} texts/s, {ref_c / cpu:6.1f}x)  "
              f"mismatches vs brute force {mismatches(got)} of {checks}")
    print(f"brute-force check: {brute_s:.1f} s")
    return 1 if mismatches(batch) or mismatches(each) or mismatches(ref) else 0


if __name__ == "__main__":
    sys.exit(main())
