"""One LLM client for every endpoint: the embedded local tier, OpenAI, vLLM, Ollama, ...

Everything goes through the official ``openai`` package. ``LLM.chat`` adds the exact response
cache, the ledger, trace attachment and retries on transient errors; ``LLM.json`` adds JSON
schema output with validation, bounded retries and a caller-documented default; ``LLM.map``
runs independent calls concurrently with a limit.

The local server is started lazily, on the first call the cache cannot answer, so runs that are
fully cached need no model at all.
"""

from __future__ import annotations

import contextvars
import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import openai
from pydantic import BaseModel, ValidationError
from tenacity import (
    retry,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)
from tqdm.auto import tqdm

from ace_lab.config import Settings, load_settings
from ace_lab.evidence import LLMCall, current_step, record_llm_call
from ace_lab.llm import server
from ace_lab.llm.cache import CachedResponse, ResponseArchive, ResponseCache, cache_key
from ace_lab.llm.ledger import Ledger
from ace_lab.llm.models import get_tier

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

Message = dict[str, str]

#: Errors worth retrying: the request may succeed unchanged a moment later.
TRANSIENT_ERRORS = (
    openai.APIConnectionError,
    openai.APITimeoutError,
    openai.RateLimitError,
    openai.InternalServerError,
)


class LLMError(RuntimeError):
    """An LLM call failed after its retries (the cause is chained)."""


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int  # tokens this call spent (0 on a cache hit)
    completion_tokens: int
    cache_hit: bool
    latency_s: float
    model: str
    key: str
    #: Tokens the model processed to produce this response, also when it came from the cache:
    #: the cost of the call on a cold cache, which is what cost tables report.
    response_prompt_tokens: int = 0
    response_completion_tokens: int = 0
    #: The model time of the response (this call's own for a miss; as recorded for a hit).
    response_latency_s: float | None = None
    #: Prompt tokens the *server* answered from its own prompt (KV) cache, as it reports them
    #: (``usage.prompt_tokens_details.cached_tokens``; llama.cpp keeps earlier prompts' KV in
    #: RAM). Non-zero means ``latency_s`` is warmer than a cold call. 0 for a response-cache hit.
    server_cached_tokens: int = 0


@dataclass(frozen=True)
class JsonResult(Generic[T]):
    """A validated structured output, or the caller's default when every attempt failed."""

    value: T
    fallback: bool
    attempts: int
    errors: tuple[str, ...] = ()


def extract_json(text: str) -> Any:
    """Parse the JSON object in ``text``: bare, fenced in ```json, or surrounded by prose."""
    stripped = text.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", stripped, re.DOTALL)
    if fenced:
        stripped = fenced.group(1).strip()
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        start, end = stripped.find("{"), stripped.rfind("}")
        if start == -1 or end <= start:
            raise
        return json.loads(stripped[start : end + 1])


def _without_string_bounds(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: _without_string_bounds(v)
            for k, v in node.items()
            if not (k in ("maxLength", "minLength") and node.get("type") == "string")
        }
    if isinstance(node, list):
        return [_without_string_bounds(v) for v in node]
    return node


