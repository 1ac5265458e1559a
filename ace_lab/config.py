"""Settings for ace_lab: paths, LLM endpoint, embeddings. Every field has an env override.

One frozen dataclass tree, built by :func:`load_settings` from defaults and ``ACE_LAB_*``
environment variables. Notebooks and the CLI both call ``load_settings()`` so they agree.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

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


@dataclass(frozen=True)
class LLMSettings:
    """Where LLM calls go.

    With ``base_url`` unset, ace_lab serves the local GGUF ``tier`` with xllamacpp on
    127.0.0.1:``port``. With ``base_url`` set (OpenAI, vLLM, Ollama, ...), ``model`` names the
    served model and ``api_key`` authenticates.
    """

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = None
    tier: str = "qwen1.5b"
    threads: int = 2
    ctx_size: int = 8192
    port: int = 8765
    parallel: int = 2  # server slots: concurrent requests decode together (continuous batching)
    timeout_s: float = 600.0
    max_retries: int = 3
    concurrency: int = 2
    cache: bool = True

    @property
    def is_local(self) -> bool:
        return self.base_url is None


@dataclass(frozen=True)
class EmbedSettings:
    """Embedding backend: ``sentence-transformers`` (offline MiniLM) or ``openai`` (endpoint)."""

    backend: str = "sentence-transformers"
    model: str = "all-MiniLM-L6-v2"
    base_url: str | None = None
    api_key: str | None = None
    batch_size: int = 64


@dataclass(frozen=True)
class Settings:
    data_dir: Path | None = None  # None: resolved by ace_lab.data.resolve_data_dir()
    cache_dir: Path = field(default_factory=_default_cache_dir)
    model_dir: Path = field(default_factory=_default_model_dir)
    results_dir: Path = field(default_factory=lambda: (REPO_ROOT or Path.cwd()) / "results")
    figures_dir: Path = field(default_factory=lambda: (REPO_ROOT or Path.cwd()) / "figures")
    graphs_dir: Path = field(default_factory=lambda: (REPO_ROOT or Path.cwd()) / "data" / "graphs")
    llm: LLMSettings = field(default_factory=LLMSettings)
    embed: EmbedSettings = field(default_factory=EmbedSettings)

    def with_llm(self, **changes: object) -> Settings:
        return replace(self, llm=replace(self.llm, **changes))


def load_settings(**llm_overrides: object) -> Settings:
    """Defaults, then ``ACE_LAB_*`` environment variables, then keyword overrides for the LLM.

    Environment variables: ``ACE_LAB_DATA``, ``ACE_LAB_CACHE_DIR``, ``ACE_LAB_MODEL_DIR``,
    ``ACE_LAB_RESULTS_DIR``, ``ACE_LAB_FIGURES_DIR``, ``ACE_LAB_GRAPHS_DIR``,
    ``ACE_LAB_LLM_BASE_URL``,
    ``ACE_LAB_LLM_MODEL``, ``OPENAI_API_KEY``, ``ACE_LAB_LLM_TIER``, ``ACE_LAB_LLM_THREADS``,
    ``ACE_LAB_LLM_CTX`` (per slot), ``ACE_LAB_LLM_PORT``, ``ACE_LAB_LLM_PARALLEL``,
    ``ACE_LAB_LLM_TIMEOUT``,
    ``ACE_LAB_LLM_CONCURRENCY``, ``ACE_LAB_LLM_CACHE`` (0 disables the response cache),
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
        concurrency=int(_env("ACE_LAB_LLM_CONCURRENCY", str(LLMSettings.concurrency))),
        cache=_env("ACE_LAB_LLM_CACHE", "1") not in ("0", "false", "no"),
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
