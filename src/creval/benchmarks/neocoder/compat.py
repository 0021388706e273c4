"""``--judge-compat neocoder``: the NeoCoder repository's correctness verdicts, bugs included.

Use it to reproduce published numbers; use the default judge (:mod:`.judge`) to measure.
On the 1,194 GPT-4 ``codes`` shipped in ``NeoCoder.json`` it gives the repository judge's
label for every code (pass@1 32/199 at t = 0).

How the default judge differs from the compat judge:

- **Extraction.** Default: the fenced block that defines ``solve`` (text outside fences
  ignored), all helpers kept wherever they are defined, test scaffolding after ``solve``
  dropped, one ``solve()`` call appended; a program without ``solve`` runs as a script.
  Compat: the text after the first ```` ```python ```` fence; ``sys.stdin.read()`` and
  similar calls rewritten to ``input()`` (so reading all of stdin returns one line); the
  code starts at the first ``import``/``from`` before the first ``def`` (a code with
  ``from`` but no ``import`` there is "not parsable"); ``solve`` ends at its first empty
  line and everything after it, helpers included, is dropped.
- **Execution.** Default: each program runs as its own sandboxed process per test case,
  under CPU, wall, memory and output limits, with a real stdin. Compat: the code is
  ``exec``-ed into a namespace that already holds the judge's imports (``Counter``,
  ``defaultdict``, ``List``, ``json``, ...), ``input`` is replaced by a zero-argument
  function that raises ``StopIteration`` at the end (so ``input("prompt")`` fails and
  some loops end silently), and only the standard library is importable. It still runs
  in the sandbox, one process per code.
- **Tests.** Default: one run per test case, stdin ``1`` then the case (no count line for
  single-test problems, read from the statement). Compat: one run with all cases after
  their count, and only if that raises, one run per case *without* the count line.
- **Comparison.** Default: the whole output, every line, token by token (whitespace
  insensitive), optional float tolerance, any letter case when the statement allows it;
  list-typed expected outputs are the lines of the answer. Compat: output stripped and
  split on newlines, zipped with the expected entries (missing or extra lines are not
  noticed), exact string equality per line, and list-typed entries compared with
  ``eval`` of the line, so problems with multi-line answers are never correct.
- **Time limit.** Default: 6 s CPU per test case, 12 s wall. Compat: 6 s per code for
  everything (the repository measures wall time in a thread that is never stopped; here
  it is CPU time, which makes the verdicts deterministic), 30 s wall.
- **Excluded problem.** The repository's metric drops 1773F (no human solutions);
  :data:`UPSTREAM_EXCLUDED` names it so that metric code can do the same. Both judges
  judge it.
- **Not reproduced.** The repository executes every code in one shared namespace, so
  names defined by earlier codes leak into later ones; the compat judge gives each code
  a fresh namespace. This changes no repository-judge label on the shipped codes, but 2
  of the labels of the "blank-line fix" variant (``cut_at_blank_line=False``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from creval.benchmarks.neocoder._upstream_harness import HARNESS, MARKER
from creval.benchmarks.neocoder.extract import upstream_fenced_code, upstream_parse_code
from creval.benchmarks.neocoder.judge import run_programs

if TYPE_CHECKING:
    from creval.sandbox import Limits

UPSTREAM_EXCLUDED = frozenset({"1773F"})
CompatStatus = Literal["ran", "not_executable", "timeout", "not_parsable"]


@dataclass
class CompatResult:
    """The repository judge's verdict on one code: ``correct`` and how the run went."""

    correct: bool
    status: CompatStatus
    outputs: list[str | None] | None = None
    program: str | None = None
    detail: str = ""


def compat_limits() -> Limits:
    """6 s of CPU time per code (the repository's limit), 30 s wall, 2 GB."""
    from creval.sandbox import Limits

    return Limits(cpu_seconds=6, wall_seconds=30, memory_mb=2048, output_bytes=4_000_000)


def upstream_program(text: str | None, *, fenced: bool = True, cut_at_blank_line: bool = True
                     ) -> str | None:
    """The code the repository would run for a model answer ``text``.

    ``fenced=False`` for text that is already the inside of the fence (the ``codes``
    field of ``NeoCoder.json``). Without a ```` ```python ```` fence the repository parses
    the raw answer, and so does this.

    >>> print(upstream_program("Here:\\n```python\\ndef solve():\\n    print(1)\\n\\nsolve()\\n```"))
    def solve():
        print(1)
    <BLANKLINE>
    """
    if text is None:
        return None
    code = upstream_fenced_code(text) if fenced else None
    return upstream_parse_code(text if code is None else code, cut_at_blank_line=cut_at_blank_line)


def _result(program: str, stdout: str, verdict: str, detail: str) -> CompatResult:
    at = stdout.rfind(MARKER)
    if at != -1:
        try:
            report = json.loads(stdout[at + len(MARKER):])
            return CompatResult(bool(report["correct"]), report["status"], report["outputs"],
                                program)
        except (ValueError, KeyError, TypeError):
            pass
    if verdict == "timeout":
        return CompatResult(False, "timeout", None, program, detail)
    # The process died before reporting (memory, output flood, os._exit in the code, ...):
    # the repository would have seen an exception or a dead worker; both mean not correct.
    return CompatResult(False, "not_executable", None, program, detail or verdict)


def judge_compat_many(
    items: Sequence[tuple[str | None, Sequence[Sequence[Sequence[str] | str]],
                          Sequence[str | list[str]]]],
    *,
    limits: Limits | None = None,
    workers: int | None = None,
) -> list[CompatResult]:
    """Judge ``(program, inputs, outputs)`` triples like the repository does.

    ``program`` comes from :func:`upstream_program` (None: "not parsable"); ``inputs`` and
    ``outputs`` are a problem's annotated test cases as stored upstream.
    """
    limits = limits or compat_limits()
    jobs = []
    for program, inputs, outputs in items:
        if program is not None:
            payload = json.dumps({"code": program, "inputs": inputs, "outputs": outputs})
            jobs.append((HARNESS, payload, limits))
    executions = iter(run_programs(jobs, workers=workers))
    results = []
    for program, _, _ in items:
        if program is None:
            results.append(CompatResult(False, "not_parsable"))
            continue
        execution = next(executions)
        results.append(_result(program, execution.stdout, execution.verdict.value,
                               execution.detail))
    return results
