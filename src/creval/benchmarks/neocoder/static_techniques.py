"""A deterministic technique detector over Python's ``ast``, for techniques visible in syntax.

The NeoCoder technique vocabulary (:data:`~creval.benchmarks.neocoder.techniques.VOCABULARY`)
mixes constructs that the syntax shows (``for loop``, ``while loop``, ``set``, ``sorting``)
with algorithmic ideas that only a reader can judge (``greedy algorithm``, ``dynamic
programming``). :func:`detect_static` reports the first kind without a model: it finds
*features* (our own fine-grained names, :data:`FEATURES`) and maps each one to zero or more
vocabulary names. ``detectable`` lists every vocabulary name the detector can report; the
others are never claimed, so compare with an LLM detector only inside ``detectable``
(:func:`~creval.benchmarks.neocoder.techniques.agreement`).

What counts (heuristics are marked as such):

* ``for loop``: ``for`` statements; comprehensions and generator expressions too unless
  ``comprehension_is_for_loop=False`` (they iterate with ``for``, and a program told not
  to use for loops should not slip one into a comprehension).
* ``if statement``: ``if``/``elif`` statements and conditional expressions (``a if c
  else b``) unless ``ternary_is_if=False``. GPT-4, the paper's detector, counts them.
* ``while loop``, ``break statement``, ``continue statement``, ``pass statement``,
  ``match statement``: the statements.
* ``recursion``: a cycle in the call graph of the functions the code defines (direct or
  mutual, nested functions, methods called as ``self.f``/``cls.f``, lambdas bound to a
  name). Functions are keyed by name, so two same-named functions are merged (heuristic).
* ``tuple``: tuple displays and ``tuple()`` calls, and (feature ``tuple unpacking``)
  assignment targets such as ``a, b = ...`` and ``for i, x in ...``: GPT-4 labels most
  unpacking ``tuple``.
* ``set``: set displays and comprehensions, ``set()``/``frozenset()``.
* ``dictionary`` and ``hashmap`` (a Python dict is a hash map; the vocabulary has both
  names and the detector reports both unless ``dict_is_hashmap=False``): dict displays and
  comprehensions, ``dict()``, ``collections.defaultdict/Counter/OrderedDict``.
* ``sorting``: ``sorted()`` and any ``.sort()`` call.
* ``heap``: the ``heapq`` module, ``queue.PriorityQueue``.
* ``queue``: ``collections.deque``, ``queue.Queue``/``SimpleQueue``, ``.popleft()``, and
  (heuristic) a name that gets both ``.append(...)`` and ``.pop(0)``.
* ``stack``: ``queue.LifoQueue`` and (heuristic) a name that gets both ``.append(...)``
  and ``.pop()``/``.pop(-1)``.
* ``binary search``: the ``bisect`` module, or (heuristic) a ``while lo < hi`` /
  ``while lo <= hi`` loop that computes a midpoint of ``lo`` and ``hi`` with ``// 2`` or
  ``>> 1``.
* ``two pointers`` (heuristic): a ``while i < j`` loop, not a binary search, whose body
  increases ``i``, decreases ``j`` and uses both as indices (``a[i]``, ``s[j - 1]``).

Features without a vocabulary name (lambda, try/except, class, global, generator function,
math/itertools/functools, string methods, conditional expression) are reported in
``features`` only. Code that does not parse as Python 3 (C++, Python 2, cut-off output)
gives ``unparseable=True`` and no techniques.

>>> d = detect_static("def solve():\\n    for x in sorted(input().split()):\\n        print(x)")
>>> d.techniques, d.unparseable
(('for loop', 'sorting'), False)
>>> detect_static("int main() { return 0; }").unparseable
True
"""

from __future__ import annotations

import ast
import warnings
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from creval.benchmarks.neocoder.techniques import VOCABULARY

__all__ = ["FEATURES", "StaticDetection", "detect_static", "detectable_techniques"]

