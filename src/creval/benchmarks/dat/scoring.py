"""Turning DAT answers into scores, shared by ``creval run dat`` and ``creval score dat``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from creval.benchmarks.common import answer_placeholders, load_prompt
from creval.benchmarks.dat.lists import parse_word_list
from creval.metrics.dat import PLACEHOLDER, DATResult, dat_all_valid, dat_olson, summarize_dat
from creval.records import Scores

if TYPE_CHECKING:
    from creval.benchmarks.dat import DATOptions


@lru_cache(maxsize=4)
def _dictionary(path: str | None) -> frozenset[str]:
    from creval.benchmarks.dat.dictionary import default_english_dictionary, load_word_list

    return load_word_list(path) if path else default_english_dictionary()


def _placeholders(options: DATOptions) -> frozenset[str]:
    return answer_placeholders(load_prompt(f"dat_{options.lang}", options.prompt_file))


@dataclass
class DATScorer:
    """Scores word lists with one variant; built once per scoring pass."""

    variant: str
    lang: str
    words: int
    minimum: int
    score_words: Callable[[Sequence[str]], DATResult]
    resources: dict[str, Any]
    #: Why a parsed answer is invalid, or None; by default from ``score_words``. The Japanese
    #: scorer checks validity without embedding (to decide whether to ask again).
    check_words: Callable[[Sequence[str]], str | None] | None = None
    #: Answers that copy the prompt's placeholder word are invalid.
    placeholders: frozenset[str] = frozenset()
    #: The words this scorer accepts, sorted (English: dictionary words with a vector), for
    #: the random-word control; None where the scorer has no word list (Japanese).
    words_accepted: Callable[[], list[str]] | None = None

    def vocabulary(self) -> list[str]:
        """The sorted words this scorer accepts (:attr:`words_accepted`)."""
        if self.words_accepted is None:
            from creval.errors import CrevalError

            raise CrevalError(f"The {self.lang} DAT scorer has no word list to draw random words from.")
        return self.words_accepted()

    def invalid_reason(self, text: str) -> str | None:
        """Why the answer ``text`` is not a valid trial, or None when it is."""
        words = parse_word_list(text, expected=self.words)
        if self.check_words is not None:
            return self.check_words(words)
        return self.score_words(words).reason

    @classmethod
    def from_options(cls, options: DATOptions) -> DATScorer:
        """The scorer of these options; answers that copy the prompt's placeholder word
        (``noun`` in its ``1. noun`` format) are invalid."""
        variant = options.variant
        if variant == "auto":
            variant = "olson" if options.lang == "en" else "all-valid"
        if options.lang == "ja":
            return cls._japanese(options, variant)
        return cls._english(options, variant)

    @classmethod
    def _english(cls, options: DATOptions, variant: str) -> DATScorer:
        from creval.embed import get_word_vectors

        dictionary = _dictionary(options.dictionary)
        placeholders = _placeholders(options)
        # A text file (GloVe 840B is 5.6 GB) is read for the dictionary's words only.
        restrict = None if options.vectors == "glove-6b-50d" else dictionary
        vectors = get_word_vectors(options.vectors, vocabulary=restrict)
        vocabulary = _Vocabulary(dictionary, vectors)
        resources = {
            "vectors": vectors.identity(),
            "dictionary": options.dictionary or "english-words gcide+web2 (offline stand-in "
            "for Olson's words.txt)",
            "dictionary_size": len(dictionary),
        }
        if variant == "olson":
            def score(words: Sequence[str]) -> DATResult:
                return dat_olson(words, vocabulary=vocabulary, vectors=vectors.vectors,
                                 minimum=options.minimum, placeholders=placeholders)
        else:
            from creval.metrics.dat import olson_validate

            def check(word: str) -> str | None:
                if word in placeholders:
                    return PLACEHOLDER
                return None if word in vocabulary else "not in the dictionary with a vector"

            def score(words: Sequence[str]) -> DATResult:
                normal = [olson_validate(w, vocabulary) or w for w in words]
                return dat_all_valid(normal, is_valid=check, embed=vectors.vectors,
                                     expected=options.words)
        def accepted() -> list[str]:
            # set operations, not a lookup per word: the dictionary has ~500,000 entries
            known = set(vectors.words)
            if vectors.lowercase:
                found = {w for w in dictionary if w.lower() in known}
            else:
                found = set(dictionary) & known
            return sorted(found - placeholders)

        return cls(variant, "en", options.words, options.minimum, score, resources,
                   placeholders=placeholders, words_accepted=accepted)

    @classmethod
    def _japanese(cls, options: DATOptions, variant: str) -> DATScorer:
        if variant != "all-valid":
            from creval.errors import CrevalError

            raise CrevalError("The olson variant is English-only; use --variant all-valid for ja.")
        from creval.benchmarks.dat.ja import JapaneseNounChecker
        from creval.embed import get_embedder

        # the paper's check: Japanese script and nouns; proper nouns only on request (its
        # prompt forbids them, its validation does not test for them)
        checker = JapaneseNounChecker(allow_proper_nouns=not options.reject_proper_nouns)
        embedder = get_embedder(options.embedder)
        placeholders = _placeholders(options)

        def check(word: str) -> str | None:
            return PLACEHOLDER if word in placeholders else checker.check(word)

        def score(words: Sequence[str]) -> DATResult:
            return dat_all_valid(words, is_valid=check, embed=embedder.embed,
                                 expected=options.words)

        def validity(words: Sequence[str]) -> str | None:
            import numpy as np

            return dat_all_valid(words, is_valid=check, embed=lambda ws: np.eye(len(ws)),
                                 expected=options.words).reason

        resources = {"embedder": embedder.identity(), "noun_check": "sudachipy (SplitMode.C)",
                     "proper_nouns": "rejected" if options.reject_proper_nouns else "accepted"}
        return cls(variant, "ja", options.words, options.minimum, score, resources, validity,
                   placeholders)

    def score_lists(self, lists: Sequence[tuple[str, Sequence[str]]]) -> Scores:
        """Score already-split word lists ``(key, words)``."""
        results = [(key, self.score_words(words)) for key, words in lists]
        summary = summarize_dat([r for _, r in results])
        table = [
            {
                "key": key,
                "score": None if r.score is None else round(float(r.score), 4),
                "words": ", ".join(r.words),
                "used": ", ".join(r.used),
                "invalid": "; ".join(f"{i.word}: {i.reason}" for i in r.invalid)
                + (f" [{r.reason}]" if r.reason else ""),
            }
            for key, r in results
        ]
        return Scores(
            headline={
                "dat_mean": summary["mean"],
                "dat_std": summary["std"],
                "valid_trials": summary["n_valid"],
                "invalid_trials": summary["n_invalid"],
                "unique_words": summary["n_unique_words"],
            },
            per_item={"dat_mean": [float(r.score) for _, r in results if r.score is not None]},
            resources=self.resources,
            table=table,
            notes=[
                "Invalid trials are excluded from the mean and counted"
                + (": " + ", ".join(f"{why} {n}" for why, n in summary["invalid_reasons"].items())
                   if summary["invalid_reasons"] else "."),
                f"Variant {self.variant}: "
                + (f"first {self.minimum} valid unique words, mean pairwise cosine distance x 100." if self.variant == "olson" else
                   f"all {self.words} words must be valid and distinct, mean pairwise cosine distance."),
            ],
        ).with_extra(summary=dict(summary), trials=[{"key": key, **r.to_dict()} for key, r in results],
                     variant=self.variant, lang=self.lang)

    def score_answers(self, answers: Sequence[tuple[str, str]]) -> Scores:
        """Score raw model answers ``(key, text)``: parse each list, then score."""
        return self.score_lists(
            [(key, parse_word_list(text, expected=self.words)) for key, text in answers]
        )


class _Vocabulary:
    """Olson's vocabulary: dictionary words that also have a vector."""

    def __init__(self, dictionary: frozenset[str], vectors: Any) -> None:
        self._dictionary = dictionary
        self._vectors = vectors

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self._dictionary and word in self._vectors

