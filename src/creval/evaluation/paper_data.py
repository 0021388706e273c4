"""Which data a run measured, recognised by the digest of what was loaded, never by a name.

A paper's data is known by the SHA-256 of its files (:data:`PAPER_DATA`): a run whose data
option names a file with one of those digests, or a folder (``creval data fetch NAME``
writes one) holding every file of the paper's set with its digest, measured the paper's
data. A folder called ``upstream`` is a folder like any other. The name ``upstream`` that
some loaders take (JCQ: download the public file) counts only when the download kept in the
cache has the paper's digest.

>>> from pathlib import Path
>>> data_identity("jcq", None).kind, data_identity("jcq", "/no/such/file.jsonl").kind
('starter', 'missing')
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

#: nlp-waseda/JCQ test.jsonl (700 questions), identical in every commit of JCQ-judge.
JCQ_TEST_SHA256 = "adbdea66e521d3b483f99d3aee17eacecc19a6a9c1d553b3a8ead753da6cfe07"
#: allenai/MacGyver problem_solution_pair.xlsx.
MACGYVER_SHA256 = "85faadd871e081066ed6dbe0ecafad82f4c79c16619f6b90da562a81f3ccceac"
#: JHU-CLSP/NeoCoder datasets/CodeForce/NeoCoder at 23cd8e6 (what `creval data fetch
#: neocoder` writes), file by file.
NEOCODER_SHA256 = {
    "NeoCoder.json": "6435476f71b05bf509d819a503327811eaef47cb70a50c47b271c1167732df85",
    "human_solutions.json": "24d5d7424fbdb4fc603baeeac4a7327da9e7f86420aeabdacc5c3cc98aa3d83c",
    "human_solution_techniques.json": "d508695c875951b35ef307c7ec0146c766b1b90ac1221cbd8b3c55e7489a42ec",
    "test_cases_annotated.json": "ba6b6c81c5301c3fb573ec274d88e923b04614b874ba33aef928eb4c6f4a76ed",
}

Kind = Literal["starter", "paper", "other", "missing", "none"]


@dataclass(frozen=True)
class PaperData:
    """A paper's data set, as the option of its benchmark loads it."""

    #: The benchmark option naming the data.
    option: str
    #: Digests of a file that is the paper's data (any of them).
    files: frozenset[str] = frozenset()
    #: A folder is the paper's data when it holds each of these files with its digest.
    folder: Mapping[str, str] = field(default_factory=dict)
    #: Names a loader resolves itself (``upstream``) -> where the loaded copy is kept.
    named: Mapping[str, Callable[[], Path]] = field(default_factory=dict)


def _jcq_download() -> Path:
    from creval._util.paths import cache_root
    from creval.benchmarks.ttct.questions import JCQ_URL

    return cache_root() / "data" / (hashlib.sha256(JCQ_URL.encode()).hexdigest()[:16] + ".jsonl")


#: The option naming each benchmark's data, and the papers' data by digest where it is public.
#: A benchmark not here has no item set (DAT: the words are the model's).
PAPER_DATA: dict[str, PaperData] = {
    "jcq": PaperData("questions", files=frozenset({JCQ_TEST_SHA256}), named={"upstream": _jcq_download}),
    "ttct": PaperData("questions"),
    "neocoder": PaperData("data", folder=NEOCODER_SHA256),
    "macgyver": PaperData("source", files=frozenset({MACGYVER_SHA256}),
                          folder={"problem_solution_pair.xlsx": MACGYVER_SHA256}),
    "hypogen": PaperData("source"),
    "bookmia": PaperData("source"),
    "metric-validity": PaperData("data"),
    "oogiri": PaperData("source"),
    "lotbench": PaperData("samples"),
    "sat": PaperData("stories"),
}


@dataclass(frozen=True)
class DataIdentity:
    """What a run's data option named, recognised by content."""

    kind: Kind
    #: What to show: the value of the option, and its digest when it was read.
    shown: str
    #: What the content is, to tell two runs' data apart: the file's sha256, ``paper`` for
    #: the paper's folder, else the kind and what was named.
    key: str = ""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def data_identity(benchmark: str, value: Any) -> DataIdentity:
    """The identity of ``value`` (a benchmark's data option) by what it holds.

    ``starter`` (no value: the starter set), ``paper`` (the paper's data by digest),
    ``other`` (a file or folder with other content), ``missing`` (a path that is not there
    to read), ``none`` (the benchmark has no item set).
    """
    data = PAPER_DATA.get(benchmark)
    if data is None:
        return DataIdentity("none", "no item set", "none")
    if value in (None, ""):
        return DataIdentity("starter", "the starter set", "starter")
    text = str(value)
    if text in data.named:
        path = data.named[text]()
        if not path.is_file():
            return DataIdentity("missing", f"{text!r} (its download is not in this machine's "
                                "cache, so its content cannot be checked)", f"missing:{text}")
        return _file_identity(data, path, shown=text)
    path = Path(text)
    if path.is_file():
        return _file_identity(data, path, shown=text)
    if path.is_dir():
        return _folder_identity(data, path)
    return DataIdentity("missing", f"{text} (not there to read)", f"missing:{text}")


def _file_identity(data: PaperData, path: Path, *, shown: str) -> DataIdentity:
    digest = sha256_file(path)
    kind: Kind = "paper" if digest in data.files else "other"
    return DataIdentity(kind, f"{shown} (sha256 {digest[:16]})", digest)


def _folder_identity(data: PaperData, folder: Path) -> DataIdentity:
    if not data.folder:
        return DataIdentity("other", f"{folder} (a folder)", f"folder:{folder.resolve()}")
    differing = []
    for name, want in data.folder.items():
        file = folder / name
        if not file.is_file():
            differing.append(f"{name} missing")
        elif sha256_file(file) != want:
            differing.append(f"{name} differs")
    if differing:
        return DataIdentity("other", f"{folder} ({', '.join(differing)})", f"folder:{folder.resolve()}")
    return DataIdentity("paper", f"{folder} (every file with the paper's sha256)", "paper")
