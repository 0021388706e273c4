"""N-gram indexes of reference corpora: a word-level local infini-gram index.

``build_index`` writes one (``creval index build``), ``LocalIndex`` queries it and
``score_texts`` gives each text's Creativity Index with one query per text. The
``infini-gram``, ``nltk`` and ``unidecode`` packages (extra ``index``) are imported only
when an index is built, opened or a text tokenised.
"""

from creval.index.build import build_index, iter_documents
from creval.index.local import LocalIndex, read_manifest
from creval.index.scoring import CIOutcome, score_text, score_texts
from creval.index.words import Vocabulary, words

__all__ = [
    "CIOutcome",
    "LocalIndex",
    "Vocabulary",
    "build_index",
    "iter_documents",
    "read_manifest",
    "score_text",
    "score_texts",
    "words",
]
