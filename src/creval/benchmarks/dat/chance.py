"""DAT's random-word control: what chance alone scores under the run's own scorer.

Random words are far apart in any embedding space: Bellemare-Pepin et al. (2024) found that
sets of random GloVe words average 89.96, above the mean of 100,000 people (81.04). Beside
every English DAT score creval therefore scores ``--random-lists`` lists of random nouns
drawn from the scorer's own vocabulary (dictionary words with a vector), with the same
scorer, the same rules (``--minimum``, ``--words``, placeholders) and a fixed seed, and
places the model's mean among them (:func:`creval.metrics.chance.chance_placement`).

The nouns: a seeded sample of :data:`CANDIDATES` words of the vocabulary is tagged word by
word with spaCy's English pipeline (Penn tags NN and NNS; the ``pos`` extra), and the lists
are drawn from the nouns found (about 2,000: a random sample of the nouns). Tagging a word
alone is a heuristic (``send`` is a verb, ``epithet`` a noun, some rare words are guessed). Without spaCy, or with ``--random-pos any``, the lists are drawn from the
whole vocabulary, as Bellemare-Pepin et al.'s were, and the note says so. The scores are
cached per scorer, seed, count and tagger (``$CREVAL_CACHE_DIR/dat-chance``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from creval.records import Scores

if TYPE_CHECKING:
    from creval.benchmarks.dat import DATOptions
    from creval.benchmarks.dat.scoring import DATScorer

#: Bump when drawing or scoring the random lists changes (the cache key includes it).
CACHE_VERSION = 1
#: Vocabulary words tagged to find the nouns the lists are drawn from (about half are nouns;
#: tagging is the slow part, about 1 ms a word, so the pool is a sample of the nouns).
CANDIDATES = 4000
NOUN_TAGS = ("NN", "NNS")


def _noun_pool(vocabulary: list[str], size: int, seed: int) -> tuple[list[str], dict[str, Any]]:
    """The nouns among a seeded sample of ``size`` words of ``vocabulary``, and how they were
    found; the whole vocabulary (and why) when spaCy is not installed."""
    import importlib.util

    from creval.metrics.chance import draw_random_lists

    if importlib.util.find_spec("spacy") is None:
        return vocabulary, {"pos": "any", "why": "spaCy is not installed (pip install "
                            "'creval[pos]'): random words, not only nouns"}
    from creval.errors import CrevalError
    from creval.pos.spacy_tagger import SpacyTagger

    sample = list(draw_random_lists(vocabulary, lists=1, words=min(size, len(vocabulary)),
                                    seed=seed)[0])
    tagger = SpacyTagger(batch_size=1000)
    try:
        nlp = tagger.nlp
    except CrevalError as exc:  # no English pipeline: said, and the control still computed
        return vocabulary, {"pos": "any", "why": f"{exc} Random words, not only nouns"}
    # one word a text: only the tagger runs (no parser: there is no sentence to split), and
    # the words are not kept in the POS disk cache (this module caches the scores instead)
    disabled = [p for p in nlp.pipe_names if p not in ("tok2vec", "tagger")]
    with nlp.select_pipes(disable=disabled):
        docs = list(nlp.pipe(sample, batch_size=1000))
    nouns = [w for w, doc in zip(sample, docs, strict=True)
             if len(doc) == 1 and doc[0].tag_ in NOUN_TAGS]
    return nouns, {"pos": "nouns", "tagger": tagger.spec, "tags": list(NOUN_TAGS),
                   "candidates": len(sample), "nouns": len(nouns)}


def random_list_scores(scorer: DATScorer, *, lists: int, seed: int, pos: str = "nouns",
                       use_cache: bool = True) -> tuple[list[float], dict[str, Any]]:
    """The scores of ``lists`` random lists of ``scorer.words`` words from the scorer's
    vocabulary (nouns when ``pos`` is ``nouns`` and spaCy is there), and how they were drawn."""
    from creval._util.paths import cache_root
    from creval.benchmarks.dat.people import scorer_identity
    from creval.metrics.chance import draw_random_lists

    identity = {"version": CACHE_VERSION, "scorer": scorer_identity(scorer), "lists": lists,
                "seed": seed, "pos": pos, "candidates": CANDIDATES if pos == "nouns" else None}
    key = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()[:24]
    path = cache_root() / "dat-chance" / f"{key}.json"
    if use_cache and path.is_file():
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            return [float(v) for v in saved["scores"]], dict(saved["drawn"])
        except (ValueError, KeyError, TypeError):
            pass  # a damaged cache file: draw again
    vocabulary = scorer.vocabulary()
    if pos == "nouns":
        pool, drawn = _noun_pool(vocabulary, CANDIDATES, seed)
    else:
        pool, drawn = vocabulary, {"pos": "any"}
    drawn.update(vocabulary=len(vocabulary), pool=len(pool), seed=seed, lists=lists)
    chosen = draw_random_lists(pool, lists=lists, words=scorer.words, seed=seed)
    scored = [scorer.score_words(list(words)).score for words in chosen]
    values = [round(float(s), 6) for s in scored if s is not None]
    drawn["scored"] = len(values)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
        tmp.write_text(json.dumps({"identity": identity, "scores": values, "drawn": drawn}),
                       encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache: the values are still right, only slower next time
    return values, drawn


def _interval(low: float | None, high: float | None, reason: str | None, digits: int = 1) -> str:
    return f"({reason})" if low is None or high is None else f"[{low:.{digits}f}, {high:.{digits}f}]"


def add_random_control(scores: Scores, scorer: DATScorer, options: DATOptions) -> Scores:
    """``scores`` with ``chance_percentile`` (and ``_low``/``_high``), ``random_mean`` and a
    note: the model's mean among random lists scored by the same scorer; or a note saying
    why there is none."""
    from creval.benchmarks.dat.people import trial_groups
    from creval.metrics.chance import chance_placement

    if options.random_lists == 0:
        return scores
    model = [float(v) for v in scores.per_item.get("dat_mean", []) if v is not None]
    why = ("the Japanese scorer embeds any word and has no word list to draw from"
           if scorer.lang != "en" else "the run has no valid trial" if not model else None)
    if why is not None:
        note = f"Random-word control: not computed: {why}."
        return scores.model_copy(update={"notes": [*scores.notes, note]})
    seed = 0 if options.seed is None else int(options.seed)
    try:
        values, drawn = random_list_scores(scorer, lists=options.random_lists, seed=seed,
                                           pos=options.random_pos)
    except ValueError as exc:  # a vocabulary too small to draw a list from (a test's stand-in)
        note = f"Random-word control: not computed: {exc}"
        return scores.model_copy(update={"notes": [*scores.notes, note]})
    if len(values) < 2:
        note = f"Random-word control: not computed: only {len(values)} random list scored."
        return scores.model_copy(update={"notes": [*scores.notes, note]})
    p = chance_placement(model, values, groups=trial_groups(scores))
    what = ("nouns (spaCy tags NN/NNS of the word alone)" if drawn.get("pos") == "nouns"
            else "words")
    note = (f"Random-word control: the model's mean {p.mean_model:.2f} is above "
            f"{p.percentile:.1f}% {_interval(p.low, p.high, p.reason)} of {p.n_random:,} lists of "
            f"{scorer.words} random {what} from this scorer's vocabulary, scored with the same "
            f"scorer and rules (seed {seed}; random mean {p.mean_random:.2f}, sd "
            f"{p.sd_random or 0:.2f}); model minus random {p.difference:+.2f} "
            f"{_interval(p.difference_low, p.difference_high, p.difference_reason, 2)}. "
            "A model near 50% lists words no more spread than chance.")
    if drawn.get("why"):
        note += f" ({drawn['why']}.)"
    headline = {**scores.headline, "chance_percentile": round(p.percentile, 2),
                "chance_percentile_low": None if p.low is None else round(p.low, 2),
                "chance_percentile_high": None if p.high is None else round(p.high, 2),
                "random_mean": round(p.mean_random, 4)}
    extra = {**{k: (round(v, 6) if isinstance(v, float) else v) for k, v in asdict(p).items()},
             "drawn": drawn}
    updated = scores.model_copy(update={"headline": headline, "notes": [*scores.notes, note]})
    return updated.with_extra(random_control=extra)
