"""Get the program out of a model's answer.

Two extractors:

- :func:`extract_program` (default) follows the *solve() convention* of the NeoCoder
  prompt: the answer holds a function ``solve()`` that reads stdin and prints the answer,
  and the judge calls it. It reads fenced code blocks only (text outside fences is
  ignored), prefers the block that defines ``solve``, keeps every definition (helpers
  defined after ``solve`` too), drops the test scaffolding models like to add after
  ``solve`` (example runs, ``if __name__ == "__main__":`` blocks, ``sys.stdin = ...``),
  and appends exactly one call ``solve()``. A program without ``solve`` runs as a script.
- :func:`upstream_fenced_code` and :func:`upstream_parse_code` reproduce what the
  NeoCoder repository does (for ``--judge-compat neocoder``), quirks included.
"""

from __future__ import annotations

import ast
import re

_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:^[ \t]*```|\Z)", re.M | re.S)
_PYTHON_TAGS = {"", "python", "py", "python3", "py3"}
_SOLVE_DEF = re.compile(r"^(?:async\s+)?def\s+solve\s*\(", re.M)


def fenced_blocks(answer: str) -> list[str]:
    """The Python (or untagged) fenced code blocks of ``answer``, in order.

    An unterminated last fence (an answer cut by the token limit) runs to the end.

    >>> fenced_blocks("Here:\\n```python\\nprint(1)\\n```\\nand\\n```\\nx = 2\\n```")
    ['print(1)\\n', 'x = 2\\n']
    >>> fenced_blocks("```py\\ndef solve():\\n    pass")
    ['def solve():\\n    pass']
    >>> fenced_blocks("```bash\\nls\\n```")
    []
    """
    return [m.group(2) for m in _FENCE.finditer(answer) if m.group(1).lower() in _PYTHON_TAGS]


def choose_block(answer: str) -> str | None:
    """The block to judge: the first fenced block defining ``solve``, else the longest
    fenced block, else the whole answer when it has no fence and parses as Python.

    >>> choose_block("```python\\nimport os\\n```\\n```python\\ndef solve():\\n    print(1)\\n```")
    'def solve():\\n    print(1)\\n'
    >>> choose_block("I cannot solve this.") is None
    True
    """
    blocks = fenced_blocks(answer)
    if blocks:
        for block in blocks:
            if _SOLVE_DEF.search(block):
                return block
        return max(blocks, key=len)
    if "```" in answer:
        return None
    try:
        tree = ast.parse(answer)
    except SyntaxError:
        return None
    has_code = any(not isinstance(n, ast.Expr) or isinstance(n.value, ast.Call) for n in tree.body)
    return answer if has_code else None


def _defines_solve(node: ast.stmt) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "solve"


def _kept_after_solve(node: ast.stmt) -> bool:
    """Definitions survive after ``solve``; runs, guards and attribute assignments do not."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                         ast.ClassDef)):
        return True
    if isinstance(node, ast.Assign):
        return all(isinstance(t, ast.Name) for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name)
    return False


def call_solve(program: str) -> str:
    """``program`` under the solve() convention: scaffolding after ``solve`` dropped and
    one ``solve()`` call appended. Programs without a top-level ``solve`` are unchanged.

    Statements before ``def solve`` are kept as written; after it, only imports,
    function and class definitions and assignments to plain names are kept.

    >>> src = "def solve():\\n    print(2 * int(input()))\\n\\nsolve()\\n\\ndef helper():\\n    pass\\n"
    >>> print(call_solve(src))
    def solve():
        print(2 * int(input()))
    <BLANKLINE>
    def helper():
        pass
    <BLANKLINE>
    solve()
    <BLANKLINE>
    >>> call_solve("print(input())\\n")
    'print(input())\\n'
    """
    try:
        tree = ast.parse(program)
    except SyntaxError:
        # It will fail as a syntax error; keep it as written so the error shows the source.
        return program + "\nsolve()\n" if _SOLVE_DEF.search(program) else program
    solve_at = next((i for i, n in enumerate(tree.body) if _defines_solve(n)), None)
    if solve_at is None:
        return program
    lines = program.splitlines(keepends=True)
    drop: set[int] = set()
    for node in tree.body[solve_at + 1 :]:
        if not _kept_after_solve(node):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            end = node.end_lineno or node.lineno
            while end < len(lines) and not lines[end].strip():
                end += 1  # the blank lines after a dropped statement go with it
            drop.update(range(first - 1, end))
    kept = "".join(line for i, line in enumerate(lines) if i not in drop).rstrip()
    return kept + "\n\nsolve()\n"


