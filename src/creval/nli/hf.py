"""Backend ``hf:NAME_OR_PATH``: an NLI sequence-classification model run by transformers.

Any model trained for NLI works (``AutoModelForSequenceClassification``). ``NAME_OR_PATH`` is
a local directory written by ``save_pretrained`` or a hub name already in the local Hugging
Face cache; both go through the same ``from_pretrained`` call. The default model is
``tasksource/deberta-base-long-nli``, the one the step-wise semantic-entropy paper chose.

The meaning of each output comes from the model's ``config.id2label``: names such as
``ENTAILMENT``, ``entailment``, ``Contradiction`` or ``not_entailment`` are recognised (see
:func:`~creval.nli.base.canonical_label`). Generic names (``LABEL_0``...) say nothing, so such
a model needs an explicit ``label_map`` (``{"LABEL_0": "entailment", ...}``); creval never
guesses an order.

Pairs go through the model ``batch_size`` at a time, padded, in a worker thread under a lock,
on ``device`` (default ``cpu``). Each result carries the softmax probabilities of the three
labels (a binary model's "not entailment" counts as neutral; contradiction is then 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from creval.errors import CrevalError
from creval.nli.base import LABELS, Label, NLIResult, canonical_label
from creval.nli.transformers_base import TransformersBackend

__all__ = ["DEFAULT_NLI_MODEL", "HFEntailment", "label_indices"]

DEFAULT_NLI_MODEL = "tasksource/deberta-base-long-nli"
#: Input length used when neither the tokenizer nor the config gives a usable one.
_FALLBACK_MAX_LENGTH = 512


def label_indices(
    id2label: Mapping[int, str], label_map: Mapping[str, str] | None = None, *, model: str = "model"
) -> dict[int, Label]:
    """Output index -> canonical label, from a config's ``id2label`` (and a user's ``label_map``).

    Every output must map to a label and at least one to ``entailment``.

    >>> label_indices({0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"})
    {0: 'entailment', 1: 'neutral', 2: 'contradiction'}
    >>> label_indices({0: "LABEL_0", 1: "LABEL_1"}, {"LABEL_0": "entailment", "LABEL_1": "neutral"})
    {0: 'entailment', 1: 'neutral'}
    >>> label_indices({0: "LABEL_0", 1: "LABEL_1"}, model="m")
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: m: cannot tell what output 0 ('LABEL_0') means: its config.id2label is {0: 'LABEL_0', 1: 'LABEL_1'}. Pass label_map={'LABEL_0': 'entailment' | 'neutral' | 'contradiction', ...} naming every output.
    """
    if not id2label:
        raise CrevalError(f"{model}: its config has no id2label; pass label_map naming every output.")
    user = {str(k): v for k, v in (label_map or {}).items()}
    for key, value in user.items():
        if value not in LABELS:
            raise CrevalError(
                f"label_map[{key!r}] = {value!r}; use one of {', '.join(LABELS)}."
            )
    out: dict[int, Label] = {}
    for index, name in sorted((int(k), str(v)) for k, v in id2label.items()):
        mapped = user.get(name, user.get(str(index)))
        label: Label | None = mapped if mapped in LABELS else canonical_label(name)
        if label is None:
            raise CrevalError(
                f"{model}: cannot tell what output {index} ({name!r}) means: its config.id2label "
                f"is {dict(sorted((int(k), v) for k, v in id2label.items()))}. Pass "
                "label_map={" + repr(name) + ": 'entailment' | 'neutral' | 'contradiction', ...} "
                "naming every output."
            )
        out[index] = label
    if "entailment" not in out.values():
        raise CrevalError(
            f"{model}: no output means entailment (outputs: {out}); is this an NLI model?"
        )
    return out


def _max_length(tokenizer: Any, config: Any) -> int:
    """The longest input to feed: the tokenizer's limit if it has a real one, else the
    config's position count, else 512."""
    limit = getattr(tokenizer, "model_max_length", None)
    if isinstance(limit, int) and 0 < limit < 1_000_000:
        return limit
    positions = getattr(config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        return positions
    return _FALLBACK_MAX_LENGTH


class HFEntailment(TransformersBackend):
    """An NLI cross-encoder: ``AutoTokenizer`` + ``AutoModelForSequenceClassification``."""

    kind = "hf"

    def __init__(
        self,
        name: str = DEFAULT_NLI_MODEL,
        *,
        device: str = "cpu",
        batch_size: int = 16,
        label_map: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(name, default=DEFAULT_NLI_MODEL, device=device, batch_size=batch_size)
        self.spec = f"hf:{self.name}"
        self.label_map = dict(label_map) if label_map else None
        self._labels: dict[int, Label] | None = None

    def _load(self) -> tuple[Any, Any, dict[int, Label]]:
        """Tokenizer, model and label indices (call with the lock held)."""
        if self._model is None:
            self._require()
            from transformers import AutoModelForSequenceClassification, AutoTokenizer

            tokenizer = self._pretrained(AutoTokenizer.from_pretrained, self.name, "tokenizer")
            model = self._pretrained(AutoModelForSequenceClassification.from_pretrained, self.name, "model")
            labels = label_indices(model.config.id2label, self.label_map, model=self.spec)
            self._ready(model)
            self._tokenizer, self._model, self._labels = tokenizer, model, labels
        assert self._labels is not None
        return self._tokenizer, self._model, self._labels

    def _identity(self) -> dict[str, Any]:
        """Backend, model name or path, the label of each output and the input length."""
        assert self._labels is not None
        return {
            "backend": "hf",
            "model": self.name,
            "labels": {str(k): v for k, v in self._labels.items()},
            "max_length": _max_length(self._tokenizer, self._model.config),
        }

    def _classify_sync(self, pairs: list[tuple[str, str]]) -> list[NLIResult]:
        with self._lock:
            tokenizer, model, labels = self._load()
            out: list[NLIResult] = []
            for start in range(0, len(pairs), self.batch_size):
                rows = self._probabilities(tokenizer, model, pairs[start : start + self.batch_size])
                out += [_result(row, labels) for row in rows]
            return out

    def _probabilities(self, tokenizer: Any, model: Any, batch: list[tuple[str, str]]) -> list[list[float]]:
        import torch

        encoded = tokenizer(
            [p for p, _ in batch],
            [h for _, h in batch],
            padding=True,
            truncation=True,
            max_length=_max_length(tokenizer, model.config),
            return_tensors="pt",
        ).to(self.device)
        with torch.inference_mode():
            logits = model(**encoded).logits
        rows: list[list[float]] = torch.softmax(logits.float(), dim=-1).tolist()
        return rows


def _result(row: list[float], labels: dict[int, Label]) -> NLIResult:
    """Sum each output's probability into its canonical label; the label is the argmax."""
    probs: dict[str, float] = dict.fromkeys(LABELS, 0.0)
    for index, p in enumerate(row):
        probs[labels[index]] += p
    best: Label = max(LABELS, key=lambda lab: probs[lab])
    return NLIResult(label=best, probabilities=probs)
