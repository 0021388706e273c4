"""One Oogiri prompt as one unit of work: distractors from the rewriter, then the questions.

The rewriter (the run's ``rewriter`` role) is called only for distractors the data lacks: the
literal answer (for image prompts, a caption, which needs a rewriter that reads images) and
the rewrite of the best response. Then the tested model answers each choice question and
the ranking question. Answers are stored raw; parsing happens at scoring time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from creval.benchmarks.common import format_prompt
from creval.benchmarks.oogiri.data import Prompt, find_image, image_data_url
from creval.benchmarks.oogiri.questions import (
    CHOICE_TYPES,
    answer_schema,
    build_choice,
    build_ranking,
    format_options,
)
from creval.models.base import Completion, GenerateRequest, ImagePart, Message, TextPart

Generate = Callable[[GenerateRequest], Awaitable[list[Completion]]]
LANGUAGE_NAMES = {"en": "English", "zh": "Chinese", "ja": "Japanese"}


@dataclass(frozen=True)
class Templates:
    choice: tuple[str, str]  # (template, source name)
    rank: tuple[str, str]
    literal: tuple[str, str]
    rewrite: tuple[str, str]


@dataclass(frozen=True)
class Settings:
    lang: str
    questions: tuple[str, ...]  # choice types and/or "rank"
    seed: int
    temperature: float
    max_tokens: int
    rewriter_max_tokens: int
    images_dir: Path | None
    constrain: bool = False  # ask for the answer's JSON shape (when the backend can)


#: lang -> (label of the prompt, label with the image, the image alone)
PROMPT_LABELS = {
    "en": ("Prompt: {q}", "Prompt (with the image above): {q}", "Prompt: the image above."),
    "zh": ("题目：{q}", "题目（配合上面的图片）：{q}", "题目：上面的图片。"),
    "ja": ("お題：{q}", "お題（上の画像とあわせて）：{q}", "お題：上の画像。"),
}


def prompt_text(prompt: Prompt, lang: str = "en") -> str:
    """How the prompt is shown: its question, and a pointer to the image when there is one.

    >>> from creval.benchmarks.oogiri.data import Response
    >>> prompt_text(Prompt("1", "T2T", "猫は何を考えている？", None, (Response("a", 1),)), "ja")
    'お題：猫は何を考えている？'
    """
    text, with_image, image_only = PROMPT_LABELS[lang]
    if prompt.image is None:
        return text.format(q=prompt.question)
    if prompt.question:
        return with_image.format(q=prompt.question)
    return image_only


def _request(text: str, image_url: str | None, **params: Any) -> GenerateRequest:
    if image_url is None:
        message = Message(role="user", content=text)
    else:
        message = Message(role="user", content=[ImagePart(url=image_url), TextPart(text=text)])
    return GenerateRequest(messages=(message,), **params)


def clean_line(text: str) -> str:
    """The first non-empty line of a rewriter answer, without quotes or an ``Answer:`` label.

    >>> clean_line('\\n"Answer: A cat sitting on a mat."\\nMore.')
    'A cat sitting on a mat.'
    """
    for line in text.splitlines():
        line = line.strip().strip('"').strip()
        for label in ("Answer:", "Rewritten answer:", "Rewrite:"):
            if line.lower().startswith(label.lower()):
                line = line[len(label):].strip().strip('"').strip()
        if line:
            return line
    return ""


async def run_prompt(
    prompt: Prompt, unrelated: str | None, settings: Settings, templates: Templates,
    target: Generate, rewriter: Generate, *, target_images: bool, rewriter_images: bool,
    target_structured: bool = False,
) -> dict[str, Any]:
    """Answer every question of one prompt; returns the unit's output.

    With ``settings.constrain`` and a tested backend that constrains decoding, the answers
    are asked for as JSON (:func:`~.questions.answer_schema`); the output records it.
    """
    image_url = None
    if prompt.needs_image:
        if not target_images:
            return {"skipped": "image prompt, and the tested model is text-only"}
        path = find_image(settings.images_dir, prompt.image or "") if settings.images_dir else None
        if path is None:
            return {"skipped": "image file not found (fetch images.zip with `creval data fetch "
                    "oogiri` or pass --images-dir)"}
        image_url = image_data_url(path)
    shown = prompt_text(prompt, settings.lang)
    language = LANGUAGE_NAMES[settings.lang]
    generated: dict[str, Any] = {}
    choice_types = [q for q in settings.questions if q in CHOICE_TYPES]

    async def rewrite_call(kind: str, fields: dict[str, str], with_image: bool) -> str | None:
        template, source = getattr(templates, kind)
        text = format_prompt(template, source, prompt=shown, language=language, **fields)
        request = _request(text, image_url if with_image else None, temperature=0.0,
                           max_tokens=settings.rewriter_max_tokens, seed=settings.seed)
        (completion,) = await rewriter(request)
        generated[kind] = {"raw": completion.text, "text": clean_line(completion.text)}
        return generated[kind]["text"] or None

    literal, rewrite = prompt.literal, prompt.rewrite
    if literal is None and choice_types:
        if prompt.needs_image and not rewriter_images:
            generated["literal"] = {"skipped": "a caption needs a rewriter that reads images"}
        else:
            literal = await rewrite_call("literal", {}, prompt.needs_image)
    if rewrite is None and any(q in ("4T1", "5T2") for q in choice_types):
        rewrite = await rewrite_call("rewrite", {"answer": prompt.responses[0].text},
                                     prompt.needs_image and rewriter_images)
    constrained = settings.constrain and target_structured
    questions: list[dict[str, Any]] = []
    for qtype in choice_types:
        q = build_choice(prompt, qtype, literal=literal, rewrite=rewrite, unrelated=unrelated,
                         seed=settings.seed)
        if isinstance(q, str):
            questions.append({"qtype": qtype, "skipped": q})
            continue
        m, n = CHOICE_TYPES[qtype]
        template, source = templates.choice
        text = format_prompt(
            template, source, prompt=shown, options=format_options([o.text for o in q.options]),
            m=str(m), n=str(n), is_are="is" if n == 1 else "are", s="" if n == 1 else "s",
            example="<letter>" if n == 1 else "<letter>, <letter>",
        )
        (answer,) = await target(_request(
            text, image_url, temperature=settings.temperature, max_tokens=settings.max_tokens,
            seed=settings.seed, response_schema=answer_schema(qtype, m, n) if constrained else None))
        questions.append({**q.to_dict(), "raw": answer.text})
    ranking: dict[str, Any] | None = None
    if "rank" in settings.questions:
        r = build_ranking(prompt, seed=settings.seed)
        if isinstance(r, str):
            ranking = {"skipped": r}
        else:
            template, source = templates.rank
            text = format_prompt(template, source, prompt=shown, options=format_options(r.texts),
                                 example=" > ".join(["<letter>"] * 5))
            (answer,) = await target(_request(
                text, image_url, temperature=settings.temperature,
                max_tokens=settings.max_tokens, seed=settings.seed,
                response_schema=answer_schema("rank", 5, 5) if constrained else None))
            ranking = {**r.to_dict(), "raw": answer.text}
    return {"questions": questions, "ranking": ranking, "generated": generated,
            "constrained": constrained}
