"""One LLM client for every endpoint: the embedded local tier, OpenAI, vLLM, Ollama, ...

Everything goes through the official ``openai`` package. ``LLM.chat`` adds the exact response
cache, the ledger, trace attachment and retries on transient errors; ``LLM.json`` adds JSON
schema output with validation, bounded retries and a caller-documented default (that path
lives in :mod:`ace_lab.llm.structured`); ``LLM.map`` runs independent calls concurrently with a
limit.

The local server is started lazily, on the first call the cache cannot answer, so runs that are
fully cached need no model at all.

Retries (see :mod:`ace_lab.llm.endpoint`) are bounded by ``settings.llm.max_retries``, honour a
server's ``Retry-After`` up to a cap, and are logged with the call's tag; a call that still fails
raises :class:`LLMError` naming the endpoint (credentials masked) and the tag, and nothing of it
is cached. Credentials never leave through the model identity, logs or error messages.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ace_lab.config import Settings, load_settings, redact_url
from ace_lab.evidence import LLMCall, record_llm_call
from ace_lab.llm import server
from ace_lab.llm.cache import CachedResponse, ResponseArchive, ResponseCache, cache_key
from ace_lab.llm.completion import Completion as Completion  # re-exported: its home before
from ace_lab.llm.endpoint import (
    RetryPolicy,
    completion_parts,
    describe,
    is_transient,
    openai_client,
)
from ace_lab.llm.inflight import InFlight, map_ordered, request_limit
from ace_lab.llm.ledger import Ledger
from ace_lab.llm.ledger_file import log_model_call
from ace_lab.llm.models import get_tier
from ace_lab.llm.serving import resolve, serving_identity
from ace_lab.llm.structured import Message, StructuredOutput

R = TypeVar("R")
log = logging.getLogger(__name__)


class LLMError(RuntimeError):
    """An LLM call failed after its retries (the cause is chained)."""


class LLM(StructuredOutput):
    """Cached, ledgered, traced chat completions over an OpenAI-compatible endpoint.

    ``client`` may be any object with ``chat.completions.create(**kwargs)`` returning an
    OpenAI-shaped response; tests pass scripted ones. An injected client's identity is prefixed
    with ``injected:<class>:`` (unless ``model_identity`` is given), so its replies never share
    cache entries with the real model's. By default it is an ``openai.OpenAI``
    pointed at ``settings.llm.base_url``, or at the embedded server for the local tier.
    ``json`` (schema-validated output with a fallback) comes from
    :class:`~ace_lab.llm.structured.StructuredOutput`.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        client: Any | None = None,
        cache: ResponseCache | None = None,
        ledger: Ledger | None = None,
        model_identity: str | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        cfg = self.settings.llm
        self.ledger = ledger or Ledger()
        self.cache: ResponseCache | None = cache
        if self.cache is None and cfg.cache:
            self.cache = ResponseCache(Path(self.settings.cache_dir) / "llm_cache.sqlite")
        if cfg.is_local:
            tier = get_tier(cfg.tier)
            self.model = tier.name
            # Weights plus the settings that change the server's arithmetic (ace_lab.llm.serving).
            model_dir = self.settings.model_dir
            options = resolve(cfg.serving, model_dir)
            numerics = serving_identity(options, model_dir, cfg.threads)
            self.model_identity = model_identity or f"local:{tier.name}:{tier.identity}{numerics}"
            #: Where calls go, as errors and logs name it (the server's URL once started).
            self.endpoint = f"local {tier.name} server"
        else:
            if not cfg.model:
                raise LLMError(
                    "ACE_LAB_LLM_BASE_URL is set but no model is named: set ACE_LAB_LLM_MODEL "
                    "(e.g. gpt-4o-mini, Qwen/Qwen2.5-7B-Instruct, qwen2.5:7b)"
                )
            self.model = cfg.model
            # Credentials change no answer: they stay out of the identity (and the cache).
            self.endpoint = redact_url(cfg.base_url.rstrip("/"))
            self.model_identity = redact_url(model_identity or f"{self.endpoint}#{cfg.model}")
        if client is not None and model_identity is None:
            # An injected client (a test's scripted replies) is not the model: its responses
            # must never be cached, or served, under the real model's identity.
            self.model_identity = f"injected:{type(client).__name__}:{self.model_identity}"
        self._client = client
        self._client_lock = threading.Lock()
        #: Read-only response archives consulted after the cache (see ResponseArchive).
        self.archives: list[ResponseArchive] = []
        #: Every answered request: key -> response (lets a build archive what it used).
        self.answered: dict[str, CachedResponse] = {}
        self._json_mode = "json_schema"  # downgraded to json_object if the server rejects it
        self.retry = RetryPolicy.from_settings(cfg)
        #: At most ``concurrency`` requests at once to a remote endpoint (ace_lab.llm.inflight).
        self.inflight = InFlight(request_limit(cfg))
        self._sleep: Callable[[float], None] = time.sleep  # tests record the waits

    # ----------------------------------------------------------------- endpoint
    @property
    def takes_grammar(self) -> bool:
        """Whether the endpoint samples under a GBNF ``grammar``: the local tier (a llama.cpp
        server, xllamacpp or llama-server) does; a remote one only when ``settings.llm.gbnf``
        says it is llama.cpp."""
        cfg = self.settings.llm
        return cfg.is_local or cfg.gbnf

    def client(self) -> Any:
        """The underlying OpenAI client; starts the embedded server on first use."""
        with self._client_lock:
            if self._client is None:
                cfg = self.settings.llm
                if cfg.is_local:
                    info = server.start(self.settings)
                    base_url, api_key = info.base_url, "local"
                    self.endpoint = info.base_url
                else:
                    base_url, api_key = cfg.base_url, cfg.api_key or "none"
                # openai does not retry by itself: chat retries, bounded and logged
                self._client = openai_client(base_url, api_key, cfg.timeout_s)
            return self._client

    # --------------------------------------------------------------------- chat
    def request(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_tokens: int = 512,
        stop: Sequence[str] | None = None,
        seed: int = 0,
        response_format: dict[str, Any] | None = None,
        grammar: str | None = None,
    ) -> dict[str, Any]:
        """The full request, as keyed by the cache (model identity included).

        Numbers are normalised (``temperature=0`` and ``0.0`` are one request, one key). A GBNF
        ``grammar`` is part of the request only when given, so every request made without one
        keeps the key it always had (the committed replay archives are keyed so).
        """
        request = {
            "model_identity": self.model_identity,
            "messages": [dict(m) for m in messages],
            "temperature": float(temperature),
            "top_p": float(top_p),
            "max_tokens": int(max_tokens),
            "stop": [str(s) for s in stop] if stop else None,
            "seed": int(seed),
            "response_format": response_format,
        }
        if grammar is not None:
            request["grammar"] = grammar
        return request

    def chat(
        self,
        messages: Sequence[Message],
        *,
        tag: str,
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_tokens: int = 512,
        stop: Sequence[str] | None = None,
        seed: int = 0,
        response_format: dict[str, Any] | None = None,
        use_cache: bool = True,
        accept: Callable[[str], bool] | None = None,
        grammar: str | None = None,
    ) -> Completion:
        """One chat completion. ``tag`` names the caller in the ledger (e.g. ``ace.router``).

        The response is cached only if it is non-empty and ``accept(text)`` (if given) is true.
        ``use_cache=False`` neither reads nor writes the cache. Transient failures are retried
        (see the module docstring); :class:`LLMError` when they persist. ``grammar``: a GBNF
        grammar the server samples under (llama.cpp servers only: see :attr:`takes_grammar`).
        """
        request = self.request(
            messages,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            stop=stop,
            seed=seed,
            response_format=response_format,
            grammar=grammar,
        )
        key = cache_key(request)
        cache = self.cache if use_cache else None
        start = time.perf_counter()
        if use_cache and (hit := self._lookup(key)) is not None:
            completion = Completion(
                hit.text,
                0,
                0,
                True,
                time.perf_counter() - start,
                self.model,
                key,
                hit.prompt_tokens,
                hit.completion_tokens,
                hit.latency_s,
            )
            self.answered[key] = hit
            self._record(tag, completion)
            return completion
        attempts = [0]
        try:
            text, prompt_tokens, completion_tokens, server_cached = self._create(
                request, tag, attempts
            )
        except Exception as exc:
            latency = time.perf_counter() - start
            self._record(
                tag, None, latency=latency, error=redact_url(repr(exc)), attempt=attempts[0]
            )
            raise
        latency = time.perf_counter() - start
        completion = Completion(
            text,
            prompt_tokens,
            completion_tokens,
            False,
            latency,
            self.model,
            key,
            prompt_tokens,
            completion_tokens,
            latency,
            server_cached,
        )
        if text.strip():
            # Archived even when rejected: a replay must see the same invalid output to take
            # the same retry/fallback path. Only accepted outputs enter the live cache.
            self.answered[key] = CachedResponse(text, prompt_tokens, completion_tokens, latency)
            if cache is not None and (accept is None or accept(text)):
                cache.put(key, request, text, prompt_tokens, completion_tokens, latency)
        self._record(tag, completion, attempt=attempts[0])
        return completion

    def _lookup(self, key: str) -> CachedResponse | None:
        hit = self.cache.get(key) if self.cache is not None else None
        for archive in self.archives:
            if hit is not None:
                break
            hit = archive.get(key)
        return hit

    def _create(
        self, request: dict[str, Any], tag: str, attempts: list[int]
    ) -> tuple[str, int, int, int]:
        """Send ``request``, retrying transient failures; ``attempts[0]`` counts the sends."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": request["messages"],
            "temperature": request["temperature"],
            "top_p": request["top_p"],
            "max_tokens": request["max_tokens"],
            "seed": request["seed"],
        }
        if request["stop"]:
            kwargs["stop"] = request["stop"]
        if request["response_format"] is not None:
            kwargs["response_format"] = request["response_format"]
        if request.get("grammar") is not None:  # llama.cpp's own field of the request body
            kwargs["extra_body"] = {"grammar": request["grammar"]}

        policy = self.retry
        for attempt in range(1, policy.attempts + 1):
            attempts[0] = attempt
            try:
                client = self.client()  # a local server's start is not the call's cost
                with self.inflight.slot() as flight:
                    sent = time.perf_counter()
                    parts = completion_parts(client.chat.completions.create(**kwargs))
                log_model_call(self, tag, parts, time.perf_counter() - sent, flight)
                return parts
            except Exception as exc:
                if not is_transient(exc):
                    exc.add_note(f"LLM call {tag!r} to {self.endpoint} (model {self.model})")
                    raise
                if attempt == policy.attempts:
                    raise LLMError(
                        f"LLM call {tag!r} to {self.endpoint} (model {self.model}) failed after "
                        f"{attempt} attempt{'s' if attempt > 1 else ''}: {describe(exc)}"
                    ) from exc
                wait = policy.wait(attempt, exc)
                log.warning(
                    "LLM call %r to %s: attempt %d of %d failed (%s); retrying in %.2f s",
                    tag,
                    self.endpoint,
                    attempt,
                    policy.attempts,
                    describe(exc),
                    wait,
                    extra={"llm_tag": tag, "llm_attempt": attempt, "llm_endpoint": self.endpoint},
                )
                self._sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _record(
        self,
        tag: str,
        completion: Completion | None,
        *,
        latency: float = 0.0,
        error: str | None = None,
        attempt: int = 1,
    ) -> None:
        call = LLMCall(
            tag=tag,
            model=self.model,
            prompt_tokens=completion.prompt_tokens if completion else 0,
            completion_tokens=completion.completion_tokens if completion else 0,
            latency_s=round(completion.latency_s if completion else latency, 4),
            cache_hit=completion.cache_hit if completion else False,
            attempt=attempt,
            response_prompt_tokens=completion.response_prompt_tokens if completion else 0,
            response_completion_tokens=completion.response_completion_tokens if completion else 0,
            response_latency_s=completion.response_latency_s if completion else None,
            server_cached_tokens=completion.server_cached_tokens if completion else 0,
            error=error,
        )
        self.ledger.record(call)
        record_llm_call(call)

    # ---------------------------------------------------------------- concurrency
    def map(
        self,
        fn: Callable[[Any], R],
        items: Iterable[Any],
        max_workers: int | None = None,
        desc: str | None = None,
    ) -> list[R]:
        """``[fn(x) for x in items]`` run concurrently (limit: ``settings.llm.concurrency``).

        Each task runs in a copy of the caller's context, so its LLM calls attach to the
        caller's current trace step. Results keep input order; the first exception propagates
        and the items not started yet are cancelled (a dead endpoint fails a batch once, not
        once per item). ``desc`` shows a progress bar labelled with it.
        """
        limit = max_workers or self.settings.llm.concurrency
        return map_ordered(fn, items, limit, desc)

    # --------------------------------------------------------------------- misc
    def ping(self) -> Completion:
        """One tiny real call (cached like any other)."""
        from ace_lab.prompts import load_prompt

        return self.chat(load_prompt("ping").messages(), tag="llm.ping", max_tokens=16)


_DEFAULT: LLM | None = None
_DEFAULT_LOCK = threading.Lock()


def get_llm(settings: Settings | None = None) -> LLM:
    """A process-wide LLM for the given (or environment) settings, reused while they match."""
    global _DEFAULT
    settings = settings or load_settings()
    with _DEFAULT_LOCK:
        if _DEFAULT is None or _DEFAULT.settings != settings:
            _DEFAULT = LLM(settings)
        return _DEFAULT
