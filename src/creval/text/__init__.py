"""Text helpers: parsing model answers, word lists, Japanese noun checks.

Nothing heavy is imported here: the English word list and the Japanese analyser load on
first use.

>>> from creval.text import parse_word_list
>>> parse_word_list("1. cat\\n2. dog")
['cat', 'dog']
"""

from creval.text.dictionary import OLSON_WORDS_URL, default_english_dictionary, load_word_list
from creval.text.ja import JapaneseNounChecker
from creval.text.lists import parse_word_list

__all__ = [
    "OLSON_WORDS_URL",
    "JapaneseNounChecker",
    "default_english_dictionary",
    "load_word_list",
    "parse_word_list",
]
