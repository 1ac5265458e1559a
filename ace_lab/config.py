"""Settings for ace_lab: paths, LLM endpoint, embeddings. Every field has an env override.

One frozen dataclass tree, built by :func:`load_settings` from defaults and ``ACE_LAB_*``
environment variables. Notebooks and the CLI both call ``load_settings()`` so they agree.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, overload

#: The repository root when ace_lab runs from a checkout (holds pyproject.toml), else None.
_PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT: Path | None = (
    _PACKAGE_DIR.parent if (_PACKAGE_DIR.parent / "pyproject.toml").exists() else None
)


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def _default_cache_dir() -> Path:
    if REPO_ROOT is not None:
        return REPO_ROOT / ".cache"
    base = Path(_env("XDG_CACHE_HOME", str(Path.home() / ".cache")))
    return base / "ace_lab"


def _default_model_dir() -> Path:
    # Joined GGUF files are large (up to ~1 GB); keep them outside any one checkout.
    base = Path(_env("XDG_CACHE_HOME", str(Path.home() / ".cache")))
    return base / "ace_lab" / "models"


# ----------------------------------------------------------------------------------- secrets
#: ``scheme://user:password@`` — the credentials part of any URL in a text.
_URL_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/\s?#]*@")
#: ``?api_key=...``, ``&token=...``, ``&sig=...``: query parameters that carry a credential.
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&][^=&#\s]*(?:key|token|secret|passw|pwd|sig|auth|credential)[^=&#\s]*=)"
    r"[^&#\s]*",
    re.IGNORECASE,
)
REDACTED = "***"


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


def _secret() -> Any:
    """A settings field holding a credential: never shown by ``repr``/``str``."""
    return field(default=None, metadata={"secret": True})


def _safe_repr(self: object) -> str:
    """The dataclass repr with secrets shown as ``'***'`` and URL credentials masked."""
    shown = []
    for f in fields(self):  # type: ignore[arg-type]
        if not f.repr:
            continue
        value = getattr(self, f.name)
        if f.metadata.get("secret") and value is not None:
            text = repr(REDACTED)
        elif isinstance(value, str):
            text = repr(redact_url(value))
        else:
            text = repr(value)
        shown.append(f"{f.name}={text}")
    return f"{type(self).__name__}({', '.join(shown)})"


SERVING_BACKENDS = ("auto", "xllamacpp", "llama-server")
KV_TYPES = ("f16", "q8_0")
FLASH_ATTN = ("auto", "on", "off")


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, int(value)))


@dataclass(frozen=True)
class ServingOptions:
    """llama.cpp settings of the local server (speed only, unless a field says otherwise)."""

    #: ``auto`` | ``xllamacpp`` | ``llama-server`` (see the module docstring).
    backend: str = "auto"
    #: Flash attention (``auto`` | ``on`` | ``off``): one fused attention kernel instead of
    #: separate matmuls and softmax; ``auto`` lets llama.cpp decide per device.
    flash_attn: str = "auto"
    #: Logical (``batch``) and physical (``ubatch``) prompt batch sizes, tokens per step.
    batch: int = 2048
    ubatch: int = 512
    #: Busy-wait polling level of idle worker threads, 0–100 (0: sleep at once). Polling wins
    #: latency on an idle machine and burns the core another process needs on a busy one.
    poll: int = 50
    #: llama.cpp's thread priority: 0 normal, 1 medium, 2 high, 3 realtime. High by default:
    #: beside one CPU-bound process (a test run, a notebook kernel) the two compute threads,
    #: which wait for each other at every step, kept 3 % of their generation speed at normal
    #: priority (and at niceness -10) and 89 % at high (``bench/llm_serving.py --busy``). High
    #: runs them SCHED_FIFO: while they compute, other processes share the 5 % of CPU the
    #: kernel keeps back. Needs root or CAP_SYS_NICE; without, llama.cpp warns and runs at 0.
    priority: int = 2
    #: Niceness of the server process (-20..19, normal scheduling); measured no help against
    #: a busy neighbour (priority does), kept for machines where priority is not allowed.
    nice: int = 0
    #: KV cache element type; ``q8_0`` needs flash attention and changes the computation.
    kv_type: str = "f16"
    #: Reuse a slot's cached prompt prefix (off: it changed temperature-0 answers, issue 14).
    prompt_cache: bool = False
    #: A smaller tier with the same vocabulary that drafts tokens for speculative decoding
    #: (``llama-server`` only; empty: off). Drafts are verified, so outputs stay the model's.
    draft_tier: str = ""
    #: Prompt-lookup speculation: draft the next tokens by finding the last few generated
    #: tokens earlier in the prompt (no draft model; ``llama-server`` only). Verified likewise.
    prompt_lookup: bool = False

    def __post_init__(self) -> None:
        if self.backend not in SERVING_BACKENDS:
            raise ValueError(f"backend must be one of {SERVING_BACKENDS}, got {self.backend!r}")
        if self.kv_type not in KV_TYPES:
            raise ValueError(f"kv_type must be one of {KV_TYPES}, got {self.kv_type!r}")
        if self.flash_attn not in FLASH_ATTN:
            raise ValueError(f"flash_attn must be one of {FLASH_ATTN}, got {self.flash_attn!r}")
        if self.kv_type != "f16" and self.flash_attn == "off":
            raise ValueError("a quantised KV cache (kv_type) needs flash attention")
        if (self.draft_tier or self.prompt_lookup) and self.backend == "xllamacpp":
            raise ValueError("speculative decoding needs the llama-server backend")
        if self.draft_tier and self.prompt_lookup:
            raise ValueError("choose one speculation: draft_tier or prompt_lookup")
        object.__setattr__(self, "batch", _clamp(self.batch, 32, 8192))
        object.__setattr__(self, "ubatch", _clamp(self.ubatch, 16, self.batch))
        object.__setattr__(self, "poll", _clamp(self.poll, 0, 100))
        object.__setattr__(self, "priority", _clamp(self.priority, 0, 3))
        object.__setattr__(self, "nice", _clamp(self.nice, -20, 19))

    def as_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, repr=False)
class LLMSettings:
    """Where LLM calls go.

    With ``base_url`` unset, ace_lab serves the local GGUF ``tier`` with xllamacpp on
    127.0.0.1:``port``. With ``base_url`` set (OpenAI, vLLM, Ollama, ...), ``model`` names the
    served model and ``api_key`` authenticates (credentials in ``base_url`` authenticate as
    HTTP Basic auth instead). ``repr`` never shows the key or the URL's credentials.

    A call is retried ``max_retries`` times after its first attempt on transient errors
    (connection, timeout, 408/409/429/5xx, an empty or unparseable response): the k-th retry
    waits ``retry_backoff_s * 2**(k-1)`` seconds, or what the server's ``Retry-After`` asks,
    never more than ``retry_wait_max_s``.
    """

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = _secret()
    tier: str = "qwen1.5b"
    threads: int = 2
    ctx_size: int = 8192
    port: int = 8765
    parallel: int = 2  # server slots: concurrent requests decode together (continuous batching)
    timeout_s: float = 600.0
    max_retries: int = 3
    retry_backoff_s: float = 0.5
    retry_wait_max_s: float = 30.0
    concurrency: int = 2
    cache: bool = True
    serving: ServingOptions = field(default_factory=ServingOptions)

    __repr__ = _safe_repr

    @property
    def is_local(self) -> bool:
        return self.base_url is None


@dataclass(frozen=True, repr=False)
class EmbedSettings:
    """Embedding backend: ``sentence-transformers`` (offline MiniLM) or ``openai`` (endpoint)."""

    backend: str = "sentence-transformers"
    model: str = "all-MiniLM-L6-v2"
    base_url: str | None = None
    api_key: str | None = _secret()
    batch_size: int = 64

    __repr__ = _safe_repr


@dataclass(frozen=True, repr=False)
class Settings:
    data_dir: Path | None = None  # None: resolved by ace_lab.data.resolve_data_dir()
    cache_dir: Path = field(default_factory=_default_cache_dir)
    model_dir: Path = field(default_factory=_default_model_dir)
    results_dir: Path = field(default_factory=lambda: (REPO_ROOT or Path.cwd()) / "results")
    figures_dir: Path = field(default_factory=lambda: (REPO_ROOT or Path.cwd()) / "figures")
    graphs_dir: Path = field(default_factory=lambda: (REPO_ROOT or Path.cwd()) / "data" / "graphs")
    llm: LLMSettings = field(default_factory=LLMSettings)
    embed: EmbedSettings = field(default_factory=EmbedSettings)

    __repr__ = _safe_repr

    def with_llm(self, **changes: object) -> Settings:
        return replace(self, llm=replace(self.llm, **changes))


def _serving_from_env() -> ServingOptions:
    d = ServingOptions()
    return ServingOptions(
        backend=_env("ACE_LAB_LLM_BACKEND", d.backend),
        flash_attn=_env("ACE_LAB_LLM_FLASH_ATTN", d.flash_attn),
        batch=int(_env("ACE_LAB_LLM_BATCH", str(d.batch))),
        ubatch=int(_env("ACE_LAB_LLM_UBATCH", str(d.ubatch))),
        poll=int(_env("ACE_LAB_LLM_POLL", str(d.poll))),
        priority=int(_env("ACE_LAB_LLM_PRIORITY", str(d.priority))),
        nice=int(_env("ACE_LAB_LLM_NICE", str(d.nice))),
        kv_type=_env("ACE_LAB_LLM_KV_TYPE", d.kv_type),
    )


def load_settings(**llm_overrides: object) -> Settings:
    """Defaults, then ``ACE_LAB_*`` environment variables, then keyword overrides for the LLM.

    Environment variables: ``ACE_LAB_DATA``, ``ACE_LAB_CACHE_DIR``, ``ACE_LAB_MODEL_DIR``,
    ``ACE_LAB_RESULTS_DIR``, ``ACE_LAB_FIGURES_DIR``, ``ACE_LAB_GRAPHS_DIR``,
    ``ACE_LAB_LLM_BASE_URL``,
    ``ACE_LAB_LLM_MODEL``, ``OPENAI_API_KEY``, ``ACE_LAB_LLM_TIER``, ``ACE_LAB_LLM_THREADS``,
    ``ACE_LAB_LLM_CTX`` (per slot), ``ACE_LAB_LLM_PORT``, ``ACE_LAB_LLM_PARALLEL``,
    ``ACE_LAB_LLM_TIMEOUT``, ``ACE_LAB_LLM_MAX_RETRIES``, ``ACE_LAB_LLM_RETRY_BACKOFF``,
    ``ACE_LAB_LLM_RETRY_WAIT_MAX``, ``ACE_LAB_LLM_CONCURRENCY``,
    ``ACE_LAB_LLM_CACHE`` (0 disables the response cache), the server's
    :class:`ServingOptions` ``ACE_LAB_LLM_BACKEND``, ``ACE_LAB_LLM_FLASH_ATTN``,
    ``ACE_LAB_LLM_BATCH``, ``ACE_LAB_LLM_UBATCH``, ``ACE_LAB_LLM_POLL``,
    ``ACE_LAB_LLM_PRIORITY``, ``ACE_LAB_LLM_NICE``, ``ACE_LAB_LLM_KV_TYPE``,
    ``ACE_LAB_EMBED_BACKEND``, ``ACE_LAB_EMBED_MODEL``, ``ACE_LAB_EMBED_BASE_URL``.
    """
    base = Settings()
    data = _env("ACE_LAB_DATA")
    llm = LLMSettings(
        base_url=_env("ACE_LAB_LLM_BASE_URL"),
        model=_env("ACE_LAB_LLM_MODEL"),
        api_key=_env("OPENAI_API_KEY"),
        tier=_env("ACE_LAB_LLM_TIER", LLMSettings.tier),
        threads=int(_env("ACE_LAB_LLM_THREADS", str(LLMSettings.threads))),
        ctx_size=int(_env("ACE_LAB_LLM_CTX", str(LLMSettings.ctx_size))),
        port=int(_env("ACE_LAB_LLM_PORT", str(LLMSettings.port))),
        parallel=int(_env("ACE_LAB_LLM_PARALLEL", str(LLMSettings.parallel))),
        timeout_s=float(_env("ACE_LAB_LLM_TIMEOUT", str(LLMSettings.timeout_s))),
        max_retries=int(_env("ACE_LAB_LLM_MAX_RETRIES", str(LLMSettings.max_retries))),
        retry_backoff_s=float(_env("ACE_LAB_LLM_RETRY_BACKOFF", str(LLMSettings.retry_backoff_s))),
        retry_wait_max_s=float(
            _env("ACE_LAB_LLM_RETRY_WAIT_MAX", str(LLMSettings.retry_wait_max_s))
        ),
        concurrency=int(_env("ACE_LAB_LLM_CONCURRENCY", str(LLMSettings.concurrency))),
        cache=_env("ACE_LAB_LLM_CACHE", "1") not in ("0", "false", "no"),
        serving=_serving_from_env(),
    )
    embed = EmbedSettings(
        backend=_env("ACE_LAB_EMBED_BACKEND", EmbedSettings.backend),
        model=_env("ACE_LAB_EMBED_MODEL", EmbedSettings.model),
        base_url=_env("ACE_LAB_EMBED_BASE_URL"),
        api_key=_env("OPENAI_API_KEY"),
    )
    settings = Settings(
        data_dir=Path(data) if data else None,
        cache_dir=Path(_env("ACE_LAB_CACHE_DIR", str(base.cache_dir))),
        model_dir=Path(_env("ACE_LAB_MODEL_DIR", str(base.model_dir))),
        results_dir=Path(_env("ACE_LAB_RESULTS_DIR", str(base.results_dir))),
        figures_dir=Path(_env("ACE_LAB_FIGURES_DIR", str(base.figures_dir))),
        graphs_dir=Path(_env("ACE_LAB_GRAPHS_DIR", str(base.graphs_dir))),
        llm=llm,
        embed=embed,
    )
    return settings.with_llm(**llm_overrides) if llm_overrides else settings
