"""How a call reaches an OpenAI-compatible endpoint: credentials, retries, responses.

Credentials in a base URL (``https://user:pass@host/v1``) are sent as an HTTP Basic header and
kept out of the URL the client logs. A call is retried when the same request may succeed a
moment later: the connection failed or timed out, the server answered 408, 409, 429 or 5xx, or
it answered 200 with a body that is no completion (``{"choices": []}``, truncated JSON, no
message). Everything else — a bad request, a wrong key, an unknown model — fails at once. The
wait before a retry is exponential, or what the server's ``Retry-After`` asks for, and never
more than a cap.
"""

from __future__ import annotations

import base64
import email.utils
import json
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import openai

from ace_lab.bounded import Bounded, bounded
from ace_lab.config import LLMSettings, redact_url


def split_credentials(url: str) -> tuple[str, str | None]:
    """``url`` without its ``user:password@`` part, and that part (decoded) or None."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url, None
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"  # IPv6
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    userinfo = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}"
    return urlunsplit(parts._replace(netloc=netloc)), userinfo


def openai_client(base_url: str, api_key: str, timeout_s: float) -> openai.OpenAI:
    """An ``openai.OpenAI`` for ``base_url`` that never retries by itself (callers do).

    URL credentials become the ``Authorization: Basic`` header — what httpx would make of them
    — so they are not part of the request URL that httpx and openai log with every request.
    """
    base_url, userinfo = split_credentials(base_url)
    headers = None
    if userinfo is not None:
        token = base64.b64encode(userinfo.encode("utf-8")).decode("ascii")
        headers = {"Authorization": f"Basic {token}"}
    return openai.OpenAI(
        base_url=base_url,
        api_key=api_key,
        timeout=timeout_s,
        max_retries=0,
        default_headers=headers,
    )


#: HTTP statuses worth retrying unchanged (the set the openai client itself retries).
RETRY_STATUSES = frozenset({408, 409, 429})


class MalformedResponse(RuntimeError):
    """The server answered 200 with a body that holds no completion (empty choices, ...)."""


def is_transient(exc: BaseException) -> bool:
    """Whether the request that raised ``exc`` may succeed if sent again unchanged."""
    if isinstance(exc, openai.APIConnectionError | MalformedResponse | json.JSONDecodeError):
        return True  # APITimeoutError is an APIConnectionError; truncated JSON a JSONDecodeError
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUSES or exc.status_code >= 500
    return False


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms`` or ``Retry-After``), if it did."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    try:
        if (ms := headers.get("retry-after-ms")) is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)  # an HTTP date
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


@dataclass(frozen=True)
class RetryPolicy(Bounded):
    """``retries`` after the first attempt; the k-th waits ``backoff_s * 2**(k-1)`` seconds or
    the server's ``Retry-After``, at most ``wait_max_s`` (set by :class:`LLMSettings`)."""

    retries: int = bounded(
        LLMSettings.max_retries, lo=0, hi=100, help="retries after the first attempt"
    )
    backoff_s: float = bounded(
        LLMSettings.retry_backoff_s, lo=0, hi=3600, help="seconds before the first retry"
    )
    wait_max_s: float = bounded(
        LLMSettings.retry_wait_max_s, lo=0, hi=86400, help="longest wait between retries"
    )

    @classmethod
    def from_settings(cls, cfg: LLMSettings) -> RetryPolicy:
        return cls(cfg.max_retries, cfg.retry_backoff_s, cfg.retry_wait_max_s)

    @property
    def attempts(self) -> int:
        return self.retries + 1

    def wait(self, attempt: int, exc: BaseException) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based) raised ``exc``."""
        asked = retry_after(exc)
        wait = asked if asked is not None else self.backoff_s * 2 ** (attempt - 1)
        return max(0.0, min(wait, self.wait_max_s))


def describe(exc: BaseException, limit: int = 300) -> str:
    """``Type: message`` of ``exc``, shortened and with URL credentials masked."""
    text = redact_url(str(exc)).strip().replace("\n", " ")
    if len(text) > limit:
        text = text[:limit] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_SURROGATE = re.compile("[\ud800-\udfff]")


def completion_parts(response: Any) -> tuple[str, int, int, int]:
    """(text, prompt tokens, completion tokens, server-cached prompt tokens) of a response.

    Raises :class:`MalformedResponse` when the body holds no completion: no ``choices``, an
    empty list, or a choice without a message.
    """
    choices = getattr(response, "choices", None)
    if not choices:
        raise MalformedResponse(f"response has no choices ({type(response).__name__})")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise MalformedResponse("response choice has no message")
    text = getattr(message, "content", None) or ""
    if not isinstance(text, str):
        raise MalformedResponse(f"message content is {type(text).__name__}, not text")
    # A lone surrogate (a model can emit one through a JSON escape) cannot be written as UTF-8
    # to the cache, an archive or a results file: each becomes U+FFFD here, once.
    text = _SURROGATE.sub("\ufffd", text)
    usage = getattr(response, "usage", None)
    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    details = getattr(usage, "prompt_tokens_details", None)
    server_cached = int(getattr(details, "cached_tokens", 0) or 0)
    return text, prompt_tokens, completion_tokens, server_cached
