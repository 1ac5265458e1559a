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
from urllib.parse import urlsplit

from ace_lab.bounded import Bounded, ConfigError, bounded

#: The repository root when ace_lab runs from a checkout (holds pyproject.toml), else None.
_PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT: Path | None = (
    _PACKAGE_DIR.parent if (_PACKAGE_DIR.parent / "pyproject.toml").exists() else None
)


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def _env_number(name: str, default: float, kind: type[int] | type[float] = int) -> Any:
    """``name`` read as a number, or ``default``; a :class:`ConfigError` naming it if it is none."""
    value = _env(name)
    try:
        return default if value is None else kind(value)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise ConfigError(f"{name}={value!r} is not {what}") from None


def check_base_url(url: str | None, variable: str) -> str | None:
    """``url`` if it is an ``http(s)://host...`` URL (or None); else a :class:`ConfigError`.

    Checked when settings are read, so a typo fails at once with one line instead of once per
    call after the retries.
    """
    if url is None:
        return None
    try:
        parts = urlsplit(url)
        scheme, host, _ = parts.scheme, parts.hostname, parts.port  # a bad port: ValueError
    except ValueError:
        scheme, host = "", None
    if scheme not in ("http", "https") or not host:
        raise ConfigError(
            f"{variable}={redact_url(url)!r} is not an endpoint URL: "
            "it needs http:// or https:// and a host (e.g. http://127.0.0.1:8000/v1)"
        )
    return url


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


@dataclass(frozen=True)
class ServingOptions(Bounded):
    """llama.cpp settings of the local server (see ``ace_lab.llm.serving`` for which of them
    change outputs and so the cache identity)."""

    backend: str = bounded(
        "auto",
        choices=SERVING_BACKENDS,
        help="xllamacpp wheel, llama-server built by `make native`, or auto: the built one if any",
    )
    flash_attn: str = bounded(
        "auto",
        choices=FLASH_ATTN,
        help="flash attention: one fused attention kernel; auto lets llama.cpp decide",
    )
    batch: int = bounded(2048, lo=32, hi=8192, help="logical prompt batch, tokens per step")
    ubatch: int = bounded(512, lo=16, hi=8192, help="physical prompt batch (≤ batch)")
    poll: int = bounded(
        50, lo=0, hi=100, help="busy-wait polling of idle worker threads (0: sleep at once)"
    )
    priority: int = bounded(
        2,
        lo=0,
        hi=3,
        help="llama.cpp thread priority 0-3; high (2) runs the compute threads SCHED_FIFO: "
        "beside one busy process they kept 89 % of their generation speed (3 % at 0), and "
        "while they compute other processes share the kernel's 5 % RT reserve "
        "(bench/llm_serving.py --busy); needs root or CAP_SYS_NICE, else llama.cpp runs at 0",
    )
    nice: int = bounded(
        0,
        lo=-20,
        hi=19,
        help="niceness of the server process (normal scheduling); -10 measured no help "
        "against a busy neighbour, kept for machines where priority is not allowed",
    )
    kv_type: str = bounded(
        "f16", choices=KV_TYPES, help="KV cache type; q8_0 needs flash attention"
    )
    prompt_cache: bool = bounded(
        False, help="reuse a slot's cached prompt prefix (off: it changed temperature-0 answers)"
    )
    draft_tier: str = bounded(
        "", help="smaller tier drafting tokens for speculative decoding (llama-server; '' off)"
    )
    prompt_lookup: bool = bounded(
        False, help="draft tokens from an earlier match in the prompt (llama-server only)"
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.kv_type != "f16" and self.flash_attn == "off":
            raise ConfigError("a quantised KV cache (kv_type) needs flash attention")
        if (self.draft_tier or self.prompt_lookup) and self.backend == "xllamacpp":
            raise ConfigError("speculative decoding needs the llama-server backend")
        if self.draft_tier and self.prompt_lookup:
            raise ConfigError("choose one speculation: draft_tier or prompt_lookup")
        if self.ubatch > self.batch:
            raise ConfigError(f"ubatch ({self.ubatch}) must be ≤ batch ({self.batch})")

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
    # Server slots. One: concurrent requests queue instead of decoding in one batch, because
    # llama.cpp is not batch-invariant — with 2 busy slots one prompt got 2 different
    # temperature-0 generations, with 1 slot always 1, at 3 % less concurrent throughput
    # (bench/answer_determinism.py, qwen1.5b, 2026-12-01).
    parallel: int = 1
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


def default_graphs_dir() -> Path:
    """The repository's ``data/graphs``: the committed graphs of the benchmark slices."""
    return (REPO_ROOT or Path.cwd()) / "data" / "graphs"


@dataclass(frozen=True, repr=False)
class Settings:
    data_dir: Path | None = None  # None: resolved by ace_lab.data.resolve_data_dir()
    cache_dir: Path = field(default_factory=_default_cache_dir)
    model_dir: Path = field(default_factory=_default_model_dir)
    results_dir: Path = field(default_factory=lambda: (REPO_ROOT or Path.cwd()) / "results")
    figures_dir: Path = field(default_factory=lambda: (REPO_ROOT or Path.cwd()) / "figures")
    graphs_dir: Path = field(default_factory=lambda: default_graphs_dir())
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
        batch=_env_number("ACE_LAB_LLM_BATCH", d.batch),
        ubatch=_env_number("ACE_LAB_LLM_UBATCH", d.ubatch),
        poll=_env_number("ACE_LAB_LLM_POLL", d.poll),
        priority=_env_number("ACE_LAB_LLM_PRIORITY", d.priority),
        nice=_env_number("ACE_LAB_LLM_NICE", d.nice),
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
        base_url=check_base_url(_env("ACE_LAB_LLM_BASE_URL"), "ACE_LAB_LLM_BASE_URL"),
        model=_env("ACE_LAB_LLM_MODEL"),
        api_key=_env("OPENAI_API_KEY"),
        tier=_env("ACE_LAB_LLM_TIER", LLMSettings.tier),
        threads=_env_number("ACE_LAB_LLM_THREADS", LLMSettings.threads),
        ctx_size=_env_number("ACE_LAB_LLM_CTX", LLMSettings.ctx_size),
        port=_env_number("ACE_LAB_LLM_PORT", LLMSettings.port),
        parallel=_env_number("ACE_LAB_LLM_PARALLEL", LLMSettings.parallel),
        timeout_s=_env_number("ACE_LAB_LLM_TIMEOUT", LLMSettings.timeout_s, float),
        max_retries=_env_number("ACE_LAB_LLM_MAX_RETRIES", LLMSettings.max_retries),
        retry_backoff_s=_env_number(
            "ACE_LAB_LLM_RETRY_BACKOFF", LLMSettings.retry_backoff_s, float
        ),
        retry_wait_max_s=_env_number(
            "ACE_LAB_LLM_RETRY_WAIT_MAX", LLMSettings.retry_wait_max_s, float
        ),
        concurrency=_env_number("ACE_LAB_LLM_CONCURRENCY", LLMSettings.concurrency),
        cache=_env("ACE_LAB_LLM_CACHE", "1") not in ("0", "false", "no"),
        serving=_serving_from_env(),
    )
    embed = EmbedSettings(
        backend=_env("ACE_LAB_EMBED_BACKEND", EmbedSettings.backend),
        model=_env("ACE_LAB_EMBED_MODEL", EmbedSettings.model),
        base_url=check_base_url(_env("ACE_LAB_EMBED_BASE_URL"), "ACE_LAB_EMBED_BASE_URL"),
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
