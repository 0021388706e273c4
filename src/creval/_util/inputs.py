"""What a run read, by digest: each item as loaded (its parsed fields in a canonical form) and
each file (its bytes). A bottom layer: benchmarks record these at run time, the application
layer checks them (resume, comparability, ``creval verify``); it imports nothing of creval.

The canonical form of an item does not depend on how its file was written: strings are
Unicode NFC, with line ends as ``\\n`` and surrounding whitespace trimmed, and the fields are
serialised with sorted keys and no spaces, so reordered lines, other JSON separators or CRLF
line ends give the same digests.

>>> a = item_digest({"task": "situation", "question": "  Q?\\r\\n"})
>>> a == item_digest({"question": "Q?", "task": "situation"}), len(a)
(True, 16)
>>> item_digest({"question": "Q!", "task": "situation"}) == a
False
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: The key of a unit's meta (and so of its record's ``unit``) holding its item's digest.
ITEM_DIGEST = "item_digest"
#: Files of a folder digested at most (a data folder, not a disk).
MAX_FOLDER_FILES = 200


def canonical(value: Any) -> Any:
    """``value`` with every string in NFC, ``\\n`` line ends and trimmed; lists, tuples and
    mappings recursively (mapping keys too).

    >>> canonical({" a ": ["x\\r\\n", 1, ("ｶ",)]})
    {'a': ['x', 1, ['ｶ']]}
    """
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value.replace("\r\n", "\n").replace("\r", "\n")).strip()
    if isinstance(value, Mapping):
        return {canonical(str(k)): canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    return value


def item_digest(fields: Mapping[str, Any]) -> str:
    """The digest (16 hex digits of SHA-256) of an item's parsed fields in canonical form."""
    text = json.dumps(canonical(fields), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_record(path: Path) -> dict[str, Any]:
    """What a run records of a file or folder it read: its absolute path and the SHA-256 of
    the file, or of each file of the folder (by relative path, at most
    :data:`MAX_FOLDER_FILES`)."""
    where = path.resolve()
    if where.is_file():
        return {"path": str(where), "sha256": sha256_file(where)}
    files = sorted(p for p in where.rglob("*") if p.is_file() and not p.name.startswith("."))
    return {"path": str(where),
            "files": {str(p.relative_to(where)): sha256_file(p) for p in files[:MAX_FOLDER_FILES]}}


def changed_files(recorded: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """How ``now`` (a :func:`file_record`) differs from ``recorded``: one phrase per file.

    >>> changed_files({"sha256": "a" * 64}, {"sha256": "b" * 64})
    ['sha256 aaaaaaaaaaaa then, bbbbbbbbbbbb now']
    >>> changed_files({"files": {"x": "1", "y": "2"}}, {"files": {"x": "1", "z": "3"}})
    ['y missing', 'z added']
    """
    if "sha256" in recorded or "sha256" in now:
        old, new = str(recorded.get("sha256", "")), str(now.get("sha256", ""))
        return [] if old == new else [f"sha256 {old[:12] or 'none'} then, {new[:12] or 'none'} now"]
    old_files, new_files = dict(recorded.get("files") or {}), dict(now.get("files") or {})
    out = [f"{name} {'differs' if name in new_files else 'missing'}"
           for name, sha in old_files.items() if new_files.get(name) != sha]
    return out + [f"{name} added" for name in new_files if name not in old_files]


def resume_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between the ``inputs`` of a run's manifest (``old``) and those of its
    resume (``new``): items of the same key with other content, and files read for what is
    asked (kind ``generation``: a question file, a prompt file) with other bytes. A file read
    only for scoring may change (it re-scores); another path is another option.

    >>> resume_changes({"units": {"q-1": "a", "q-2": "b"}}, {"units": {"q-1": "a", "q-2": "c"}})
    ['1 item(s) now have other content (q-2)']
    """
    old_units, new_units = old.get("units") or {}, new.get("units") or {}
    items = [k for k, d in new_units.items() if k in old_units and old_units[k] not in (None, d)]
    problems = []
    if items:
        shown = ", ".join(items[:5]) + (f" and {len(items) - 5} more" if len(items) > 5 else "")
        problems.append(f"{len(items)} item(s) now have other content ({shown})")
    new_files = new.get("files") or {}
    for name, then in (old.get("files") or {}).items():
        now = new_files.get(name)
        if then.get("kind") != "generation" or now is None:
            continue
        if changes := changed_files(then, now):
            problems.append(f"the file of --{name.replace('_', '-')} ({now.get('path')}) "
                            f"changed: {', '.join(changes[:5])}")
    return problems
