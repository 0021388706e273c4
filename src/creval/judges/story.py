"""The Story Alteration Task's 1-5 creativity judge (seed 004, appendix C, Table 22).

The judge is shown the original tale and one modern rewrite and answers with one number
from 1 (not creative at all) to 5 (extremely creative); a model's judge score is the mean
rating over its stories divided by 5. Our wording asks for the same thing as the paper's
prompt; users can load the published wording from a file (placeholders ``{original}`` and
``{rewrite}``). The parser is strict: the answer must be one integer in 1..5, alone (a
trailing period is allowed); anything else is a parse failure kept with the raw text.
With ``structured=True`` (the judge's backend can constrain decoding) the answer is asked
for as ``{"rating": n}`` (:func:`rating_schema`) and its number goes to the same parser.

>>> parse_rating("4")
(4, None)
>>> parse_rating("I would say 4 or 5")
(None, 'expected one number from 1 to 5, got: I would say 4 or 5')
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.judges.structured import as_text
from creval.models.base import Completion, GenerateRequest

GenerateFn = Callable[[GenerateRequest], Awaitable[list[Completion]]]

STORY_RATING_PROMPT = """\
Rate how creative the modern version of the story is, given the original story, on a scale \
of 1, 2, 3, 4, 5. Output only the number.

Scale:
1: not creative at all
2: slightly creative
3: creative
4: very creative
5: extremely creative

# Original story

{original}

# Modern version

{rewrite}
"""

def rating_schema() -> dict[str, object]:
    """``{"rating": 1..5}`` (an object: OpenAI-compatible servers want one at the top)."""
    return {"type": "object", "properties": {"rating": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
            "required": ["rating"], "additionalProperties": False}  # fmt: skip


def render_rating(value: Any) -> str:
    """``{"rating": 4}`` -> ``4`` (the value as it came, for :func:`parse_rating`)."""
    return str(value["rating"])


_RATING = re.compile(r"^\s*([1-5])\s*\.?\s*$")


def parse_rating(text: str) -> tuple[int | None, str | None]:
    """``(rating, None)`` for an answer that is one integer in 1..5, else ``(None, why)``.

    Full-width digits count (``"５"`` is 5).
    """
    match = _RATING.match(unicodedata.normalize("NFKC", text))
    if match is None:
        return None, f"expected one number from 1 to 5, got: {text.strip()[:80]}"
    return int(match.group(1)), None


@dataclass(frozen=True)
class StoryRating:
    """One judgement: the rating (None when the answer did not parse) and the raw answer."""

    rating: int | None
    raw: str
    error: str | None = None


@dataclass
class StoryRatingJudge:
    """Rates a rewrite's creativity against its original, 1..5, with one model call."""

    generate: GenerateFn
    prompt: str = STORY_RATING_PROMPT
    max_tokens: int = 8
    seed: int | None = 0
    #: Ask for ``{"rating": n}`` (a backend that can constrain decoding); ``max_tokens``
    #: then has 8 more tokens for the JSON around the number.
    structured: bool = False

    @classmethod
    def create(cls, generate: GenerateFn, *, prompt_file: str | None = None,
               structured: bool = False) -> StoryRatingJudge:  # fmt: skip
        """The judge with our wording, or the wording in ``prompt_file``."""
        if prompt_file is None:
            return cls(generate, structured=structured)
        path = Path(prompt_file)
        if not path.is_file():
            raise CrevalError(f"Judge prompt file {path} does not exist. Pass a text file to --judge-prompt.")
        text = path.read_text(encoding="utf-8")
        missing = [name for name in ("{original}", "{rewrite}") if name not in text]
        if missing:
            raise CrevalError(f"Judge prompt file {path} lacks {' and '.join(missing)}; put both "
                              "placeholders where the stories go.")
        return cls(generate, prompt=text, structured=structured)

    async def evaluate(self, original: str, rewrite: str) -> StoryRating:
        """Rate ``rewrite`` against ``original``."""
        text = self.prompt.replace("{original}", original).replace("{rewrite}", rewrite)
        if self.structured:
            request = GenerateRequest.chat(text, temperature=0.0, max_tokens=self.max_tokens + 8,
                                           seed=self.seed, response_schema=rating_schema())  # fmt: skip
        else:
            request = GenerateRequest.chat(text, temperature=0.0, max_tokens=self.max_tokens, seed=self.seed)
        [completion, *_] = await self.generate(request)
        answer = as_text(completion.text, render_rating) if self.structured else completion.text
        rating, error = parse_rating(answer)
        return StoryRating(rating, completion.text, error)
