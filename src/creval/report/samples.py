"""The per-sample view of the HTML report: one entry per unit of work, from ``records.jsonl``.

For each unit (the last record per key, as every reader takes it): its key, status and meta,
each model call's prompt and answers (judge calls marked by their role), the score rows of
``scores["table"]`` that belong to it (sandbox verdicts, invalid-answer reasons), why it was
excluded when its output says so, its other output fields, and the error of an error record.

Texts are interned (a prompt shared by 500 trials is stored once) and cut to a budget so the
page stays small; a cut text says how much is missing and where the full text is. The view
is data for the page's script, which inserts every text as text, never as HTML.
"""

from __future__ import annotations

import json
from typing import Any

from creval.records import Record

MAX_TEXT = 4000          # characters of one text
BUDGET = 3_000_000       # characters of all texts of the page
MAX_SAMPLES = 5000
MAX_CALLS = 60           # calls shown per sample (a step-wise unit can make hundreds)
MAX_ROWS = 10            # score rows per sample
#: score-row field -> unit field that identifies the unit ("__key__": the record key)
ROW_IDS = (("key", "__key__"), ("id", "id"), ("problem", "problem_id"),
           ("problem_id", "problem_id"), ("question_id", "question_id"), ("sample", "sample_id"))
#: fields that must also agree when both the row and the unit have them
ROW_DETAILS = ("round", "t", "repeat", "task")
EXCLUSION_FIELDS = ("skipped", "excluded", "exclusion", "invalid", "reason")


class _Texts:
    """Interned texts: each distinct text stored once, referred to by its index."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, text: str) -> int:
        if text not in self._index:
            self._index[text] = len(self.items)
            self.items.append(text)
        return self._index[text]


def cut_to_budget(texts: list[str], *, longest: int = MAX_TEXT, budget: int = BUDGET) -> tuple[list[str], int]:
    """Texts cut to at most ``longest`` characters, lowered until they fit ``budget``; and how
    many were cut.

    >>> cut_to_budget(["abc", "x" * 10], longest=5)[1]
    1
    >>> cut_to_budget(["abc", "x" * 10], longest=5)[0][1].startswith("xxxxx\\n[... 5 more")
    True
    """
    limit = longest
    while limit > 200 and sum(min(len(t), limit) for t in texts) > budget:
        limit //= 2
    out, cut = [], 0
    for text in texts:
        if len(text) > limit:
            cut += 1
            text = (text[:limit] + f"\n[... {len(text) - limit} more characters not shown; "
                    "the full text is in records.jsonl]")
        out.append(text)
    return out, cut


def _content(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if p.get("type", "text") == "text" else "[image]"
                       for p in content if isinstance(p, dict))
    return str(content)


def prompt_text(request: dict[str, Any]) -> str:
    """A request's messages as text; roles are shown when there is more than one message.

    >>> prompt_text({"messages": [{"role": "user", "content": "Name 10 nouns."}]})
    'Name 10 nouns.'
    >>> print(prompt_text({"messages": [{"role": "system", "content": "Be brief."},
    ...                                 {"role": "user", "content": "Hi"}]}))
    [system]
    Be brief.
    <BLANKLINE>
    [user]
    Hi
    """
    messages = [m for m in request.get("messages") or [] if isinstance(m, dict)]
    if len(messages) == 1:
        return _content(messages[0].get("content"))
    return "\n\n".join(f"[{m.get('role')}]\n{_content(m.get('content'))}" for m in messages)


def _short(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 300 else text[:300] + " ..."


class _RowIndex:
    """Score-table rows by the unit they describe."""

    def __init__(self, rows: list[Any]) -> None:
        self._by: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in rows:
            if isinstance(row, dict):
                for field, unit_field in ROW_IDS:
                    if row.get(field) is not None:
                        self._by.setdefault((unit_field, str(row[field])), []).append(row)

    def rows_of(self, record: Record) -> list[dict[str, Any]]:
        ident = {"__key__": record.key, **record.unit}
        found: dict[int, dict[str, Any]] = {}
        for _, unit_field in ROW_IDS:
            if ident.get(unit_field) is None:
                continue
            for row in self._by.get((unit_field, str(ident[unit_field])), []):
                if all(str(row[f]) == str(ident[f]) for f in ROW_DETAILS if f in row and f in ident):
                    found[id(row)] = row
        return list(found.values())[:MAX_ROWS]


def _exclusion(record: Record, rows: list[dict[str, Any]]) -> str | None:
    for source in (record.output, *rows):
        for field in EXCLUSION_FIELDS:
            value = source.get(field)
            if value not in (None, "", [], {}, False):
                return f"{field}: {_short(value)}"
    return None


def _sample(record: Record, texts: _Texts, rows: _RowIndex) -> dict[str, Any]:
    calls = []
    for call in record.calls[:MAX_CALLS]:
        answers = [c.get("text", "") for c in call.get("completions") or [] if isinstance(c, dict)]
        calls.append({"role": str(call.get("role", "target")), "model": str(call.get("model", "")),
                      "prompt": texts.add(prompt_text(call.get("request") or {})),
                      "answers": [texts.add(str(a)) for a in answers]})
    mine = rows.rows_of(record)
    other = {k: v for k, v in record.output.items() if k != "text"}
    sample: dict[str, Any] = {
        "key": record.key, "status": record.status, "seconds": round(record.seconds, 3),
        "meta": {str(k): _short(v) for k, v in record.unit.items() if not str(k).endswith("digest")},
        "calls": calls, "more_calls": max(0, len(record.calls) - MAX_CALLS),
        "scores": [{str(k): _short(v) for k, v in row.items()} for row in mine],
        "excluded": _exclusion(record, mine),
    }
    if not record.calls and isinstance(record.output.get("text"), str):
        sample["answer"] = texts.add(record.output["text"])
    if other:
        sample["output"] = texts.add(json.dumps(other, ensure_ascii=False, indent=1, default=str))
    if record.error:
        sample["error"] = texts.add(record.error)
    return sample


def sample_view(records: dict[str, Record], table: list[Any]) -> dict[str, Any]:
    """The data of the sample view: ``{"texts", "samples", "total", "cut_texts"}``.

    >>> r = Record(key="trial-0", status="ok", output={"text": "cat dog"}, calls=[
    ...     {"role": "target", "request": {"messages": [{"role": "user", "content": "Nouns?"}]},
    ...      "completions": [{"text": "cat dog"}]}])
    >>> view = sample_view({"trial-0": r}, [{"key": "trial-0", "score": 81.2}])
    >>> [view["texts"][i] for i in (view["samples"][0]["calls"][0]["prompt"],
    ...                             *view["samples"][0]["calls"][0]["answers"])]
    ['Nouns?', 'cat dog']
    >>> view["samples"][0]["scores"]
    [{'key': 'trial-0', 'score': '81.2'}]
    """
    texts, rows = _Texts(), _RowIndex(table)
    chosen = list(records.values())[:MAX_SAMPLES]
    samples = [_sample(r, texts, rows) for r in chosen]
    cut, cut_count = cut_to_budget(texts.items)
    return {"texts": cut, "samples": samples, "total": len(records), "cut_texts": cut_count}


def embed_json(value: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``
    can close the element or start markup (they are written as ``\\u003c`` and so on).

    >>> embed_json({"a": "</script><b>&"})
    '{"a": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
