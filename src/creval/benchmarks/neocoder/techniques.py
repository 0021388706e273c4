"""The NeoCoder technique vocabulary, the LLM technique detector's request and its strict parser.

Denial Prompting and NeoGauge (seed 000, Lu et al. 2025) describe every solution by the
set of *atomic techniques* it uses, chosen from a fixed vocabulary of 34 names
(:data:`VOCABULARY`: 8 control-flow constructs, 8 data structures, 18 algorithms; the
same names, spelled the same way, as in the published data). A model detects them:
one context-free call per code (:func:`detection_request`), answered as a bullet list
that :func:`parse_techniques` reads strictly:

* names match case-, spacing-, hyphen- and plural-insensitively, plus a few documented
  synonyms (:data:`SYNONYMS`, e.g. ``BFS`` -> ``width first search``);
* duplicates are removed, first mention first;
* anything else is kept in ``unknown``;
* an answer that names nothing from the vocabulary is a parse failure (``ok=False``)
  with the raw text kept. The research code replaced such answers by ``["for loop"]``;
  we never invent a technique. An explicit ``none`` answer is a valid empty set.

:func:`agreement` and :func:`agreement_table` compare the LLM detector with the static
one (:mod:`creval.benchmarks.neocoder.static_techniques`) on the techniques that the
static detector can see.

>>> p = parse_techniques("- For loops\\n- hash map (for counting)\\n- for loop\\n- magic")
>>> p.techniques, p.unknown, p.ok
(['for loop', 'hashmap'], ['magic'], True)
>>> parse_techniques("I could not find any.").ok
False
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from creval.errors import CrevalError
from creval.models.base import GenerateRequest

__all__ = [
    "ALGORITHMS", "CONTROL_FLOWS", "DATA_STRUCTURES", "NONE_ANSWER", "SYNONYMS",
    "TechniqueParse", "VOCABULARY", "agreement", "agreement_table", "canonical_technique",
    "detection_request", "detection_schema", "parse_techniques",
]  # fmt: skip

CONTROL_FLOWS: tuple[str, ...] = (
    "if statement", "for loop", "while loop", "break statement", "continue statement",
    "pass statement", "match statement", "recursion",
)  # fmt: skip
DATA_STRUCTURES: tuple[str, ...] = (
    "stack", "queue", "tuple", "set", "dictionary", "linked list", "tree", "graph",
)  # fmt: skip
ALGORITHMS: tuple[str, ...] = (
    "two pointers", "sliding window", "matrix operation", "hashmap", "depth first search",
    "width first search", "back tracking", "divide & conquer", "Kadanes algorithm",
    "binary search", "heap", "dynamic programming", "greedy algorithm", "misc", "minimax",
    "topological sort", "sorting", "graph traversal",
)  # fmt: skip
#: The 34 technique names of the paper's detection prompt and data, in their order.
VOCABULARY: tuple[str, ...] = CONTROL_FLOWS + DATA_STRUCTURES + ALGORITHMS

#: What an answer may say for "no technique from the list" (a valid, empty detection).
NONE_ANSWER = "none"

#: Other spellings accepted for a vocabulary name (keys are compared after normalisation,
#: so case, hyphens, underscores, apostrophes and a plural "s" do not matter).
SYNONYMS: Mapping[str, str] = {
    "if": "if statement", "if else": "if statement", "if else statement": "if statement",
    "if elif else": "if statement", "conditional": "if statement",
    "conditional statement": "if statement", "for": "for loop", "while": "while loop",
    "break": "break statement", "continue": "continue statement", "pass": "pass statement",
    "match": "match statement", "match case": "match statement",
    "recursive function": "recursion", "dict": "dictionary", "dictionarie": "dictionary",
    "hash map": "hashmap", "hash table": "hashmap", "hashtable": "hashmap",
    "two pointer technique": "two pointers", "two pointer approach": "two pointers",
    "dfs": "depth first search", "bfs": "width first search",
    "breadth first search": "width first search", "backtracking": "back tracking",
    "divide and conquer": "divide & conquer", "kadane algorithm": "Kadanes algorithm",
    "kadane": "Kadanes algorithm", "dp": "dynamic programming", "greedy": "greedy algorithm",
    "sort": "sorting", "topological sorting": "topological sort", "matrix": "matrix operation",
    "miscellaneous": "misc", "priority queue": "heap", "min heap": "heap", "max heap": "heap",
}  # fmt: skip

_BULLET = re.compile(r"^\s*(?:[-*\u2022+]|\d+[.)]|[a-z][.)](?=\s))\s*", re.IGNORECASE)
_PARENTHETICAL = re.compile(r"\s*\([^)]*\)")
_CLEAN_EDGES = " \t\"'`[]{}.,;:!*_"


def _normalise(name: str) -> str:
    """Lower case, words split on spaces, hyphens and underscores, apostrophes dropped,
    a final plural ``s`` removed (``ss`` kept)."""
    text = name.lower().replace("'", "").replace("\u2019", "")
    words = re.split(r"[\s\-_/]+", text.strip())
    words = [w for w in words if w]
    if words and len(words[-1]) > 3 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    return " ".join(words)


def _lookup(vocabulary: Sequence[str]) -> dict[str, str]:
    table = {_normalise(name): name for name in vocabulary}
    in_vocabulary = set(vocabulary)
    for alias, name in SYNONYMS.items():
        key = _normalise(alias)
        if name in in_vocabulary and key not in table:
            table[key] = name
    return table


def canonical_technique(name: str, vocabulary: Sequence[str] = VOCABULARY) -> str | None:
    """The vocabulary spelling of ``name``, or None when it names no vocabulary technique.

    >>> canonical_technique("Breadth-First Search"), canonical_technique("Kadane's algorithm")
    ('width first search', 'Kadanes algorithm')
    >>> canonical_technique("linked lists"), canonical_technique("list") is None
    ('linked list', True)
    """
    return _lookup(vocabulary).get(_normalise(name))


@dataclass(frozen=True)
class TechniqueParse:
    """One parsed detector answer.

    ``techniques`` are vocabulary names in order of first mention, without repeats;
    ``unknown`` the other items the answer listed; ``ok`` is False when the answer named
    nothing from the vocabulary (and was not an explicit ``none``); ``error`` says why.
    """

    techniques: list[str]
    unknown: list[str]
    ok: bool
    raw: str
    error: str | None = field(default=None)


def _items(text: str) -> Iterable[str]:
    """Candidate names: one per bullet line, comma-separated lists split, code fences and
    parenthetical remarks dropped."""
    for line in text.splitlines():
        if line.strip().startswith("```"):
            continue
        line = _PARENTHETICAL.sub("", _BULLET.sub("", line, count=1))
        for part in line.split(","):
            item = part.strip(_CLEAN_EDGES)
            if item:
                yield item


def parse_techniques(
    text: str,
    vocabulary: Sequence[str] = VOCABULARY,
    *,
    max_techniques: int | None = None,
) -> TechniqueParse:
    """Read a technique detector's answer strictly (see the module docstring).

    ``max_techniques`` turns an answer listing more techniques than that into a parse
    failure: a detector that echoes the whole vocabulary has not looked at the code (the
    research code re-asked whenever an answer had more than 10).

    >>> parse_techniques("['while loop', 'Two-Pointer technique', 'DFS']").techniques
    ['while loop', 'two pointers', 'depth first search']
    >>> parse_techniques("- none").ok, parse_techniques("- none").techniques
    (True, [])
    >>> parse_techniques("- for loop\\n- set", max_techniques=1).error
    'the answer lists 2 techniques, more than max_techniques=1'
    """
    if not isinstance(text, str):
        raise CrevalError(f"parse_techniques expects the answer text, got {type(text).__name__}.")
    if max_techniques is not None and max_techniques < 1:
        raise CrevalError(f"max_techniques must be at least 1 or None, got {max_techniques}.")
    table = _lookup(vocabulary)
    techniques: list[str] = []
    unknown: list[str] = []
    said_none = False
    for item in _items(text):
        name = table.get(_normalise(item))
        if name is not None:
            if name not in techniques:
                techniques.append(name)
        elif _normalise(item) in {NONE_ANSWER, "no technique", "n a"}:
            said_none = True
        elif item not in unknown:
            unknown.append(item)
    if not techniques:
        if said_none:
            return TechniqueParse([], unknown, True, text)
        return TechniqueParse([], unknown, False, text, "the answer names no known technique")
    if max_techniques is not None and len(techniques) > max_techniques:
        error = f"the answer lists {len(techniques)} techniques, more than max_techniques={max_techniques}"
        return TechniqueParse(techniques, unknown, False, text, error)
    return TechniqueParse(techniques, unknown, True, text)


def detection_schema(vocabulary: Sequence[str] = VOCABULARY) -> dict[str, Any]:
    """The detector's answer shape: a JSON list of one to ten vocabulary names.

    Its text (``["for loop", "set"]``) is what :func:`parse_techniques` reads, unchanged.

    >>> parse_techniques('["for loop", "hashmap"]').techniques
    ['for loop', 'hashmap']
    """
    return {"type": "array", "items": {"type": "string", "enum": list(vocabulary)},
            "minItems": 1, "maxItems": 10}  # fmt: skip


def detection_request(
    code: str,
    *,
    template: str | None = None,
    vocabulary: Sequence[str] = VOCABULARY,
    max_tokens: int = 256,
    constrained: bool = False,
) -> GenerateRequest:
    """The context-free request asking a model which techniques ``code`` uses.

    The system message is the detection prompt (``template``, default
    ``creval/data/prompts/neocoder_detect.txt``, whose one placeholder ``{vocabulary}`` is
    filled with the names one per line); the user message is the code alone. Greedy
    decoding (temperature 0) so that detection is repeatable. ``constrained`` asks for the
    answer's shape (:func:`detection_schema`), for backends that can constrain decoding.

    >>> r = detection_request("print(1)")
    >>> r.temperature, [m.role for m in r.messages], r.messages[1].text()
    (0.0, ['system', 'user'], 'print(1)')
    >>> "- width first search" in r.messages[0].text()
    True
    """
    from creval.benchmarks.common import format_prompt, load_prompt

    if not isinstance(code, str):
        raise CrevalError(f"detection_request expects source code, got {type(code).__name__}.")
    source = "the technique detection template" if template else "neocoder_detect.txt"
    text = template if template is not None else load_prompt("neocoder_detect")
    listing = "\n".join(f"- {name}" for name in vocabulary)
    system = format_prompt(text, source, vocabulary=listing).strip()
    schema = detection_schema(vocabulary) if constrained else None
    return GenerateRequest.chat(code, system=system, temperature=0.0, max_tokens=max_tokens,
                                response_schema=schema)  # fmt: skip


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def agreement(
    llm: Collection[str], static: Collection[str], detectable: Collection[str]
) -> dict[str, Any]:
    """How the LLM detector and the static detector agree on one code.

    Only techniques in ``detectable`` (what the static detector can see) count. The LLM
    answer is the reference: ``precision`` is the share of statically found techniques the
    LLM also named, ``recall`` the share of the LLM's (detectable) techniques the static
    detector found; both are None when undefined. ``jaccard`` is 1.0 when both are empty.

    >>> a = agreement({"for loop", "if statement", "greedy algorithm"},
    ...               {"for loop", "tuple"}, {"for loop", "if statement", "tuple"})
    >>> a["both"], a["llm_only"], a["static_only"], a["precision"], a["recall"], a["jaccard"]
    (['for loop'], ['if statement'], ['tuple'], 0.5, 0.5, 0.3333333333333333)
    """
    scope = set(detectable)
    llm_in, static_in = set(llm) & scope, set(static) & scope
    both, union = llm_in & static_in, llm_in | static_in
    order = [name for name in VOCABULARY if name in scope] + sorted(scope - set(VOCABULARY))
    return {
        "both": [n for n in order if n in both],
        "llm_only": [n for n in order if n in llm_in - static_in],
        "static_only": [n for n in order if n in static_in - llm_in],
        "precision": _ratio(len(both), len(static_in)),
        "recall": _ratio(len(both), len(llm_in)),
        "jaccard": len(both) / len(union) if union else 1.0,
    }


_CELL = {(True, True): "both", (True, False): "llm_only",
         (False, True): "static_only", (False, False): "neither"}  # fmt: skip


def agreement_table(
    pairs: Iterable[tuple[Collection[str], Collection[str]]], detectable: Collection[str]
) -> dict[str, dict[str, Any]]:
    """Per-technique agreement over many codes, each given as ``(llm, static)`` sets.

    For every detectable technique: counts of codes where both, only the LLM, only the
    static detector, or neither named it, and the static detector's ``precision`` and
    ``recall`` against the LLM and their ``jaccard`` (None when undefined).

    >>> t = agreement_table([({"for loop"}, {"for loop"}), ({"for loop"}, set()),
    ...                      (set(), {"set"})], {"for loop", "set"})
    >>> t["for loop"]["both"], t["for loop"]["llm_only"], t["for loop"]["recall"]
    (1, 1, 0.5)
    >>> t["set"]["static_only"], t["set"]["precision"], t["set"]["neither"]
    (1, 0.0, 2)
    """
    names = [n for n in VOCABULARY if n in set(detectable)]
    names += sorted(set(detectable) - set(VOCABULARY))
    counts = {n: {"both": 0, "llm_only": 0, "static_only": 0, "neither": 0} for n in names}
    for llm, static in pairs:
        llm_set, static_set = set(llm), set(static)
        for name in names:
            counts[name][_CELL[(name in llm_set, name in static_set)]] += 1
    table: dict[str, dict[str, Any]] = {}
    for name, c in counts.items():
        both, llm_n, static_n = c["both"], c["both"] + c["llm_only"], c["both"] + c["static_only"]
        table[name] = {
            **c,
            "precision": _ratio(both, static_n),
            "recall": _ratio(both, llm_n),
            "jaccard": _ratio(both, both + c["llm_only"] + c["static_only"]),
        }
    return table
