"""What the two transformers backends (``hf`` and ``similarity``) share, written once.

Both wrap a sequence-classification model loaded by ``from_pretrained`` from a local
directory or the Hugging Face cache: the same argument checks, one lock around the model,
loading on first use with the same error for a model that is not there, an ``identity()``
that loads the model and fingerprints a local directory, and a ``classify`` that checks the
pairs and runs the model in a worker thread. A subclass says how it loads
(:meth:`TransformersBackend._load`), what its identity holds
(:meth:`TransformersBackend._identity`) and how it classifies a batch under the lock
(:meth:`TransformersBackend._classify_sync`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from creval.errors import CrevalError, require
from creval.nli.base import NLIResult, check_pairs

__all__ = ["TransformersBackend"]


class TransformersBackend:
    """Base of a transformers classifier backend named ``kind:NAME_OR_PATH``."""

    #: ``hf`` or ``similarity``: the spec's prefix and the identity's ``backend``.
    kind = ""
    #: The sentence that ends a "cannot load" error.
    load_hint = (
        "Give a local directory written by save_pretrained, or a model already in the "
        "Hugging Face cache."
    )

    def __init__(self, name: str, *, default: str, device: str, batch_size: int) -> None:
        if not name.strip():
            raise CrevalError(f"{self.kind}: needs a model name or directory, e.g. '{self.kind}:{default}'.")
        if batch_size < 1:
            raise CrevalError(f"batch_size must be at least 1, got {batch_size}.")
        self.name = name.strip()
        self.device = device
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._tokenizer: Any = None
        self._model: Any = None

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _require(self) -> None:
        """transformers and torch, or the error that says which extra to install."""
        purpose = f"{self.kind}: entailment"
        require("transformers", package="transformers", extra="hf", purpose=purpose)
        require("torch", package="torch", extra="hf", purpose=purpose)

    def _pretrained(self, loader: Callable[[str], Any], source: str, what: str) -> Any:
        """``loader(source)``, or a :class:`CrevalError` saying where the model must be."""
        from creval._util.quiet import quiet_hf

        quiet_hf()
        try:
            return loader(source)
        except (OSError, ValueError) as exc:
            raise CrevalError(f"{self.spec}: cannot load the {what} ({exc}). {self.load_hint}") from exc

    def _ready(self, model: Any) -> None:
        """Put the loaded model on the device in inference mode."""
        model.to(self.device)
        model.eval()

    # -- what a subclass writes -----------------------------------------------------------
    spec: str

    def _load(self) -> Any:
        """Load tokenizer and model once (called with the lock held)."""
        raise NotImplementedError

    def _identity(self) -> dict[str, Any]:
        """The backend's own identity fields (called after loading)."""
        raise NotImplementedError

    def _classify_sync(self, pairs: list[tuple[str, str]]) -> list[NLIResult]:
        """One result per checked, non-empty list of pairs (takes the lock itself)."""
        raise NotImplementedError

    # -- shared -------------------------------------------------------------------------------
    def identity(self) -> dict[str, Any]:
        """The subclass's fields; for a local directory a fingerprint of its config,
        tokenizer and weights. Loads the model once."""
        from creval._util.fingerprint import dir_identity

        with self._lock:
            self._load()
        identity = self._identity()
        path = Path(self.name).expanduser()
        if path.is_dir():
            identity.update(dir_identity(path))
        return identity

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        """Classify every pair, ``batch_size`` at a time, in a worker thread."""
        checked = check_pairs(pairs)
        if not checked:
            return []
        return await asyncio.to_thread(self._classify_sync, checked)
