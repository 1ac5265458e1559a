"""Credentials kept out of reprs, messages and recorded URLs; endpoint URLs checked early."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, overload
from urllib.parse import urlsplit

from ace_lab.bounded import field_bounds

#: ``scheme://user:password@`` — the credentials part of any URL in a text.
_URL_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/\s?#]*@")
#: ``?api_key=...``, ``&token=...``, ``?code=...``, ``;api_key=...``: query or matrix
#: parameters that carry a credential.
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&;][^=&;#\s]*(?:key|token|secret|passw|pwd|sig|auth|credential|code|session"
    r"|jwt|bearer|access)[^=&;#\s]*=)[^&;#\s]*",
    re.IGNORECASE,
)
#: A path segment that is a key (``https://gw/<key>/v1``): a known key prefix, or a long token
#: of letters and digits (no word of a real path is 24 characters of mixed letters and digits).
_SECRET_SEGMENT = re.compile(
    r"(?:(?<=/)|^)(?:(?:sk|pk|rk|api|key|tok|token)[-_][A-Za-z0-9_-]{8,}"
    r"|(?=[A-Za-z0-9_-]{24,}(?:[/?#;\s]|$))(?=[A-Za-z_-]*[0-9])(?=[0-9_-]*[A-Za-z])"
    r"[A-Za-z0-9_-]{24,})(?=[/?#;\s]|$)"
)
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")
REDACTED = "***"
#: What an endpoint URL field accepts, in words.
ENDPOINT_URL = "an http:// or https:// URL with a host (e.g. http://127.0.0.1:8000/v1)"


@overload
def redact_url(text: str) -> str: ...
@overload
def redact_url(text: None) -> None: ...
def redact_url(text: str | None) -> str | None:
    """``text`` with the credentials of every URL in it masked, for anything written or logged.

    ``https://user:pass@host/v1`` becomes ``https://***@host/v1``, ``?api_key=sk-1`` (or
    ``?code=…``, ``;api_key=…``) becomes ``?api_key=***`` and a key as a path segment
    (``https://gw/sk-…/v1``) becomes ``***``; the rest (scheme, host, port, the other path
    segments) stays, so the endpoint is still named.
    Idempotent; works on a bare URL, a model identity (``url#model``) or a whole message.
    """
    if text is None:
        return None
    text = _URL_USERINFO.sub(lambda m: m.group("scheme") + REDACTED + "@", text)
    text = _SECRET_PARAM.sub(lambda m: m.group("name") + REDACTED, text)
    return _URL.sub(lambda m: _redact_path(m.group(0)), text)


def _redact_path(url: str) -> str:
    """``url`` with a key written as a path segment masked (the host is never touched)."""
    scheme, _, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme}://{host}{slash}{_SECRET_SEGMENT.sub(REDACTED, path)}" if slash else url


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