#: Every feature the detector can report, mapped to the vocabulary names it implies.
FEATURES: Mapping[str, tuple[str, ...]] = {
    "for loop": ("for loop",), "list comprehension": ("for loop",),
    "set comprehension": ("for loop", "set"),
    "dict comprehension": ("for loop", "dictionary", "hashmap"),
    "generator expression": ("for loop",), "while loop": ("while loop",),
    "if statement": ("if statement",), "conditional expression": (),
    "break statement": ("break statement",), "continue statement": ("continue statement",),
    "pass statement": ("pass statement",), "match statement": ("match statement",),
    "recursion": ("recursion",), "tuple": ("tuple",), "tuple unpacking": ("tuple",),
    "set": ("set",), "dictionary": ("dictionary", "hashmap"), "sorting": ("sorting",),
    "heap": ("heap",), "queue": ("queue",), "stack": ("stack",), "bisect": ("binary search",),
    "binary search loop": ("binary search",), "two pointers loop": ("two pointers",),
    "lambda": (), "generator function": (), "try/except": (), "class": (),
    "global statement": (), "math module": (), "itertools": (), "functools": (),
    "string method": (),
}  # fmt: skip

_STRING_METHODS = frozenset({
    "split", "rsplit", "join", "strip", "lstrip", "rstrip", "replace", "lower", "upper", "find",
    "rfind", "startswith", "endswith", "isdigit", "isalpha", "isalnum", "isupper", "islower",
    "isspace", "zfill", "ljust", "rjust", "center", "swapcase", "title", "capitalize",
    "splitlines", "partition", "rpartition",
})  # fmt: skip
_CALL_FEATURES: Mapping[str, str] = {
    "sorted": "sorting", "set": "set", "frozenset": "set", "dict": "dictionary",
    "tuple": "tuple", "collections.defaultdict": "dictionary", "collections.Counter": "dictionary",
    "collections.OrderedDict": "dictionary", "collections.deque": "queue",
    "queue.Queue": "queue", "queue.SimpleQueue": "queue", "queue.LifoQueue": "stack",
    "queue.PriorityQueue": "heap",
}  # fmt: skip
_MODULE_FEATURES: Mapping[str, str] = {
    "heapq": "heap", "bisect": "bisect", "math": "math module", "itertools": "itertools",
    "functools": "functools",
}  # fmt: skip
_NODE_FEATURES: Mapping[type, str] = {
    ast.For: "for loop", ast.AsyncFor: "for loop", ast.While: "while loop",
    ast.If: "if statement", ast.IfExp: "conditional expression",
    ast.Break: "break statement", ast.Continue: "continue statement",
    ast.Pass: "pass statement", ast.ListComp: "list comprehension",
    ast.SetComp: "set comprehension", ast.DictComp: "dict comprehension",
    ast.GeneratorExp: "generator expression", ast.Tuple: "tuple", ast.Set: "set",
    ast.Dict: "dictionary", ast.Lambda: "lambda", ast.Yield: "generator function",
    ast.YieldFrom: "generator function", ast.Try: "try/except", ast.ClassDef: "class",
    ast.Global: "global statement", ast.Nonlocal: "global statement",
}  # fmt: skip
_COMPREHENSIONS = ("list comprehension", "set comprehension", "dict comprehension",
                   "generator expression")  # fmt: skip


@dataclass(frozen=True)
class StaticDetection:
    """What :func:`detect_static` found in one code.

    ``techniques``: vocabulary names, in vocabulary order. ``features``: the fine-grained
    features found, in :data:`FEATURES` order. ``detectable``: the vocabulary names this
    detector (with these options) can report at all. ``error`` says why the code did not
    parse.
    """

    techniques: tuple[str, ...]
    unparseable: bool
    detectable: frozenset[str]
    features: tuple[str, ...] = ()
    error: str | None = None


def detectable_techniques(*, dict_is_hashmap: bool = True) -> frozenset[str]:
    """The vocabulary names :func:`detect_static` can report with these options.

    >>> sorted(detectable_techniques())[:4]
    ['binary search', 'break statement', 'continue statement', 'dictionary']
    >>> "greedy algorithm" in detectable_techniques(), "hashmap" in detectable_techniques(
    ...     dict_is_hashmap=False)
    (False, False)
    """
    names = {n for implied in FEATURES.values() for n in implied}
    if not dict_is_hashmap:
        names.discard("hashmap")
    return frozenset(names)


