"""The program that runs one solution the way the NeoCoder repository's judge does.

It runs inside the sandbox (never in the creval process). Its stdin is a JSON payload
``{"code": ..., "inputs": ..., "outputs": ...}``; its last stdout line is ``MARKER``
followed by a JSON report ``{"status": "ran" | "not_executable", "correct": bool,
"outputs": [...] | null}``. What it reproduces, step by step:

1. ``exec`` the extracted code in a namespace holding the names the repository's judge
   module has in scope (``Counter``, ``defaultdict``, ``List``, ``json``, ``np`` ...);
   any exception means "not executable". Reading stdin at this point sees end of file.
2. First try: ``input`` is replaced by a function that takes no argument and returns
   the next line of ``[count] + every case's lines`` (tokens joined by one space),
   raising ``StopIteration`` when they run out; stdout is captured while ``solve()``
   runs; the captured text is stripped and split on newlines, and line i is compared
   with expected entry i for as many pairs as ``zip`` makes (extra or missing lines are
   not noticed). A string entry must be equal; a list entry is compared with
   ``list(map(str, eval(line)))``, which raises for ordinary output.
3. Any exception in step 2 leads to the second try: each case alone, without the count
   line, its whole stripped output compared with its expected entry; an exception in
   a case makes that case wrong.
"""

from __future__ import annotations

MARKER = "@@creval-neocoder-compat@@"

HARNESS = r'''
import builtins as _b, io as _io, json as _json, os as _os, sys as _sys
_payload = _json.loads(_sys.stdin.read())
_sys.stdin = _io.StringIO("")
_report_fd = _os.dup(1)
_sys.stdout = _io.StringIO()

_JUDGE_NAMES = {
    "defaultdict": ("collections", "defaultdict"), "Counter": ("collections", "Counter"),
    "ThreadPoolExecutor": ("concurrent.futures", "ThreadPoolExecutor"),
    "as_completed": ("concurrent.futures", "as_completed"), "json": ("json", None),
    "logging": ("logging", None), "np": ("numpy", None), "Text": ("typing", "Text"),
    "Dict": ("typing", "Dict"), "Any": ("typing", "Any"), "List": ("typing", "List"),
    "Optional": ("typing", "Optional"), "Tuple": ("typing", "Tuple"),
    "Union": ("typing", "Union"),
}


def _judge_namespace(code):
    import importlib, re
    ns = {"__name__": "src.evaluators.dp_evaluator", "__builtins__": _b}
    for name, (module, attr) in _JUDGE_NAMES.items():
        if re.search(r"\b" + name + r"\b", code):
            try:
                value = importlib.import_module(module)
            except ImportError:
                continue
            ns[name] = getattr(value, attr) if attr else value
    return ns


class _OnlyStdlibAndNumpy:
    """The reference environment had numpy (the judge imports it) and no sympy."""

    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in _sys.stdlib_module_names or top in ("numpy", "_distutils_hack"):
            return None
        raise ModuleNotFoundError("No module named " + repr(name), name=name)


_sys.meta_path.insert(0, _OnlyStdlibAndNumpy())


def _mock_input(lines):
    values = iter(lines)
    _b.input = lambda: next(values)


def _compare(out, expected):
    if isinstance(expected, list):
        return list(map(str, eval(out, {"__builtins__": _b}))) == expected
    return out == expected


def _first_try(ns, inputs, outputs):
    lines = [str(len(inputs))] + [" ".join(row) for case in inputs for row in case]
    _mock_input(lines)
    captured = _io.StringIO()
    _sys.stdout = captured
    try:
        ns["solve"]()
        text = captured.getvalue().strip().split("\n")
    finally:
        _sys.stdout = _io.StringIO()
    correct = [_compare(o, e) for o, e in zip(text, outputs)]
    return all(correct), text


def _second_try(ns, inputs, outputs):
    texts, correct = [], []
    for case, expected in zip(inputs, outputs):
        _mock_input([" ".join(row) for row in case])
        captured = _io.StringIO()
        _sys.stdout = captured
        try:
            ns["solve"]()
            text = captured.getvalue().strip()
            correct.append(_compare(text, expected))
            texts.append(text)
        except BaseException:
            correct.append(False)
            texts.append(None)
        finally:
            _sys.stdout = _io.StringIO()
    return all(correct), texts


def _main():
    code, inputs, outputs = _payload["code"], _payload["inputs"], _payload["outputs"]
    ns = _judge_namespace(code)
    try:
        exec(code, ns)
    except BaseException:
        return {"status": "not_executable", "correct": False, "outputs": None}
    try:
        correct, texts = _first_try(ns, inputs, outputs)
    except BaseException:
        correct, texts = _second_try(ns, inputs, outputs)
    return {"status": "ran", "correct": bool(correct), "outputs": texts}


_report = _main()
_os.write(_report_fd, ("\n" + MARKER + _json.dumps(_report) + "\n").encode())
_os._exit(0)
'''.replace("MARKER", repr(MARKER))
