"""The public infini-gram API as a reference corpus (``--index api:NAME``).

For the web-scale corpora of the papers (for example ``api:v4_rpj_llama_s4``, the one the
Creativity Index reference code queries). Words are split as for a local index; a span
of words is sent as text, joined back with the Moses detokenizer as the reference code
does, and the API counts it under the corpus's own tokenizer. One ``count`` request per
span: the longest match at each position is found with a sliding window that never
shrinks (a match's every suffix matches too), starting at ``min_length`` words, so a
text costs about ``2n`` requests whatever the L range.

Rate limits (HTTP 429), server errors and timeouts are retried with exponential backoff;
after the last retry the text fails with an error. A failed request is never read as
"no match", which would count the words as novel.
"""

from __future__ import annotations

import time
from typing import Any

from creval.errors import CrevalError, require
from creval.index.words import words

API_URL = "https://api.infini-gram.io/"


class RemoteIndex:
    """``api:NAME``: counts from the infini-gram API (or a compatible ``url``)."""

    def __init__(self, corpus: str, *, url: str = API_URL, retries: int = 5, backoff: float = 1.0,
                 timeout: float = 30.0, min_length: int = 5) -> None:
        require("sacremoses", package="sacremoses", extra="index", purpose="Querying the infini-gram API")
        import httpx
        from sacremoses import MosesDetokenizer

        if not corpus:
            raise CrevalError("Name the API corpus: --index api:NAME (e.g. api:v4_rpj_llama_s4).")
        self.corpus, self.url, self.retries, self.backoff = corpus, url, retries, backoff
        self.min_length = min_length
        self.queries = 0
        self._client = httpx.Client(timeout=timeout)
        self._detokenize = MosesDetokenizer(lang="en").detokenize

    words = staticmethod(words)

    def identity(self) -> dict[str, Any]:
        return {"kind": "infini-gram API", "url": self.url, "corpus": self.corpus,
                "tokenizer": "words as for a local index, sent as Moses-detokenized text",
                "words": None}

    def count(self, tokens: list[str]) -> int:
        """Occurrences of the span in the corpus, after retries; raises when the API fails."""
        import httpx

        payload = {"corpus": self.corpus, "engine": "c++", "query_type": "count",
                   "query": self._detokenize(tokens)}
        problem = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            self.queries += 1
            try:
                response = self._client.post(self.url, json=payload)
            except httpx.HTTPError as exc:
                problem = f"{type(exc).__name__}: {exc}"
                continue
            if response.status_code == 429 or response.status_code >= 500:
                problem = f"HTTP {response.status_code}"
                continue
            try:
                answer = response.json()
            except ValueError:
                problem = f"HTTP {response.status_code}, not JSON"
                continue
            if response.status_code == 200 and isinstance(answer.get("count"), int):
                return int(answer["count"])
            raise CrevalError(f"The infini-gram API refused the query: {answer.get('error', answer)}")
        raise CrevalError(f"The infini-gram API at {self.url} failed after {self.retries} retries ({problem}).")

    def match_ends(self, tokens: list[str]) -> list[int]:
        """End of the longest match at each position when it has ``min_length`` words or
        more; otherwise the position itself (shorter matches do not count for any L used)."""
        n, ends, right = len(tokens), [], 0
        for left in range(n):
            if right < left + self.min_length:
                if left + self.min_length > n or self.count(tokens[left:left + self.min_length]) == 0:
                    ends.append(left)
                    continue
                right = left + self.min_length
            while right < n and self.count(tokens[left:right + 1]) > 0:
                right += 1
            ends.append(right)
        return ends


def open_index(spec: str | None, *, min_length: int = 1) -> Any:
    """A local index folder, ``api:NAME`` or ``api:NAME@URL``; None: the starter index."""
    from creval.index.local import LocalIndex

    if spec and spec.startswith("api:"):
        corpus, _, url = spec[4:].partition("@")
        return RemoteIndex(corpus, url=url or API_URL, min_length=min_length)
    if spec is None:
        from creval.index.starter import starter_index_dir

        return LocalIndex(starter_index_dir())
    return LocalIndex(spec)
