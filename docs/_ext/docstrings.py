"""A Griffe extension for the API pages: creval's docstrings are written for readers of the
source (reST roles, bare doctest examples); this renders them as Markdown without changing them.

* a doctest example (``>>>`` lines and their output, up to a blank line) becomes a fenced
  ``pycon`` code block, so it reads as code and its brackets are not taken for links;
* ``:class:`X``` and the other reST roles become code spans, and ``::`` ending a paragraph
  becomes ``:`` (the indented block after it is already code in Markdown).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj|const|ref):`~?([^`]+)`")


def markdown(text: str) -> str:
    """The docstring ``text`` as Markdown.

    >>> markdown("See :func:`add`::")
    'See `add`:'
    >>> markdown("Sum.\\n\\n" + ">" * 3 + " 1 + 1\\n2\\n\\nMore.").splitlines()
    ['Sum.', '', '```pycon', '>>> 1 + 1', '2', '```', '', 'More.']
    """
    out: list[str] = []
    state = "text"  # or "fence" (a fenced block of the docstring's own) or "doctest"
    indent = ""
    for line in text.split("\n"):
        stripped = line.strip()
        if state == "doctest" and not stripped:
            out.append(f"{indent}```")
            state = "text"
        elif state == "text" and stripped.startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            state = "doctest"
        elif state != "doctest" and stripped.startswith("```"):
            state = "text" if state == "fence" else "fence"
        elif state == "text":
            line = ROLE.sub(r"`\1`", line)
            if line.endswith("::") and not line.endswith(":::"):
                line = line[:-1]
        out.append(line)
    if state == "doctest":
        out.append(f"{indent}```")
    return "\n".join(out)


class DocstringsAsMarkdown(griffe.Extension):
    """Rewrites every loaded docstring with :func:`markdown`."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
