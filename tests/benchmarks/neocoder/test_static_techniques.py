"""The static (``ast``) technique detector: one construct at a time, heuristics, options."""

from __future__ import annotations

import textwrap

import pytest

from creval.benchmarks.neocoder.static_techniques import (
    FEATURES,
    detect_static,
    detectable_techniques,
)
from creval.benchmarks.neocoder.techniques import VOCABULARY


def found(code: str, **options: bool) -> set[str]:
    result = detect_static(textwrap.dedent(code), **options)
    assert not result.unparseable, result.error
    return set(result.techniques)


def test_every_feature_maps_into_the_vocabulary() -> None:
    for implied in FEATURES.values():
        assert set(implied) <= set(VOCABULARY)
    assert detectable_techniques() <= set(VOCABULARY)
    # Semantic techniques are never claimed.
    for name in ("greedy algorithm", "dynamic programming", "misc", "matrix operation", "graph"):
        assert name not in detectable_techniques()


@pytest.mark.parametrize(
    ("code", "technique"),
    [
        ("for i in range(3):\n    print(i)", "for loop"),
        ("i = 0\nwhile i < 3:\n    i += 1", "while loop"),
        ("x = 1\nif x:\n    print(x)", "if statement"),
        ("while True:\n    break", "break statement"),
        ("for i in range(3):\n    continue", "continue statement"),
        ("def f():\n    pass", "pass statement"),
        ("match 3:\n    case 3:\n        print(3)", "match statement"),
        ("p = (1, 2)", "tuple"),
        ("a, b = 1, 2", "tuple"),
        ("p = tuple([1])", "tuple"),
        ("s = {1, 2}", "set"),
        ("s = set()", "set"),
        ("s = frozenset('ab')", "set"),
        ("d = {'a': 1}", "dictionary"),
        ("d = dict()", "hashmap"),
        ("from collections import defaultdict\nd = defaultdict(int)", "dictionary"),
        ("import collections\nc = collections.Counter('aab')", "dictionary"),
        ("from collections import *\nc = Counter('aab')", "dictionary"),
        ("a = sorted([3, 1])", "sorting"),
        ("a = [3, 1]\na.sort()", "sorting"),
        ("import heapq\nh = []\nheapq.heappush(h, 1)", "heap"),
        ("from heapq import heappush as push\nh = []\npush(h, 1)", "heap"),
        ("from queue import PriorityQueue\nq = PriorityQueue()", "heap"),
        ("from collections import deque\nq = deque()", "queue"),
        ("import collections as c\nq = c.deque()", "queue"),
        ("import queue\nq = queue.Queue()", "queue"),
        ("q = [1]\nq.append(2)\nq.pop(0)", "queue"),
        ("st = []\nst.append(1)\nst.pop()", "stack"),
        ("st = []\nst.append(1)\nst.pop(-1)", "stack"),
        ("import queue\ns = queue.LifoQueue()", "stack"),
        ("import bisect\ni = bisect.bisect_left([1, 2], 2)", "binary search"),
        ("from bisect import insort\ninsort([], 1)", "binary search"),
    ],
)
def test_each_construct_is_seen(code: str, technique: str) -> None:
    assert technique in found(code)


@pytest.mark.parametrize(
    ("code", "technique"),
    [
        ("print(sum(map(int, input().split())))", "for loop"),
        ("x = [1]\nx.append(2)", "stack"),  # append alone is no stack
        ("x = [1, 2]\nx.pop()", "stack"),  # pop alone is no stack
        ("d = {}\nd.pop('a', None)", "stack"),
        ("x = [3, 1]\ny = x.index(1)", "sorting"),
        ("print('a b'.split())", "tuple"),
        ("print(1, 2)", "tuple"),
        ("a = [1, 2]", "set"),
        ("i = 0\nwhile i < 3:\n    i += 1", "two pointers"),
    ],
)
def test_lookalikes_are_not_mistaken(code: str, technique: str) -> None:
    assert technique not in found(code)


def test_direct_and_mutual_recursion() -> None:
    direct = "def f(n):\n    return 1 if n < 2 else n * f(n - 1)"
    mutual = "def even(n):\n    return n == 0 or odd(n - 1)\ndef odd(n):\n    return n != 0 and even(n - 1)"
    assert "recursion" in found(direct)
    assert "recursion" in found(mutual)


