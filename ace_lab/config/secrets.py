"""Credentials kept out of reprs, messages and recorded URLs; endpoint URLs checked early."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, overload
from urllib.parse import urlsplit

from ace_lab.bounded import field_bounds

#: ``scheme://user:password@`` — the credentials part of any URL in a text.
_URL_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/\s?#]*@")
#: ``?api_key=...``, ``&token=...``, ``&sig=...``: query parameters that carry a credential.
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&][^=&#\s]*(?:key|token|secret|passw|pwd|sig|auth|credential)[^=&#\s]*=)"
    r"[^&#\s]*",
    re.IGNORECASE,
)
REDACTED = "***"
#: What an endpoint URL field accepts, in words.
ENDPOINT_URL = "an http:// or https:// URL with a host (e.g. http://127.0.0.1:8000/v1)"


@overload
def redact_url(text: str) -> str: ...
@overload
def redact_url(text: None) -> None: ...
def redact_url(text: str | None) -> str | None:
    """``text`` with the credentials of every URL in it masked, for anything written or logged.

    ``https://user:pass@host/v1`` becomes ``https://***@host/v1`` and ``?api_key=sk-1`` becomes
    ``?api_key=***``; the rest (scheme, host, port, path) stays, so the endpoint is still named.
    Idempotent; works on a bare URL, a model identity (``url#model``) or a whole message.
    """
    if text is None:
        return None
    text = _URL_USERINFO.sub(lambda m: m.group("scheme") + REDACTED + "@", text)
    return _SECRET_PARAM.sub(lambda m: m.group("name") + REDACTED, text)


def hidden(_value: Any) -> str:
    """A secret as messages and reprs show it: never its value."""
    return REDACTED


def endpoint_problem(url: Any) -> str | None:
    """Why ``url`` is not an endpoint URL (None when it is): it needs http(s) and a host."""
    try:
        parts = urlsplit(str(url))
        scheme, host, _ = parts.scheme, parts.hostname, parts.port  # a bad port: ValueError
    except ValueError:
        scheme, host = "", None
    if scheme not in ("http", "https") or not host:
        return f"is not an endpoint URL: it needs {ENDPOINT_URL}"
    return None


def safe_repr(self: object) -> str:
    """The dataclass repr with secrets shown as ``'***'`` and URL credentials masked."""
    shown = []
    for f in dataclasses.fields(self):  # type: ignore[arg-type]
        if not f.repr:
            continue
        value = getattr(self, f.name)
        b = field_bounds(f)
        if b is not None and value is not None and b.redact is not None:
            text = b.show(value)
        elif isinstance(value, str):
            text = repr(redact_url(value))
        else:
            text = repr(value)
        shown.append(f"{f.name}={text}")
    return f"{type(self).__name__}({', '.join(shown)})"