def detect_static(
    code: str,
    *,
    comprehension_is_for_loop: bool = True,
    ternary_is_if: bool = True,
    dict_is_hashmap: bool = True,
) -> StaticDetection:
    """The techniques visible in the syntax of ``code`` (see the module docstring).

    >>> code = '''
    ... import heapq
    ... from collections import deque
    ... def fact(n):
    ...     return 1 if n < 2 else n * fact(n - 1)
    ... def solve():
    ...     q = deque([1])
    ...     seen = {1: True}
    ...     while q:
    ...         heapq.heappush(h := [], q.popleft())
    ... '''
    >>> d = detect_static(code)
    >>> d.techniques
    ('if statement', 'while loop', 'recursion', 'queue', 'dictionary', 'hashmap', 'heap')
    >>> detect_static(code, ternary_is_if=False, dict_is_hashmap=False).techniques
    ('while loop', 'recursion', 'queue', 'dictionary', 'heap')
    >>> d.features
    ('while loop', 'conditional expression', 'recursion', 'dictionary', 'heap', 'queue')
    """
    detectable = detectable_techniques(dict_is_hashmap=dict_is_hashmap)
    if not isinstance(code, str):
        raise TypeError(f"detect_static expects source code as str, got {type(code).__name__}")
    try:
        with warnings.catch_warnings():  # e.g. "invalid decimal literal" in non-Python code
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(code.replace("\r\n", "\n"))
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return StaticDetection((), True, detectable, (), f"{type(exc).__name__}: {exc}")
    found = _Visitor().run(tree)
    names: set[str] = set()
    for feature in found:
        implied = set(FEATURES[feature])
        if feature in _COMPREHENSIONS and not comprehension_is_for_loop:
            implied.discard("for loop")
        if feature == "conditional expression" and ternary_is_if:
            implied.add("if statement")
        names |= implied
    if not dict_is_hashmap:
        names.discard("hashmap")
    techniques = tuple(n for n in VOCABULARY if n in names)
    features = tuple(f for f in FEATURES if f in found)
    return StaticDetection(techniques, False, detectable, features)


def _target_name(node: ast.expr) -> str | None:
    """``x`` or ``self.x``-style dotted name of a method call's receiver, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _target_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


class _Visitor(ast.NodeVisitor):
    """One pass over the tree collecting features, imports, calls and method receivers."""

    def __init__(self) -> None:
        self.found: set[str] = set()
        self.aliases: dict[str, str] = {}
        self.star_modules: list[str] = []
        self.receivers: dict[str, set[str]] = defaultdict(set)  # method -> receiver names
        self.calls: dict[str, set[str]] = defaultdict(set)  # function -> called names
        self.scope: list[str] = []

    def run(self, tree: ast.AST) -> set[str]:
        self.visit(tree)
        self._finish()
        return self.found

    # Definitions and the call graph -------------------------------------------------
    def _function(self, name: str, node: ast.AST) -> None:
        self.calls.setdefault(name, set())
        self.scope.append(name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node.name, node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node.name, node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if (
            len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Lambda)
        ):
            self.found.add("lambda")
            self._function(node.targets[0].id, node.value)
            return
        self.generic_visit(node)

    # Imports --------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.aliases[(alias.asname or alias.name).split(".")[0]] = (
                alias.name if alias.asname else alias.name.split(".")[0]
            )
            self._module(alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        self._module(module)
        for alias in node.names:
            if alias.name == "*":
                self.star_modules.append(module)
            else:
                self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"

    def _module(self, module: str) -> None:
        feature = _MODULE_FEATURES.get(module.split(".")[0])
        if feature:
            self.found.add(feature)

    def _qualified(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            for module in self.star_modules:  # from collections import *
                if f"{module}.{node.id}" in _CALL_FEATURES:
                    return f"{module}.{node.id}"
            return node.id
        if isinstance(node, ast.Attribute):
            base = self._qualified(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    # Calls ----------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        qualified = self._qualified(func)
        if qualified:
            feature = _CALL_FEATURES.get(qualified)
            if feature:
                self.found.add(feature)
            module_feature = _MODULE_FEATURES.get(qualified.split(".")[0])
            if module_feature and "." in qualified:
                self.found.add(module_feature)
        if self.scope:
            if isinstance(func, ast.Name):
                self.calls[self.scope[-1]].add(func.id)
            elif isinstance(func, ast.Attribute) and _target_name(func.value) in ("self", "cls"):
                self.calls[self.scope[-1]].add(func.attr)
        if isinstance(func, ast.Attribute):
            self._method(func, node)
        self.generic_visit(node)

    def _method(self, func: ast.Attribute, node: ast.Call) -> None:
        if func.attr == "sort":
            self.found.add("sorting")
        elif func.attr == "popleft":
            self.found.add("queue")
        elif func.attr in _STRING_METHODS:
            self.found.add("string method")
        receiver = _target_name(func.value)
        if receiver is None:
            return
        if func.attr == "pop":
            kind = _pop_kind(node)
            if kind:
                self.receivers[kind].add(receiver)
        elif func.attr == "append":
            self.receivers["append"].add(receiver)

    # Loops ----------------------------------------------------------------------------
    def visit_While(self, node: ast.While) -> None:
        pair = _ordered_pair(node.test)
        if pair:
            low, high = pair
            if _has_midpoint(node, low, high):
                self.found.add("binary search loop")
            elif (
                _moves(node, low, ast.Add)
                and _moves(node, high, ast.Sub)
                and _indexes(node, low)
                and _indexes(node, high)
            ):
                self.found.add("two pointers loop")
        self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Tuple) and not isinstance(node.ctx, ast.Load):
            self.found.add("tuple unpacking")
            super().generic_visit(node)
            return
        feature = _NODE_FEATURES.get(type(node))
        if feature:
            self.found.add(feature)
        elif isinstance(node, ast.Match):
            self.found.add("match statement")
        elif type(node).__name__ == "TryStar":  # Python 3.11+
            self.found.add("try/except")
        super().generic_visit(node)

    def _finish(self) -> None:
        if _has_cycle(self.calls):
            self.found.add("recursion")
        appended = self.receivers["append"]
        if appended & self.receivers["pop"]:
            self.found.add("stack")
        if appended & self.receivers["pop0"]:
            self.found.add("queue")


def _int_constant(node: ast.expr) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_constant(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _pop_kind(call: ast.Call) -> str | None:
    """``pop`` for ``x.pop()``/``x.pop(-1)``, ``pop0`` for ``x.pop(0)``, else None."""
    if call.keywords or len(call.args) > 1:
        return None
    if not call.args:
        return "pop"
    return {-1: "pop", 0: "pop0"}.get(_int_constant(call.args[0]))  # type: ignore[arg-type]


def _ordered_pair(test: ast.expr) -> tuple[str, str] | None:
    """``(low, high)`` for a loop test ``low < high``/``low <= high`` (or mirrored)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, right = _target_name(test.left), _target_name(test.comparators[0])
    if not left or not right or left == right:
        return None
    if isinstance(test.ops[0], (ast.Lt, ast.LtE)):
        return left, right
    if isinstance(test.ops[0], (ast.Gt, ast.GtE)):
        return right, left
    return None


