"""A tiny causal LM built from a config, with a word-level tokenizer, for CPU trainer tests.

The vocabulary is a handful of English nouns (all in GloVe and the dictionary), list marks
and the chat template's words, so even the untrained model writes word lists the DAT
reward can score.
"""

from __future__ import annotations

from typing import Any

NOUNS = ["cat", "galaxy", "spoon", "democracy", "volcano", "violin", "tractor", "oxygen",
         "pillow", "justice", "shark", "umbrella", "zebra", "kettle", "glacier"]
CHAT_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} <eos> {% endfor %}"
    "{% if add_generation_prompt %}assistant : {% endif %}"
)


def tiny_model_and_tokenizer(words: list[str]) -> tuple[Any, Any]:
    """A one-layer Llama and a word-level tokenizer knowing ``words`` plus ``NOUNS``."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<pad>", "<unk>", "<bos>", "<eos>"]
    vocab = {w: i for i, w in enumerate(dict.fromkeys(
        [*specials, ",", ".", ":", "user", "assistant", *NOUNS, *words]))}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", unk_token="<unk>",
                                        bos_token="<bos>", eos_token="<eos>")
    tokenizer.chat_template = CHAT_TEMPLATE
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32,
                         num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=512, pad_token_id=0, bos_token_id=2, eos_token_id=3)
    return LlamaForCausalLM(config), tokenizer
