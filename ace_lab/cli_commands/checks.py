"""Checks ``ace-lab`` runs before any LLM call or server start, each failing with one line.

Names (methods, data sets, model tiers) are checked against their registries and an unknown
one lists the close matches; settings come from :func:`ace_lab.config.load_settings`, which
rejects a malformed ``ACE_LAB_LLM_BASE_URL``; and a remote endpoint is probed once (with the
configured bounded retries) before a command that needs it starts, so a dead URL fails in
seconds instead of once per question.
"""

from __future__ import annotations

import difflib
import socket
import time
import urllib.request
from collections.abc import Iterable
from urllib.parse import urlsplit

from ace_lab.cli_commands.errors import UsageError
from ace_lab.config import Settings, load_settings, redact_url

#: Seconds one probe connection may take (a reachable endpoint accepts at once).
PROBE_TIMEOUT_S = 5.0


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean a, b?"`` for the close matches of ``name`` in ``known`` (or "")."""
    close = difflib.get_close_matches(name, list(known), n=3, cutoff=0.6)
    return f"; did you mean {', '.join(close)}?" if close else ""


def check_method(name: str) -> str:
    """``name`` if the registry can build it; else a :class:`UsageError` with close matches."""
    from ace_lab.registry import METHODS, spec

    try:
        spec(name)
    except (KeyError, ValueError) as exc:
        reason = str(exc.args[0] if exc.args else exc)
        reason = reason.split("; known:")[0]  # the close matches say more than every name
        hint = did_you_mean(name, METHODS)
        raise UsageError(f"{reason}{hint} (every method: ace-lab methods)") from None
    return name


def check_methods(names: Iterable[str]) -> list[str]:
    """Every name checked (the first unknown one fails)."""
    return [check_method(name) for name in names]


def known_datasets() -> list[str]:
    """Benchmark set names and the user corpora registered on this machine."""
    from ace_lab.data.registry import DATASETS
    from ace_lab.data.userdir import registered_corpora

    return [*DATASETS, *registered_corpora()]


def check_dataset(name: str) -> str:
    """``name`` if it is a benchmark set or a user corpus; else a :class:`UsageError`."""
    from ace_lab.data.registry import get_spec

    try:
        get_spec(name)
    except KeyError:
        known = known_datasets()
        raise UsageError(
            f"unknown data set {name!r}{did_you_mean(name, known)} "
            f"(known: {', '.join(known)}; add your own with: ace-lab corpus add NAME PATH)"
        ) from None
    return name


def check_tier(name: str, source: str) -> str:
    """``name`` if it is a local model tier; ``source`` says where it was given."""
    from ace_lab.llm.models import TIERS

    if name not in TIERS:
        message = f"unknown model tier {name!r} ({source}){did_you_mean(name, TIERS)}"
        message += f"; tiers: {', '.join(TIERS)}"
        if source.startswith("ACE_LAB_"):
            from ace_lab.bounded import ConfigError

            raise ConfigError(message)
        raise UsageError(message)
    return name


def settings_for(tier: str | None = None, threads: int | None = None) -> Settings:
    """:func:`load_settings` with a command's ``--model``/``--tier`` and ``--threads``, the tier
    checked (a flag naming no tier is a usage error, ``ACE_LAB_LLM_TIER`` naming none a
    configuration error)."""
    overrides: dict[str, object] = {}
    if tier:
        overrides["tier"] = check_tier(tier, "--model/--tier")
    if threads:
        overrides["threads"] = threads
    settings = load_settings(**overrides)
    if not tier:
        check_tier(settings.llm.tier, "ACE_LAB_LLM_TIER")
    return settings


def _uses_proxy(scheme: str, host: str) -> bool:
    """Whether the HTTP client would reach ``host`` through a proxy (a direct probe can't tell)."""
    proxies = urllib.request.getproxies()
    return bool(proxies.get(scheme) or proxies.get("all")) and not urllib.request.proxy_bypass(host)


def _reason(exc: OSError) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, socket.gaierror):
        return "host not found"
    if isinstance(exc, TimeoutError):
        return "no answer"
    return exc.strerror or str(exc) or type(exc).__name__


def check_store(settings: Settings, methods: Iterable[str]) -> None:
    """That the graph store setting names a known backend, when one of ``methods`` reads the
    graph through Cypher (its spec's ``needs_store``): a bad URL fails here, in one line,
    rather than when that method's first question starts the store, after the others ran."""
    from ace_lab.registry import spec

    if any(spec(name).needs_store for name in methods):
        from ace_lab.graph.store.url import parse_store_url

        parse_store_url(settings.graph.store)


def check_endpoint(settings: Settings) -> None:
    """That a remote LLM endpoint names a model and accepts connections (nothing to check for
    the local tier).

    One TCP connection to the base URL's host and port, retried as an LLM call is
    (``max_retries`` with exponential backoff: 3.5 s in all by default), then an
    :class:`~ace_lab.llm.LLMError` naming the endpoint. No request is sent, so no tokens are
    spent; behind an HTTP proxy the probe is skipped (the proxy, not the host, is reached).
    """
    from ace_lab.llm import LLMError
    from ace_lab.llm.endpoint import RetryPolicy

    cfg = settings.llm
    if cfg.is_local or cfg.base_url is None:
        return
    if not cfg.model:
        from ace_lab.bounded import ConfigError

        raise ConfigError("ACE_LAB_LLM_BASE_URL is set but ACE_LAB_LLM_MODEL names no model")
    parts = urlsplit(cfg.base_url)
    host = parts.hostname or ""
    if _uses_proxy(parts.scheme, host):
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    policy = RetryPolicy.from_settings(cfg)
    timeout = min(cfg.timeout_s, PROBE_TIMEOUT_S)
    for attempt in range(1, policy.attempts + 1):
        try:
            with socket.create_connection((host, port), timeout=timeout):
                return
        except OSError as exc:
            if attempt == policy.attempts:
                tries = f"{attempt} attempt{'s' if attempt > 1 else ''}"
                raise LLMError(
                    f"cannot reach the LLM endpoint {redact_url(cfg.base_url)} "
                    f"({_reason(exc)}, {tries}); start the server or fix ACE_LAB_LLM_BASE_URL"
                ) from exc
            time.sleep(policy.wait(attempt, exc))
