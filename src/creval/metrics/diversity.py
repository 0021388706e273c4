"""Surface and embedding diversity of a set of texts (seed 001, Table 1 baselines).

Lower Self-BLEU, higher Distinct-n and lower mean pairwise cosine similarity mean a more
diverse set. All functions take the whole set of samples (for example the ``n`` candidate
steps sampled for one problem) and return one number.

Tokenisation (:func:`tokenize`): the text is lower-cased with ``str.lower`` and split into
runs of word characters (``\\w+``, Unicode-aware, so digits and underscores belong to
words) and single punctuation characters (every other non-space character is its own
token). ``"Don't stop!"`` becomes ``['don', "'", 't', 'stop', '!']``. Pass ``tokenizer=`` to
use another one (for example a Japanese morphological analyser). Texygen's Self-BLEU
tokenised with nltk's ``word_tokenize``, which needs nltk's punkt data downloaded; this one
needs nothing.

BLEU itself is nltk's (:func:`sentence_bleu`); nltk (extra ``index``, in ``all``) is imported
when it is first needed.

>>> texts = ["the cat sat on the mat", "the cat sat on the mat"]
>>> self_bleu(texts), distinct_n(texts, n=1)
(1.0, 0.4166666666666667)
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Literal

from numpy.typing import ArrayLike

from creval.errors import require
from creval.metrics.distance import mean_pairwise_cosine_distance

__all__ = [
    "distinct_n",
    "mean_pairwise_cosine_similarity",
    "self_bleu",
    "sentence_bleu",
    "tokenize",
]

Tokenizer = Callable[[str], list[str]]
Smoothing = Literal["epsilon", "none"]
_TOKEN = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str) -> list[str]:
    """Lower-cased word runs (``\\w+``) and single punctuation marks, in order.

    >>> tokenize("Tie the rope -- twice!")
    ['tie', 'the', 'rope', '-', '-', 'twice', '!']
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}.")
    return _TOKEN.findall(text.lower())


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return value


def _tokenized(
    texts: Sequence[str], tokenizer: Tokenizer | None, *, min_texts: int
) -> list[list[str]]:
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise ValueError(f"texts must be a sequence of strings, got {type(texts).__name__}.")
    if len(texts) < min_texts:
        raise ValueError(f"This metric needs at least {min_texts} text(s), got {len(texts)}.")
    split = tokenizer or tokenize
    out: list[list[str]] = []
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise ValueError(f"texts[{i}] must be a string, got {type(text).__name__}.")
        tokens = split(text)
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise ValueError(f"The tokenizer must return a list of strings for texts[{i}].")
        out.append(tokens)
    return out


def _check_bleu_options(max_n: int, smoothing: str, epsilon: float) -> None:
    _positive_int(max_n, "max_n")
    if smoothing not in ("epsilon", "none"):
        raise ValueError(f"smoothing must be 'epsilon' or 'none', got {smoothing!r}.")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not epsilon > 0:
        raise ValueError(f"epsilon must be a positive number, got {epsilon!r}.")


def _bleu(
    hypothesis: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    max_n: int,
    smoothing: Smoothing,
    epsilon: float,
) -> float:
    """nltk's BLEU of tokenised inputs, options already checked (see :func:`sentence_bleu`)."""
    # nltk is imported here, not at module level: importing it takes about a second.
    require("nltk", package="nltk", extra="index", purpose="BLEU (Self-BLEU)")
    from nltk.translate.bleu_score import SmoothingFunction, modified_precision
    from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

    if smoothing == "none":
        # nltk's method0 stands in sys.float_info.min for a zero precision (BLEU-4 about
        # 1e-77, with a warning); BLEU without smoothing is 0 then, so say 0.
        if any(
            modified_precision(references, hypothesis, n).numerator == 0
            for n in range(1, max_n + 1)
        ):
            return 0.0
        smoothing_function = SmoothingFunction().method0
    else:
        smoothing_function = SmoothingFunction(epsilon=epsilon).method1
    score = nltk_sentence_bleu(
        references,
        hypothesis,
        weights=(1.0 / max_n,) * max_n,
        smoothing_function=smoothing_function,
    )
    return float(score)