def extract_program(answer: str) -> str | None:
    """The program to run for a model answer, or None when there is no code.

    >>> answer = "Sure!\\n```python\\ndef solve():\\n    print(sum(map(int, input().split())))\\n```"
    >>> print(extract_program(answer))
    def solve():
        print(sum(map(int, input().split())))
    <BLANKLINE>
    solve()
    <BLANKLINE>
    """
    block = choose_block(answer)
    if block is None or not block.strip():
        return None
    return call_solve(block)


# --- upstream behaviour (compat mode) -------------------------------------------------

_UPSTREAM_STDIN_REWRITES = (
    "sys.stdin.read()",
    "stdin.read()",
    "sys.stdin.readlines()",
    "stdin.readlines()",
    "sys.stdin.readline()",
    "stdin.readline()",
)


def upstream_fenced_code(answer: str) -> str | None:
    """The NeoCoder repository's answer parser: text after the first ```` ```python ````
    (or ```` ```Python ````) up to the next ```` ``` ```` or the end; None without one.

    >>> upstream_fenced_code("x\\n```python\\nprint(1)\\n```\\n```python\\nprint(2)\\n```")
    '\\nprint(1)\\n'
    >>> upstream_fenced_code("```py\\nprint(1)\\n```") is None
    True
    """
    starts = [answer.index(tag) for tag in ("```python", "```Python") if tag in answer]
    if not starts:
        return None
    start = min(starts) + len("```python")
    end = answer.find("```", start)
    return answer[start : end if end != -1 else len(answer)]


def _upstream_cut_before_def(code: str) -> str | None:
    def_at = code.find("def")
    if def_at == -1:
        return None
    import_at = code.find("import", 0, def_at)
    from_at = code.find("from", 0, def_at)
    if import_at == -1 and from_at == -1:
        return code[def_at:]
    if from_at != -1 and import_at > from_at:
        return code[from_at:]
    if import_at != -1 and (from_at == -1 or from_at > import_at):
        return code[import_at:]
    return None  # a "from" without any "import" before the first "def"


def upstream_parse_code(code: str, *, cut_at_blank_line: bool = True) -> str | None:
    """The NeoCoder repository's code extractor, quirks included.

    It rewrites ``sys.stdin.read()``-style calls to ``input()`` (so a program that reads
    all of stdin at once sees one line), starts at the first ``import``/``from`` before
    the first occurrence of the text ``def`` (None when there is a ``from`` but no
    ``import``, or no ``def`` at all), and keeps the text before the first ``solve(``
    plus the following lines while they are indented or start with ``solve``: the body
    of ``solve`` ends at its first empty line, and everything after it (helpers, calls)
    is dropped. ``cut_at_blank_line=False`` keeps empty lines (the "blank-line fix").

    >>> print(upstream_parse_code("import sys\\ndef solve():\\n    a = 1\\n\\n    print(a)\\n"))
    import sys
    def solve():
        a = 1
    <BLANKLINE>
    >>> upstream_parse_code("from math import *\\ndef solve(): pass") is None
    False
    >>> upstream_parse_code("print('no function here')") is None
    True
    """
    for call in _UPSTREAM_STDIN_REWRITES:
        code = code.replace(call, "input()")
    cut = _upstream_cut_before_def(code)
    if cut is None:
        return None
    solve_at = cut.find("solve(")
    kept = cut[:solve_at]
    for line in cut[solve_at:].split("\n"):
        if line.startswith((" ", "\t", "solve")) or (not cut_at_blank_line and line == ""):
            kept += line + "\n"
        else:
            break
    return kept