def test_recursion_in_nested_functions_methods_and_lambdas() -> None:
    nested = """
    def solve():
        def go(left):
            return left > 1 and go(left - 1)
        go(3)
    """
    method = """
    class Tree:
        def size(self, node):
            return 0 if node is None else 1 + self.size(node.left) + self.size(node.right)
    """
    bound_lambda = "fact = lambda n: 1 if n < 2 else n * fact(n - 1)"
    for code in (nested, method, bound_lambda):
        assert "recursion" in found(code)


def test_calls_that_are_not_recursion() -> None:
    code = """
    def helper(x):
        return x + 1
    def solve():
        print(helper(1))
    solve()
    """
    assert "recursion" not in found(code)
    # Calling a builtin of the same name as nothing defined is not a cycle either.
    assert "recursion" not in found("def f(a):\n    return max(a)")


def test_manual_binary_search_loop() -> None:
    code = """
    lo, hi = 0, 100
    while lo < hi:
        mid = (lo + hi) // 2
        if mid * mid < 50:
            lo = mid + 1
        else:
            hi = mid
    """
    techniques = found(code)
    assert "binary search" in techniques and "two pointers" not in techniques
    shifted = code.replace("(lo + hi) // 2", "lo + (hi - lo >> 1)").replace(
        "hi - lo >> 1", "(hi - lo) >> 1"
    )
    assert "binary search" in found(shifted)


def test_two_pointers_moving_toward_each_other() -> None:
    code = """
    s = input()
    i, j = 0, len(s) - 1
    while i < j and s[i] == s[j]:
        pass
    while j > i:
        if s[i] == s[j]:
            i += 1
            j = j - 1
    """
    techniques = found(code)
    assert "two pointers" in techniques and "binary search" not in techniques
    # Counters that move apart without indexing anything are not pointers.
    counters = "a, b = 5, 1\nwhile a > b:\n    a -= 1\n    b += 1"
    assert "two pointers" not in found(counters)


def test_comprehension_option() -> None:
    code = "print([x * x for x in range(3)])"
    assert "for loop" in found(code)
    assert "for loop" not in found(code, comprehension_is_for_loop=False)
    # A set comprehension still builds a set either way.
    assert "set" in found("s = {x for x in 'ab'}", comprehension_is_for_loop=False)


def test_ternary_option() -> None:
    code = "print('YES' if input() == 'a' else 'NO')"
    assert "if statement" in found(code)
    assert "if statement" not in found(code, ternary_is_if=False)
    assert "conditional expression" in detect_static(code).features


def test_dict_is_hashmap_option() -> None:
    assert {"dictionary", "hashmap"} <= found("d = {}")
    techniques = found("d = {}", dict_is_hashmap=False)
    assert "dictionary" in techniques and "hashmap" not in techniques
    assert "hashmap" not in detect_static("d = {}", dict_is_hashmap=False).detectable


def test_features_without_a_vocabulary_name() -> None:
    code = """
    import math, itertools, functools
    class A:
        pass
    def gen():
        global G
        yield 1
    try:
        f = lambda s: s.strip().upper()
    except ValueError:
        pass
    """
    features = set(detect_static(textwrap.dedent(code)).features)
    assert {"class", "generator function", "global statement", "try/except", "lambda",
            "math module", "itertools", "functools", "string method"} <= features  # fmt: skip


@pytest.mark.parametrize(
    "code",
    [
        "#include <bits/stdc++.h>\nint main() { int n; std::cin >> n; }",
        'print "hello"',
        "def solve():\n    for i in range(",  # output cut off mid-way
        "x = 1\x00",
    ],
)
def test_code_that_does_not_parse_is_reported_not_raised(code: str) -> None:
    result = detect_static(code)
    assert result.unparseable and result.techniques == () and result.error
    assert result.detectable == detectable_techniques()


def test_windows_line_endings_and_results_are_stable() -> None:
    code = "t = int(input())\r\nfor _ in range(t):\r\n    print(sorted(input()))\r\n"
    first = detect_static(code)
    assert not first.unparseable
    assert first.techniques == ("for loop", "sorting")
    assert detect_static(code) == first


def test_techniques_come_in_vocabulary_order() -> None:
    result = detect_static("s = sorted({1})\nfor x in s:\n    if x:\n        break")
    order = [VOCABULARY.index(name) for name in result.techniques]
    assert order == sorted(order) and len(order) == 5


def test_rejects_non_text() -> None:
    with pytest.raises(TypeError):
        detect_static(b"print(1)")  # type: ignore[arg-type]