def sentence_bleu(
    hypothesis: str,
    references: Sequence[str],
    *,
    max_n: int = 4,
    smoothing: Smoothing = "epsilon",
    epsilon: float = 0.1,
    tokenizer: Tokenizer | None = None,
) -> float:
    """Sentence-level BLEU-``max_n`` of one text against one or more references, in [0, 1].

    Computed by nltk's ``nltk.translate.bleu_score.sentence_bleu`` with uniform weights
    ``1 / max_n``, as Texygen's Self-BLEU (Zhu et al. 2018) does; seed 001 reports
    Self-BLEU without its code or settings, so these are Texygen's. BLEU = BP * exp(mean
    over n = 1..max_n of log p_n). ``p_n`` is the clipped n-gram precision: each
    hypothesis n-gram counts at most as often as it occurs in the reference where it
    occurs most. When the hypothesis is shorter than n it has no n-grams and ``p_n``
    counts as 0 matches out of 1. The brevity penalty ``BP`` is 1 when the hypothesis
    (length c) is longer than the closest reference length r (ties go to the shorter
    reference) and ``exp(1 - r / c)`` otherwise.

    Smoothing: with ``"epsilon"`` (default) a precision with no matches for n >= 2 becomes
    ``epsilon / (number of hypothesis n-grams)``: nltk's ``SmoothingFunction(epsilon).method1``
    (Chen and Cherry 2014, method 1), the smoothing of Texygen's Self-BLEU, whose epsilon
    is nltk's default 0.1. So one missing 4-gram does not zero the score. With ``"none"``
    any zero precision gives 0 (exactly 0: nltk's unsmoothed ``method0`` would return
    about 1e-77 and warn). A hypothesis with no unigram match, or no tokens at all, scores
    0 either way.

    Hand calculation for ``"a b c d e"`` against ``"a b c d f"``: p1..p4 = 4/5, 3/4, 2/3,
    1/2 and BP = 1 (same length), so BLEU = (4/5 * 3/4 * 2/3 * 1/2) ** (1/4) = 0.2 ** 0.25.
    For ``"a b c"`` against ``"a b d"``: p1 = 2/3, p2 = 1/2, p3 = 0.1 / 1 (smoothed), p4 =
    0.1 / 1 (no 4-grams), so BLEU = (1/300) ** 0.25.

    >>> round(sentence_bleu("a b c d e", ["a b c d f"]), 6), round(0.2 ** 0.25, 6)
    (0.66874, 0.66874)
    >>> round(sentence_bleu("a b c", ["a b d"]), 6), round((1 / 300) ** 0.25, 6)
    (0.240281, 0.240281)
    >>> sentence_bleu("a b c", ["a b d"], smoothing="none")
    0.0
    """
    _check_bleu_options(max_n, smoothing, epsilon)
    if not isinstance(references, Sequence) or isinstance(references, (str, bytes)):
        raise ValueError("references must be a sequence of strings, not a single string.")
    hyp, *refs = _tokenized([hypothesis, *references], tokenizer, min_texts=2)
    return _bleu(hyp, refs, max_n=max_n, smoothing=smoothing, epsilon=epsilon)


def self_bleu(
    texts: Sequence[str],
    *,
    max_n: int = 4,
    smoothing: Smoothing = "epsilon",
    epsilon: float = 0.1,
    tokenizer: Tokenizer | None = None,
) -> float:
    """Mean :func:`sentence_bleu` of each text against all the other texts as references.

    Zhu et al. (2018): 1 when every text is the same, lower for a more diverse set. As in
    Texygen's parallel Self-BLEU, a text is never its own reference. Needs at least two
    texts, each with at least one token (an empty sample says nothing about diversity;
    drop it first).

    Hand calculation: for ``"a b c d e"`` and ``"a b c d f"`` each text scores 0.2 ** 0.25
    against the other (see :func:`sentence_bleu`), so Self-BLEU is that too. With a third
    text ``"x y z"`` sharing no word, its own BLEU is 0 and the other two still match each
    other best (the references' maximum counts), so the mean is 2/3 of 0.66874.

    >>> round(self_bleu(["a b c d e", "a b c d f"]), 6)
    0.66874
    >>> round(self_bleu(["a b c d e", "a b c d f", "x y z"]), 6)
    0.445827
    """
    _check_bleu_options(max_n, smoothing, epsilon)
    tokenized = _tokenized(texts, tokenizer, min_texts=2)
    empty = [i for i, tokens in enumerate(tokenized) if not tokens]
    if empty:
        raise ValueError(
            f"texts at position(s) {', '.join(map(str, empty[:10]))} have no tokens; "
            "Self-BLEU needs non-empty texts, so drop empty samples first."
        )
    scores = []
    for i, hyp in enumerate(tokenized):
        others = tokenized[:i] + tokenized[i + 1 :]
        scores.append(_bleu(hyp, others, max_n=max_n, smoothing=smoothing, epsilon=epsilon))
    return math.fsum(scores) / len(scores)


def distinct_n(texts: Sequence[str], *, n: int, tokenizer: Tokenizer | None = None) -> float:
    """Distinct-n (Li et al. 2016): unique n-grams over total n-grams in the whole set.

    n-grams are counted within each text (none spans two texts) and pooled over the set.
    1 means no n-gram repeats; values near 0 mean heavy repetition. Undefined (ValueError)
    when no text has ``n`` tokens.

    Hand calculation for ``["a b a", "a b"]``: unigrams a, b, a, a, b (5, unique 2) give
    Distinct-1 = 2/5; bigrams (a b), (b a), (a b) (3, unique 2) give Distinct-2 = 2/3.

    >>> distinct_n(["a b a", "a b"], n=1)
    0.4
    >>> round(distinct_n(["a b a", "a b"], n=2), 6)
    0.666667
    """
    _positive_int(n, "n")
    pooled: Counter[tuple[str, ...]] = Counter()
    for tokens in _tokenized(texts, tokenizer, min_texts=1):
        pooled.update(_ngrams(tokens, n))
    total = sum(pooled.values())
    if total == 0:
        raise ValueError(f"No text has {n} token(s), so Distinct-{n} is undefined.")
    return len(pooled) / total


def mean_pairwise_cosine_similarity(X: ArrayLike) -> float:
    """Mean cosine similarity over the ``n (n - 1) / 2`` pairs of embedding rows, in [-1, 1].

    Equal to ``1 - mean_pairwise_cosine_distance(X)`` (:mod:`creval.metrics.distance`, which
    validates the input: a 2-D finite array, at least 2 rows, no zero vector). Higher means
    the texts are closer in meaning, i.e. less diverse.

    Hand calculation: rows (1, 0), (0, 1), (1, 1) have cosines 0, 1/sqrt(2), 1/sqrt(2), so
    the mean is sqrt(2)/3 = 0.4714.

    >>> round(mean_pairwise_cosine_similarity([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), 4)
    0.4714
    """
    return 1.0 - mean_pairwise_cosine_distance(X)
