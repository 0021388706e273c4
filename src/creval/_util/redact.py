"""Credentials out of URLs before creval writes or prints them.

A base URL may carry a user name and password (``http://user:secret@host/v1``) or a key in
its query string (``?api_key=...``). creval sends the URL as given but writes and prints
only :func:`redact_url`'s form: the manifest, the report, the console and error messages.
The model identity (cache keys, resume checks) is built from the redacted form too, so it
stays the same when a credential is rotated.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "***"
#: Query parameters whose values are secrets (matched case-insensitively, anywhere in the name).
_SECRET_PARAM = re.compile(r"key|token|secret|passw|pwd|auth|sig|credential|session", re.I)
_URL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>()]+")


def redact_url(url: str) -> str:
    """``url`` with its password (or lone user token) and secret query values replaced.

    >>> redact_url("http://user:pa55@LocalHost:8080/v1")
    'http://user:***@LocalHost:8080/v1'
    >>> redact_url("https://host/v1?api-version=2024-02-01&api_key=sk-123")
    'https://host/v1?api-version=2024-02-01&api_key=***'
    >>> redact_url("http://sk-abc@host/v1")
    'http://***@host/v1'
    >>> redact_url("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:{REDACTED}@{host}" if colon else f"{REDACTED}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_PARAM.search(k) for k, _ in pairs):
            query = urlencode(
                [(k, REDACTED if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="*"
            )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str) -> str:
    """Every URL in ``text`` redacted (for error messages and logs).

    >>> redact_text("Cannot reach http://u:p@h/v1 (refused).")
    'Cannot reach http://u:***@h/v1 (refused).'
    """
    return _URL.sub(lambda m: redact_url(m.group(0)), text)


#: Command-line options whose value is a secret.
SECRET_OPTIONS = ("--api-key",)


def redact_argv(argv: list[str]) -> list[str]:
    """A command line with URLs redacted and the values of secret options hidden.

    >>> redact_argv(["creval", "run", "--api-key", "sk-1", "--base-url=http://u:p@h/v1"])
    ['creval', 'run', '--api-key', '***', '--base-url=http://u:***@h/v1']
    >>> redact_argv(["creval", "--api-key=sk-1"])
    ['creval', '--api-key=***']
    """
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            out.append(REDACTED)
            hide_next = False
            continue
        name, eq, _ = arg.partition("=")
        if name in SECRET_OPTIONS:
            out.append(f"{name}={REDACTED}" if eq else arg)
            hide_next = not eq
            continue
        out.append(redact_text(arg))
    return out