def _has_midpoint(loop: ast.While, low: str, high: str) -> bool:
    """Whether the loop body halves an expression that involves both ``low`` and ``high``."""
    for node in ast.walk(loop):
        if isinstance(node, ast.BinOp) and (
            (isinstance(node.op, ast.FloorDiv) and _is_const(node.right, 2))
            or (isinstance(node.op, ast.RShift) and _is_const(node.right, 1))
        ):
            names = {_target_name(n) for n in ast.walk(node.left) if isinstance(n, ast.expr)}
            if low in names and high in names:
                return True
    return False


def _is_const(node: ast.expr, value: int) -> bool:
    return isinstance(node, ast.Constant) and node.value == value


def _moves(loop: ast.While, name: str, op: type) -> bool:
    """Whether the loop body does ``name += k`` / ``name = name + k`` (``op`` Add or Sub)."""
    for node in ast.walk(loop):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, op):
            if _target_name(node.target) == name:
                return True
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            value = node.value
            if (
                _target_name(node.targets[0]) == name
                and isinstance(value, ast.BinOp)
                and isinstance(value.op, op)
                and _target_name(value.left) == name
            ):
                return True
    return False


def _indexes(loop: ast.While, name: str) -> bool:
    """Whether ``name`` is used inside a subscript (``a[name]``, ``a[name - 1]``) in the loop."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Subscript):
            for inner in ast.walk(node.slice):
                if isinstance(inner, ast.expr) and _target_name(inner) == name:
                    return True
    return False


def _has_cycle(calls: Mapping[str, set[str]]) -> bool:
    """Whether the call graph restricted to defined functions has a cycle."""
    graph = {name: {c for c in callees if c in calls} for name, callees in calls.items()}
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(start: str) -> bool:
        stack = [(start, iter(graph[start]))]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                return True
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(graph[child])))
        return False

    return any(name not in state and visit(name) for name in graph)
