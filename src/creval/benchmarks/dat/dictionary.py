"""English word lists for validating Divergent Association Task answers.

Olson et al.'s scorer accepts a word only if it is in their ``words.txt`` (175,276 lines built
from the Hunspell en_AU/en_CA/en_GB/en_US dictionaries, of which 174,893 match the pattern
below) and has a GloVe vector. That file is theirs, not ours to ship:

* Online, download it from :data:`OLSON_WORDS_URL` and read it with :func:`load_word_list`;
  this is what reproduces their scores.
* Offline, :func:`default_english_dictionary` is a **stand-in** built from the ``english-words``
  package (extra ``embed``). It is a different list: it has many words theirs lacks and lacks
  many inflected forms theirs has (for example plurals such as ``tickets``, ``eyes`` and
  ``shoes``), so scores computed with it are not comparable with published DAT scores.

Both keep only lower-case entries matching ``^[a-z][a-z-]*[a-z]$``, as Olson's scorer does.

>>> sorted(filter_words(["cat", "Cat", "cul-de-sac", "café", "a", "-ish", "ice cream"]))
['cat', 'cul-de-sac']
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from creval.errors import CrevalError, require

__all__ = [
    "OLSON_WORDS_URL",
    "WORD_PATTERN",
    "default_english_dictionary",
    "filter_words",
    "load_word_list",
]

OLSON_WORDS_URL = (
    "https://raw.githubusercontent.com/jayolson/divergent-association-task/"
    "9978dd8103670a90c59bc35a7210acc60995dcdb/words.txt"
)
"""Olson et al.'s dictionary (MIT licence) at the commit the published scorer uses."""

WORD_PATTERN = re.compile(r"[a-z][a-z-]*[a-z]")
"""Entries Olson's scorer keeps (matched against the whole word)."""


def filter_words(words: Iterable[str]) -> frozenset[str]:
    """The entries of ``words`` that fully match :data:`WORD_PATTERN` (no lower-casing).

    >>> sorted(filter_words(["email", "e-mail", "E-mail", "x"]))
    ['e-mail', 'email']
    """
    return frozenset(w for w in words if WORD_PATTERN.fullmatch(w))


def load_word_list(path: str | os.PathLike[str]) -> frozenset[str]:
    """Read a word list, one word per line, keeping the entries Olson's scorer keeps.

    Surrounding whitespace (including ``\\r`` of Windows line ends) is removed; entries that
    are not lower-case ``a-z`` words, possibly hyphenated, are skipped (not lower-cased).

    Raises
    ------
    CrevalError
        If the file is missing, unreadable, not UTF-8, or has no usable word.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d) / "words.txt"
    ...     _ = p.write_text("aardvark\\nCafé\\ncul-de-sac\\nDog\\n", encoding="utf-8")
    ...     sorted(load_word_list(p))
    ['aardvark', 'cul-de-sac']
    """
    file = Path(path)
    if not file.is_file():
        what = "is a directory" if file.is_dir() else "does not exist"
        raise CrevalError(
            f"Word list {file} {what}: give the path of a text file, one word per line."
        )
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CrevalError(f"Word list {file} is not UTF-8 text: {exc}.") from exc
    except OSError as exc:
        raise CrevalError(f"Cannot read word list {file}: {exc}.") from exc
    words = filter_words(line.strip() for line in text.splitlines())
    if not words:
        raise CrevalError(
            f"Word list {file} has no usable word: expected one lower-case word per line "
            "(letters a-z and hyphens)."
        )
    return words


@lru_cache(maxsize=1)
def default_english_dictionary() -> frozenset[str]:
    """An offline **stand-in** for Olson's ``words.txt``: ``english-words`` gcide + web2.

    The union of the ``gcide`` and ``web2`` lists of the ``english-words`` package,
    lower-cased, filtered by :data:`WORD_PATTERN` (about 259,000 lemmas), plus their regular
    plurals (:func:`regular_plurals`), since the lists hold lemmas only. Intersected with
    GloVe 6B it keeps about 77% of the words Olson's list keeps; it lacks some modern words
    (``burger``). Use
    :func:`load_word_list` on :data:`OLSON_WORDS_URL` to reproduce published scores.

    Loaded once per process and kept on disk (``$CREVAL_CACHE_DIR/dat-dictionary``, per
    version of ``english-words``): building it takes ~2 s of CPU, reading it back ~0.1 s, a
    share of a short local run (bench/README.md, "A whole local run"). Needs the ``embed``
    extra.

    Raises
    ------
    MissingDependency
        If ``english-words`` is not installed.
    """
    require(
        "english_words",
        package="english-words",
        extra="embed",
        purpose="The offline English dictionary",
    )
    from importlib.metadata import version

    from creval._util.paths import cache_root

    path = cache_root() / "dat-dictionary" / f"english-words-{version('english-words')}-v1.txt"
    try:
        return frozenset(path.read_text(encoding="utf-8").split("\n"))
    except (OSError, UnicodeDecodeError):
        pass  # not built yet (or unreadable): build it
    from english_words import get_english_words_set

    base = filter_words(get_english_words_set(["gcide", "web2"], lower=True))
    words = frozenset(base | {form for word in base for form in regular_plurals(word)})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.part")
        tmp.write_text("\n".join(sorted(words)), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass  # a read-only cache: the words are still right, only slower next time
    return words


def regular_plurals(word: str) -> list[str]:
    """Regular plural (and third-person) forms, as Hunspell's affix rules would add them.

    The stand-in lists hold lemmas only; Olson's ``words.txt`` was unmunched from Hunspell
    and holds inflected forms. Unlikely forms do no harm: the DAT vocabulary is the
    dictionary intersected with the words that have a vector.

    >>> regular_plurals("ticket"), regular_plurals("box"), regular_plurals("berry")
    (['tickets'], ['boxes'], ['berries'])
    """
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return [word + "es"]
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return [word[:-1] + "ies"]
    if word.endswith("o"):
        return [word + "s", word + "es"]
    return [word + "s"]
