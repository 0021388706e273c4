"""Backend ``similarity:NAME_OR_PATH``: NoveltyBench's generation-similarity classifier.

NoveltyBench (Zhang et al. 2025) partitions a model's answers with a DeBERTa-v3-large
classifier fine-tuned to say whether two answers to a prompt are the same
(``yimingzhang/deberta-v3-large-generation-similarity``, the default). This backend asks it
the way the paper's ``src/partition.py`` does (our own code, same procedure):

* input: ``[CLS] A [SEP] B [SEP]``, each text tokenized without special tokens and cut to
  its first 128 tokens, token type 0 up to the first ``[SEP]`` and 1 after it (the prompt is
  not part of the input);
* the probability of output 1 ("same") after a softmax; the pair is the same when it is
  above 0.102 (the paper's threshold);
* two texts of at most 5 words each are decided without the model: the same when their
  shared distinct words (lower-cased, split on whitespace) are at least half the longer
  one's word count.

"Same" is symmetric, so the verdict is ``entailment`` in both directions, ``neutral``
otherwise (never ``contradiction``); the greedy partition then puts two answers together
exactly when the classifier calls them the same, strict or lenient. The classifier reads
its two inputs in an order; the paper's greedy loop asks (class representative, new answer).
The backend scores each unordered pair once, in the order in which it was first asked, and
reuses that verdict for the reverse: with ``lookup="both"`` (the default of
:func:`creval.nli.partition_texts`) the representative comes first, as in the paper.

The paper's tokenizer is ``microsoft/deberta-v3-large``'s; the tokenizer is read from
``NAME_OR_PATH`` and, if that has none, from ``microsoft/deberta-v3-large``. Both must be a
local directory or already in the Hugging Face cache. Batched (``batch_size``), padded with
an attention mask, in a worker thread, on ``device`` (default ``cpu``). Results carry
``approximate: True`` (a similarity classifier, not an entailment model) and ``score`` (the
probability of "same"; None for pairs decided by the short-text rule).
"""

from __future__ import annotations

from typing import Any

from creval.errors import CrevalError
from creval.nli.base import NLIResult
from creval.nli.transformers_base import TransformersBackend

__all__ = [
    "DEFAULT_SIMILARITY_MODEL",
    "PAPER_THRESHOLD",
    "PAPER_TOKENIZER",
    "SimilarityEntailment",
    "short_text_verdict",
]

DEFAULT_SIMILARITY_MODEL = "yimingzhang/deberta-v3-large-generation-similarity"
PAPER_TOKENIZER = "microsoft/deberta-v3-large"
#: Probability of "same" above which two answers are one class (NoveltyBench's partition.py).
PAPER_THRESHOLD = 0.102
#: Tokens kept of each text.
MAX_TOKENS = 128
_SHORT_WORDS = 5
_RULE = "short-text rule: both texts have at most 5 words"


def short_text_verdict(a: str, b: str) -> bool | None:
    """The paper's rule for short texts: None when either has more than 5 words, else whether
    their shared distinct words are at least half the longer one's word count.

    >>> short_text_verdict("Blue", "blue."), short_text_verdict("Paris", "Paris")
    (False, True)
    >>> short_text_verdict("a red fox", "the red fox jumps"), short_text_verdict("one two three four five six", "x")
    (True, None)
    """
    words_a, words_b = a.strip().lower().split(), b.strip().lower().split()
    longest = max(len(words_a), len(words_b))
    if longest > _SHORT_WORDS:
        return None
    return 2 * len(set(words_a) & set(words_b)) >= longest


