"""A tiny NLI sequence-classification model built and saved inside the tests (no downloads)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

SENTENCES = [
    "a cat sleeps on the warm mat",
    "an animal is sleeping",
    "the dog runs in the park",
    "nobody is outside today",
    "she ties the rope to the branch and climbs up",
    "use the rope to climb the tree",
    "boil the water with the kettle",
]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]


def build_tokenizer() -> Any:
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(SENTENCES, trainers.WordLevelTrainer(special_tokens=SPECIALS))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
        sep_token="[SEP]", model_max_length=64,
    )


def save_tiny_nli(
    path: Path, id2label: Mapping[int, str], *, architecture: str = "bert", seed: int = 0
) -> Path:
    """Save a randomly initialised tiny classifier with ``id2label`` and its tokenizer."""
    import torch
    from transformers import (
        BertConfig,
        BertForSequenceClassification,
        DebertaV2Config,
        DebertaV2ForSequenceClassification,
    )

    tokenizer = build_tokenizer()
    labels = {int(k): v for k, v in id2label.items()}
    common: dict[str, Any] = dict(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=64, initializer_range=1.0, id2label=labels,
        label2id={v: k for k, v in labels.items()}, pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model: Any
    if architecture == "bert":
        model = BertForSequenceClassification(BertConfig(**common))
    else:
        model = DebertaV2ForSequenceClassification(DebertaV2Config(**common, type_vocab_size=2))
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    return path
