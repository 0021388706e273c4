"""Build a word-level local infini-gram index from JSONL, plain text or a HF dataset.

creval tokenises the documents itself (:mod:`creval.index.words`), writes the indexer's
``tokenized.0`` (documents as word ids, each preceded by the separator id) and ``offset.0``
(the byte offset of every document, u64), saves the vocabulary, and then runs the
``infini-gram`` package's own indexer (``python -m infini_gram.indexing``), which finds
those files, skips its tokenisation step (so it needs no ``transformers``) and builds the
suffix array ``table.0`` with its bundled ``rust_indexing`` binary.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from creval.errors import CrevalError, require
from creval.index.words import (
    TOKEN_DTYPE,
    TOKENIZER_NAME,
    WIDTH_BYTES,
    IdWidth,
    Vocabulary,
    max_vocabulary,
    separator_id,
    word_tokens,
    words,
)

MANIFEST = "creval-index.json"
VOCAB = "vocab.json"
FORMAT_VERSION = 1
TEXT_SUFFIXES = (".txt", ".md")
JSONL_SUFFIXES = (".jsonl", ".json")


def _jsonl_texts(path: Path, field: str) -> Iterator[str]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CrevalError(f"{path}:{number}: not a JSON object ({exc.msg}).") from None
            value = row.get(field) if isinstance(row, dict) else None
            if not isinstance(value, str):
                raise CrevalError(
                    f"{path}:{number}: no string field {field!r}. Pass --text-field NAME."
                )
            yield value


def _hf_texts(spec: str, field: str) -> Iterator[str]:
    require("datasets", package="datasets", extra="data", purpose="Indexing a Hugging Face dataset")
    import datasets

    name, _, split = spec.removeprefix("hf:").partition(":")
    try:
        data = datasets.load_dataset(name, split=split or "train", streaming=True)
    except Exception as exc:  # the hub or the dataset is unavailable
        raise CrevalError(f"Cannot load the Hugging Face dataset {name!r}: {exc}") from None
    for row in data:
        value = row.get(field)
        if isinstance(value, str):
            yield value


def _files(source: str) -> list[Path]:
    path = Path(source)
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.suffix in TEXT_SUFFIXES + JSONL_SUFFIXES)
        if not found:
            raise CrevalError(f"{path} holds no .txt, .md, .jsonl or .json file to index.")
        return found
    if not path.is_file():
        raise CrevalError(f"Source {source} does not exist. Pass JSONL or text files, folders, or hf:NAME.")
    return [path]


def iter_documents(sources: list[str], *, text_field: str = "text") -> Iterator[str]:
    """Every document of the sources: a JSONL line's ``text_field``, a whole text file,
    or a row of a Hugging Face dataset (``hf:NAME[:SPLIT]``)."""
    for source in sources:
        if source.startswith("hf:"):
            yield from _hf_texts(source, text_field)
            continue
        for path in _files(source):
            if path.suffix in JSONL_SUFFIXES:
                yield from _jsonl_texts(path, text_field)
            else:
                yield path.read_text(encoding="utf-8")


def _write_ids(out: Path, documents: Iterator[str], vocab: Vocabulary,
               progress: Callable[[int], None]) -> tuple[int, int]:
    """Write documents as u32 ids (separator first) to ``out``; returns (docs, words)."""
    import numpy as np

    sep = separator_id("u32")
    n_docs = n_words = 0
    with out.open("wb") as handle:
        for text in documents:
            tokens = words(text)
            if not tokens:
                continue
            ids = [sep, *(vocab.add(t) for t in tokens)]
            handle.write(np.asarray(ids, dtype=np.uint32).tobytes())
            n_docs += 1
            n_words += len(tokens)
            progress(len(tokens))
    return n_docs, n_words


def _finish_files(tmp: Path, out_dir: Path, width: str) -> None:
    """Convert the u32 ids to the final width and write ``tokenized.0`` and ``offset.0``."""
    import numpy as np

    ids = np.fromfile(tmp, dtype=np.uint32)
    sep32 = separator_id("u32")
    final: Any = ids
    if width == "u16":
        final = ids.astype(np.uint16)
        final[ids == sep32] = separator_id("u16")
    elif width == "u16x2":  # a separator stays one token, a word becomes two
        is_sep = ids == sep32
        per_id = np.where(is_sep, 1, 2)
        final = np.empty(int(per_id.sum()), dtype=np.uint16)
        at = np.cumsum(per_id) - per_id
        final[at[is_sep]] = separator_id("u16x2")
        pairs = word_tokens(ids[~is_sep].astype(np.int64), width)
        word_at = at[~is_sep]
        final[word_at] = pairs[0::2]
        final[word_at + 1] = pairs[1::2]
    starts = np.flatnonzero(final == separator_id(width))
    final.tofile(out_dir / "tokenized.0")
    (starts.astype(np.uint64) * WIDTH_BYTES[width]).tofile(out_dir / "offset.0")
    tmp.unlink()


def _run_indexer(out_dir: Path, width: str, *, cpus: int, mem_gib: int) -> None:
    require("infini_gram", package="infini-gram", extra="index", purpose="Building a local index")
    # The indexer splits the data into one part per CPU; on small data the merge step of
    # several parts fails (missing part files), so parts are kept at 8 MiB or more.
    ds_size = (out_dir / "tokenized.0").stat().st_size
    cpus = max(1, min(cpus, ds_size // (8 << 20)))
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ulimit = hard if hard != resource.RLIM_INFINITY else 1 << 20
    command = [
        sys.executable, "-m", "infini_gram.indexing", "--data_dir", str(out_dir),
        "--save_dir", str(out_dir), "--token_dtype", TOKEN_DTYPE[width], "--cpus", str(cpus),
        "--mem", str(mem_gib), "--ulimit", str(ulimit),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    log = (done.stdout + done.stderr)[-2000:]
    if done.returncode != 0 or not (out_dir / "table.0").is_file():
        raise CrevalError(f"The infini-gram indexer failed (exit {done.returncode}):\n{log}")
    if "Step 1 (tokenize): Skipped" not in done.stdout:
        raise CrevalError(f"The infini-gram indexer did not use creval's tokenized files:\n{log}")


def check_inputs(sources: list[str], out_dir: Path) -> None:
    """Missing sources and a used output folder stop before anything is written."""
    if not sources:
        raise CrevalError("Give at least one source to index.")
    for source in sources:
        if not source.startswith("hf:"):
            _files(source)
    if out_dir.exists() and any(out_dir.iterdir()):
        raise CrevalError(f"{out_dir} is not empty. Pass a new folder to --out.")


def build_index(
    sources: list[str],
    out_dir: Path,
    *,
    text_field: str = "text",
    id_width: IdWidth | None = None,
    cpus: int | None = None,
    mem_gib: int = 2,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Build the index in ``out_dir`` (which must be empty or absent); returns its manifest.

    ``id_width`` None picks u16 when the vocabulary fits and u16x2 (two 16-bit tokens per
    word) otherwise; an explicit width the vocabulary does not fit is an error. Note that
    the indexer of infini-gram 2.6.0 allocates 2**32 x 8 bytes (32 GiB) for u32 ids, so
    u32 is for big machines only.
    """
    check_inputs(sources, out_dir)
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    vocab = Vocabulary()
    tmp = out_dir / "ids.u32.tmp"
    n_docs, n_words = _write_ids(tmp, iter_documents(sources, text_field=text_field), vocab,
                                 progress or (lambda _: None))
    if n_docs == 0:
        tmp.unlink()
        raise CrevalError("The sources hold no document with a word in it; nothing to index.")
    width = id_width or ("u16" if vocab.fits("u16") else "u16x2")
    if not vocab.fits(width):
        tmp.unlink()
        raise CrevalError(
            f"The vocabulary has {len(vocab)} words; ids of width {width} hold at most "
            f"{max_vocabulary(width)}. Use --id-width auto (two 16-bit tokens per word when "
            "the vocabulary is larger) or index a smaller corpus."
        )
    _finish_files(tmp, out_dir, width)
    tokenized_at = time.perf_counter()
    _run_indexer(out_dir, width, cpus=cpus or os.cpu_count() or 1, mem_gib=mem_gib)
    vocab.save(out_dir / VOCAB)
    seconds = time.perf_counter() - started
    manifest = {
        "format": FORMAT_VERSION,
        "kind": "creval word-level infini-gram index",
        "tokenizer": TOKENIZER_NAME,
        "id_width": width,
        "documents": n_docs,
        "words": n_words,
        "vocabulary": len(vocab),
        "sources": sources,
        "text_field": text_field,
        "seconds": round(seconds, 3),
        "seconds_tokenize": round(tokenized_at - started, 3),
        "words_per_second": round(n_words / seconds, 1) if seconds > 0 else None,
    }
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return manifest