def schema_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` that asks a server to follow ``schema``'s JSON schema.

    String length bounds are left out of what is sent: llama.cpp compiles ``maxLength: n`` into
    n nested optional grammar rules, and sampling under such a grammar slows to a fraction of a
    token per second. List bounds (``maxItems``) stay; long strings are truncated on validation.
    """
    return {
        "type": "json_schema",
        "json_schema": {
            "name": schema.__name__,
            "schema": _without_string_bounds(schema.model_json_schema()),
            "strict": True,
        },
    }


def _schema_rejected(error: openai.BadRequestError) -> bool:
    text = str(error).lower()
    return "response_format" in text or "json_schema" in text or "schema" in text


class LLM:
    """Cached, ledgered, traced chat completions over an OpenAI-compatible endpoint.

    ``client`` may be any object with ``chat.completions.create(**kwargs)`` returning an
    OpenAI-shaped response; tests pass scripted ones. By default it is an ``openai.OpenAI``
    pointed at ``settings.llm.base_url``, or at the embedded server for the local tier.
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
            self.model_identity = model_identity or f"local:{tier.name}:{tier.identity}"
        else:
            if not cfg.model:
                raise LLMError(
                    "ACE_LAB_LLM_BASE_URL is set but no model is named: set ACE_LAB_LLM_MODEL "
                    "(e.g. gpt-4o-mini, Qwen/Qwen2.5-7B-Instruct, qwen2.5:7b)"
                )
            self.model = cfg.model
            self.model_identity = model_identity or f"{cfg.base_url.rstrip('/')}#{cfg.model}"
        self._client = client
        self._client_lock = threading.Lock()
        #: Read-only response archives consulted after the cache (see ResponseArchive).
        self.archives: list[ResponseArchive] = []
        #: Every answered request: key -> response (lets a build archive what it used).
        self.answered: dict[str, CachedResponse] = {}
        self._json_mode = "json_schema"  # downgraded to json_object if the server rejects it

    # ----------------------------------------------------------------- endpoint
    def client(self) -> Any:
        """The underlying OpenAI client; starts the embedded server on first use."""
        with self._client_lock:
            if self._client is None:
                cfg = self.settings.llm
                if cfg.is_local:
                    info = server.start(self.settings)
                    base_url, api_key = info.base_url, "local"
                else:
                    base_url, api_key = cfg.base_url, cfg.api_key or "none"
                self._client = openai.OpenAI(
                    base_url=base_url, api_key=api_key, timeout=cfg.timeout_s, max_retries=0
                )
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
    ) -> dict[str, Any]:
        """The full request, as keyed by the cache (model identity included)."""
        return {
            "model_identity": self.model_identity,
            "messages": [dict(m) for m in messages],
            "temperature": temperature,
            "top_p": top_p,
            "max_tokens": max_tokens,
            "stop": list(stop) if stop else None,
            "seed": seed,
            "response_format": response_format,
        }

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
    ) -> Completion:
        """One chat completion. ``tag`` names the caller in the ledger (e.g. ``ace.router``).

        The response is cached only if it is non-empty and ``accept(text)`` (if given) is true.
        ``use_cache=False`` neither reads nor writes the cache.
        """
        request = self.request(
            messages,
            temperature=temperature,
            top_p=top_p,
            max_tokens=max_tokens,
            stop=stop,
            seed=seed,
            response_format=response_format,
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
        try:
            text, prompt_tokens, completion_tokens, server_cached = self._create(request)
        except Exception as exc:
            self._record(tag, None, latency=time.perf_counter() - start, error=repr(exc))
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
        self._record(tag, completion)
        return completion

    def _lookup(self, key: str) -> CachedResponse | None:
        hit = self.cache.get(key) if self.cache is not None else None
        for archive in self.archives:
            if hit is not None:
                break
            hit = archive.get(key)
        return hit

    def _create(self, request: dict[str, Any]) -> tuple[str, int, int, int]:
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

        @retry(
            retry=retry_if_exception_type(TRANSIENT_ERRORS),
            stop=stop_after_attempt(max(1, self.settings.llm.max_retries)),
            wait=wait_exponential(multiplier=0.5, max=8),
            reraise=True,
        )
        def create() -> Any:
            return self.client().chat.completions.create(**kwargs)

        response = create()
        text = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        details = getattr(usage, "prompt_tokens_details", None)
        server_cached = int(getattr(details, "cached_tokens", 0) or 0)
        return text, prompt_tokens, completion_tokens, server_cached

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

    # --------------------------------------------------------------------- json
    def json(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        tag: str,
        default: T | Callable[[], T],
        attempts: int = 3,
        temperature: float = 0.0,
        max_tokens: int = 512,
        seed: int = 0,
        use_cache: bool = True,
    ) -> JsonResult[T]:
        """A ``schema`` instance parsed from the model's JSON, or ``default`` after ``attempts``.

        The schema goes to the server as ``response_format`` (``json_schema``; if the server
        rejects that, ``json_object`` with the schema in the system message). Attempt k > 1
        uses seed + k - 1 and temperature ≥ 0.5, so a retry is a different request rather than
        the same deterministic failure. Invalid outputs are never cached.
        """
        errors: list[str] = []
        for attempt in range(1, attempts + 1):
            request_messages, response_format = self._json_request(messages, schema)
            try:
                completion = self.chat(
                    request_messages,
                    tag=tag,
                    temperature=temperature if attempt == 1 else max(temperature, 0.5),
                    max_tokens=max_tokens,
                    seed=seed + attempt - 1,
                    response_format=response_format,
                    use_cache=use_cache,
                    accept=lambda text: _validates(text, schema),
                )
            except openai.BadRequestError as exc:
                if self._json_mode == "json_schema" and _schema_rejected(exc):
                    self._json_mode = "json_object"
                    errors.append(
                        f"attempt {attempt}: server rejected json_schema; using json_object"
                    )
                    continue
                errors.append(f"attempt {attempt}: {exc!r}")
                continue
            try:
                value = schema.model_validate(extract_json(completion.text))
            except (ValueError, ValidationError) as exc:
                errors.append(f"attempt {attempt}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            return JsonResult(value, False, attempt, tuple(errors))
        fallback = default() if callable(default) else default
        self._note_fallback(tag, errors)
        return JsonResult(fallback, True, attempts, tuple(errors))

    def _json_request(
        self, messages: Sequence[Message], schema: type[BaseModel]
    ) -> tuple[list[Message], dict[str, Any]]:
        if self._json_mode == "json_schema":
            return [dict(m) for m in messages], schema_format(schema)
        instruction = "Reply with one JSON object that follows this JSON schema:\n" + json.dumps(
            schema.model_json_schema()
        )
        out = [dict(m) for m in messages]
        if out and out[0]["role"] == "system":
            out[0]["content"] = out[0]["content"] + "\n\n" + instruction
        else:
            out.insert(0, {"role": "system", "content": instruction})
        return out, {"type": "json_object"}

    @staticmethod
    def _note_fallback(tag: str, errors: list[str]) -> None:
        step = current_step()  # the open step, if any, shows the fallback
        if step is not None:
            step.notes.append(f"{tag}: fell back to default after {len(errors)} failed attempts")
            step.outputs.setdefault("fallbacks", []).append({"tag": tag, "errors": errors})

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
        caller's current trace step. Results keep input order; the first exception propagates.
        ``desc`` shows a progress bar labelled with it.
        """
        items = list(items)
        limit = max(1, min(max_workers or self.settings.llm.concurrency, len(items) or 1))
        bar = tqdm(total=len(items), desc=desc, unit="call", disable=desc is None)
        try:
            if limit == 1:
                results = []
                for x in items:
                    results.append(fn(x))
                    bar.update(1)
                return results
            with ThreadPoolExecutor(max_workers=limit) as pool:
                futures = [pool.submit(contextvars.copy_context().run, fn, x) for x in items]
                for future in as_completed(futures):
                    future.result()
                    bar.update(1)
                return [f.result() for f in futures]
        finally:
            bar.close()

    # --------------------------------------------------------------------- misc
    def ping(self) -> Completion:
        """One tiny real call (cached like any other)."""
        from ace_lab.prompts import load_prompt

        return self.chat(load_prompt("ping").messages(), tag="llm.ping", max_tokens=16)


def _validates(text: str, schema: type[BaseModel]) -> bool:
    try:
        schema.model_validate(extract_json(text))
    except (ValueError, ValidationError):
        return False
    return True


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
