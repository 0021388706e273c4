"""Fingerprints of local model directories, shared by every backend that loads one (a bottom
layer: models, NLI and embedders use it, it imports nothing of creval)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

_WEIGHT_SUFFIXES = {".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".gguf"}
_TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "chat_template.jinja",
    "chat_template.json",
    "tokenizer.model",
    "vocab.json",
    "merges.txt",
)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def dir_identity(path: Path) -> dict[str, Any]:
    """A local model directory's fingerprint: hashes of config.json and of the tokenizer
    files (they hold the chat template), and the weight files' sizes."""
    out: dict[str, Any] = {}
    config = path / "config.json"
    if config.is_file():
        out["config_sha256"] = _sha256(config)
    tok = hashlib.sha256()
    for name in _TOKENIZER_FILES:
        f = path / name
        if f.is_file():
            tok.update(name.encode("utf-8") + b"\0" + f.read_bytes() + b"\0")
    out["tokenizer_sha256"] = tok.hexdigest()
    out["weights"] = {
        f.relative_to(path).as_posix(): f.stat().st_size
        for f in sorted(path.rglob("*"))
        if f.is_file() and f.suffix in _WEIGHT_SUFFIXES
    }
    return out


def cached_revision(name: str) -> str | None:
    """The commit of a hub model's snapshot in the local Hugging Face cache, if any."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - comes with transformers
        return None
    try:
        found = try_to_load_from_cache(name, "config.json")
    except ValueError:  # not a valid repo id
        return None
    if isinstance(found, str) and Path(found).parent.parent.name == "snapshots":
        return Path(found).parent.name
    return None


def weights_identity(name: str) -> dict[str, Any]:
    """What identifies the weights ``name`` names without loading them: a local directory's
    fingerprint (:func:`dir_identity`), else a hub name's cached snapshot revision (nothing
    when it is not cached).

    >>> weights_identity("no-such-org/no-such-model-here")
    {}
    """
    path = Path(name).expanduser()
    if path.is_dir():
        return dir_identity(path)
    revision = cached_revision(name)
    return {} if revision is None else {"revision": revision}