class SimilarityEntailment(TransformersBackend):
    """NoveltyBench's same/different classifier as a symmetric entailment backend."""

    kind = "similarity"
    load_hint = (
        "The hub is not reached at run time: give a local directory written by "
        "save_pretrained, or a model already in the Hugging Face cache."
    )

    def __init__(
        self,
        name: str = DEFAULT_SIMILARITY_MODEL,
        *,
        threshold: float = PAPER_THRESHOLD,
        device: str = "cpu",
        batch_size: int = 16,
    ) -> None:
        super().__init__(name, default=DEFAULT_SIMILARITY_MODEL, device=device, batch_size=batch_size)
        if not 0.0 <= threshold < 1.0:
            raise CrevalError(f"The similarity threshold must be in [0, 1), got {threshold}.")
        self.spec = "similarity" if self.name == DEFAULT_SIMILARITY_MODEL else f"similarity:{self.name}"
        self.threshold = float(threshold)
        self._tokenizer_name = ""
        #: Unordered pair -> probability of "same", scored in the order first asked.
        self._scores: dict[frozenset[str], float] = {}

    def _load(self) -> tuple[Any, Any]:
        """Tokenizer and model (call with the lock held)."""
        if self._model is None:
            self._require()
            from transformers import AutoModelForSequenceClassification, AutoTokenizer

            model = self._pretrained(AutoModelForSequenceClassification.from_pretrained, self.name, "model")
            tokenizer, errors = None, []
            for source in dict.fromkeys((self.name, PAPER_TOKENIZER)):
                try:
                    tokenizer, self._tokenizer_name = AutoTokenizer.from_pretrained(source), source
                    break
                except (OSError, ValueError) as exc:
                    errors.append(f"{source}: {exc}")
            if tokenizer is None:
                raise CrevalError(f"{self.spec}: cannot load a tokenizer ({'; '.join(errors)}). {self.load_hint}")
            if model.config.num_labels != 2:
                raise CrevalError(
                    f"{self.spec}: expected a two-output (different, same) classifier, got "
                    f"{model.config.num_labels} outputs."
                )
            self._ready(model)
            self._tokenizer, self._model = tokenizer, model
        return self._tokenizer, self._model

    def _identity(self) -> dict[str, Any]:
        """Backend, model, tokenizer, threshold and input rules."""
        return {
            "backend": "similarity", "approximate": True, "model": self.name,
            "tokenizer": self._tokenizer_name, "threshold": self.threshold,
            "max_tokens_per_text": MAX_TOKENS, "short_text_rule": _RULE,
            "note": "NoveltyBench's same/different classifier, not an entailment model",
        }

    def _classify_sync(self, pairs: list[tuple[str, str]]) -> list[NLIResult]:
        with self._lock:
            todo: dict[frozenset[str], tuple[str, str]] = {}
            for a, b in pairs:
                key = frozenset((a, b))
                if key not in self._scores and key not in todo and short_text_verdict(a, b) is None:
                    todo[key] = (a, b)
            if todo:
                tokenizer, model = self._load()
                ordered = list(todo.items())
                for start in range(0, len(ordered), self.batch_size):
                    chunk = ordered[start : start + self.batch_size]
                    probs = self._same_probabilities(tokenizer, model, [p for _, p in chunk])
                    self._scores.update(zip((k for k, _ in chunk), probs, strict=True))
            return [self._result(a, b) for a, b in pairs]

    def _result(self, a: str, b: str) -> NLIResult:
        rule = short_text_verdict(a, b)
        if rule is not None:
            return NLIResult(label="entailment" if rule else "neutral", approximate=True, raw=_RULE)
        score = self._scores[frozenset((a, b))]
        same = score > self.threshold
        return NLIResult(label="entailment" if same else "neutral", approximate=True, score=score)

    def _same_probabilities(self, tokenizer: Any, model: Any, batch: list[tuple[str, str]]) -> list[float]:
        import torch

        rows = [_encode(tokenizer, a, b) for a, b in batch]
        width = max(len(ids) for ids, _ in rows)
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        input_ids = torch.full((len(rows), width), pad, dtype=torch.int64)
        types = torch.zeros((len(rows), width), dtype=torch.int64)
        mask = torch.zeros((len(rows), width), dtype=torch.int64)
        for i, (ids, tids) in enumerate(rows):
            input_ids[i, : len(ids)] = torch.tensor(ids)
            types[i, : len(ids)] = torch.tensor(tids)
            mask[i, : len(ids)] = 1
        with torch.inference_mode():
            logits = model(input_ids=input_ids.to(self.device), token_type_ids=types.to(self.device),
                           attention_mask=mask.to(self.device)).logits
        out: list[float] = torch.softmax(logits.float(), dim=-1)[:, 1].tolist()
        return out


def _encode(tokenizer: Any, a: str, b: str) -> tuple[list[int], list[int]]:
    """``[CLS] a [SEP] b [SEP]`` (each text at most 128 tokens) and its token types."""
    ids = [tokenizer.cls_token_id]
    for text in (a, b):
        ids += tokenizer.encode(text, truncation=True, max_length=MAX_TOKENS, add_special_tokens=False)
        ids.append(tokenizer.sep_token_id)
    first = ids.index(tokenizer.sep_token_id) + 1
    return ids, [0] * first + [1] * (len(ids) - first)
