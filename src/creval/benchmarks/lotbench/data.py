"""LoTbench samples: the documented JSONL format (seed 003, section 5.3) and its loader.

One sample per line::

    {"id": "en-001", "lang": "en",
     "input": "What did the fish on the chopping board say?",   # text input (optional with image)
     "image": null,                                           # image file (optional)
     "caption": "A fish just caught, flopping loudly on a table.",    # C
     "response": "Vibrant [[alarm clock]]",                   # R, key text kappa in [[...]]
     "explanation": "The flopping fish rings like an alarm clock ...",  # Exp
     "clues": ["It is an object at home.", "It makes a sound.", "It is about time."]}

* ``response`` must mark exactly one key text with ``[[...]]``; the tested model sees the
  response with it replaced by ``<MASK>``.
* ``clues`` are the substantive clues, in the order they are given (one every
  ``--clue-every`` rounds). The rounds in between get the empty clue: nothing new.
* ``input`` or ``image`` must be given; ``image`` is a path relative to the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from creval.benchmarks.common import parse_jsonl
from creval.errors import CrevalError

MASK = "<MASK>"
STARTER = "starter_en.jsonl"
_KEY = re.compile(r"\[\[(.+?)\]\]")
EXAMPLE = ('id, caption, response with the key text in [[...]], explanation, clues, and input '
           'or image')


class SampleModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str | int
    lang: str = "en"
    input: str | None = None
    image: str | None = None
    caption: str = Field(min_length=1)
    response: str = Field(min_length=1)
    explanation: str = Field(min_length=1)
    clues: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class Sample:
    """A LoTbench sample with its key text located."""

    id: str
    lang: str
    input: str | None
    image: str | None
    caption: str
    response: str  # R, without the [[ ]] marks
    key: str  # kappa
    masked: str  # R with kappa replaced by <MASK>
    explanation: str
    clues: tuple[str, ...]

    def with_fill(self, fill: str) -> str:
        """R_t: the response with the key text replaced by ``fill``.

        >>> s = parse_sample(SampleModel(id=1, input="q", caption="c",
        ...     response="Vibrant [[alarm clock]]", explanation="e"))
        >>> s.with_fill("cell phone"), s.masked, s.key
        ('Vibrant cell phone', 'Vibrant <MASK>', 'alarm clock')
        """
        return self.masked.replace(MASK, fill)


def key_problem(item: SampleModel) -> str | None:
    """Why a sample's key text marking is unusable, or None."""
    marks = _KEY.findall(item.response)
    if not marks:
        return (f"sample {item.id!r}: the response has no marked key text; mark it as "
                "[[key text]], e.g. \"Vibrant [[alarm clock]]\".")
    if len(marks) > 1:
        return f"sample {item.id!r}: the response marks {len(marks)} key texts; mark exactly one."
    if not marks[0].strip():
        return f"sample {item.id!r}: the marked key text is empty."
    if not (item.input or item.image):
        return f"sample {item.id!r}: give the input text or an image."
    return None


def parse_sample(item: SampleModel, base: Path | None = None) -> Sample:
    problem = key_problem(item)
    if problem:
        raise CrevalError(problem)
    match = _KEY.search(item.response)
    assert match is not None
    image = item.image
    if image and base is not None and not Path(image).is_absolute():
        image = str(base / image)
    if image and not Path(image).is_file():
        raise CrevalError(f"sample {item.id!r}: the image {image} does not exist.")
    return Sample(
        id=str(item.id), lang=item.lang, input=item.input, image=image, caption=item.caption,
        response=_KEY.sub(lambda m: m.group(1), item.response), key=match.group(1).strip(),
        masked=item.response[: match.start()] + MASK + item.response[match.end():],
        explanation=item.explanation, clues=tuple(c.strip() for c in item.clues if c.strip()),
    )


def load_samples(path: str | None) -> list[Sample]:
    """Samples from a JSONL file, or our English starter set when ``path`` is None."""
    if path is None:
        text = (resources.files("creval") / "data" / "lotbench" / STARTER).read_text("utf-8")
        source, base = f"starter set {STARTER}", None
    else:
        file = Path(path)
        if not file.is_file():
            raise CrevalError(f"Samples file {file} does not exist. Pass a JSONL file to --samples.")
        text, source, base = file.read_text(encoding="utf-8"), str(file), file.parent
    items = parse_jsonl(text.splitlines(), SampleModel, source, example=EXAMPLE, check=key_problem)
    return [parse_sample(item, base) for item in items]


def image_data_url(path: str) -> str:
    """A ``data:`` URL of an image file (for backends that accept images)."""
    import base64
    import mimetypes

    mime = mimetypes.guess_type(path)[0] or "image/jpeg"
    return f"data:{mime};base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")
