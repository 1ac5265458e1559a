"""The settings tree: paths, the LLM endpoint or local model, embeddings.

Every class is :class:`~ace_lab.bounded.Bounded`: each field has help text and the values it
accepts, so ``ace_lab.config.env`` derives, reads and documents one environment variable per
field without a hand-written list.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from ace_lab.bounded import Bounded, bounded
from ace_lab.config.secrets import ENDPOINT_URL, endpoint_problem, hidden, redact_url, safe_repr
from ace_lab.config.serving import ServingOptions

#: The local model tier used unless one is chosen (a key of ``ace_lab.llm.models.TIERS``).
DEFAULT_TIER = "qwen1.5b"

#: The repository root when ace_lab runs from a checkout (holds pyproject.toml), else None.
_PACKAGE_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT: Path | None = (
    _PACKAGE_DIR.parent if (_PACKAGE_DIR.parent / "pyproject.toml").exists() else None
)


def _user_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def _checkout() -> Path:
    return REPO_ROOT or Path.cwd()


def default_cache_dir() -> Path:
    """`<checkout>/.cache`, else `$XDG_CACHE_HOME/ace_lab`"""
    return REPO_ROOT / ".cache" if REPO_ROOT is not None else _user_cache() / "ace_lab"


#: The one cache root: set, it holds the responses, the models and the llama-server binary.
CACHE_ROOT_ENV = "ACE_LAB_CACHE_DIR"


def default_model_dir() -> Path:
    """`$ACE_LAB_CACHE_DIR/models`, else `$XDG_CACHE_HOME/ace_lab/models` (`~/.cache/…`)"""
    # One root when the user names one (models and the built server live under it too);
    # otherwise joined GGUF files (up to ~1 GB) stay outside any one checkout.
    root = os.environ.get(CACHE_ROOT_ENV)
    return Path(root).expanduser() / "models" if root else _user_cache() / "ace_lab" / "models"


def default_results_dir() -> Path:
    """`<checkout>/results`"""
    return _checkout() / "results"


def default_figures_dir() -> Path:
    """`<checkout>/figures`"""
    return _checkout() / "figures"


def default_graphs_dir() -> Path:
    """`<checkout>/data/graphs`: the committed graphs of the benchmark slices"""
    return _checkout() / "data" / "graphs"


def _url(default: str | None, help: str) -> str | None:
    return bounded(
        default, help=help, check=endpoint_problem, accepts=ENDPOINT_URL, redact=redact_url
    )


def _key(help: str) -> str | None:
    return bounded(None, help=help, accepts="any text (never shown)", redact=hidden)


@dataclass(frozen=True, repr=False)
class LLMSettings(Bounded):
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

    base_url: str | None = _url(
        None, "OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, ...); unset: serve `tier` locally"
    )
    model: str | None = bounded(None, help="model name served at `base_url` (with `base_url`)")
    api_key: str | None = _key("key for `base_url` (URL credentials use HTTP Basic auth)")
    tier: str = bounded(
        DEFAULT_TIER,
        help="local GGUF model tier served when `base_url` is unset",
        accepts="a key of ace_lab.llm.models.TIERS",
    )
    threads: int = bounded(2, lo=1, hi=256, help="CPU threads of the local server")
    ctx_size: int = bounded(8192, lo=256, hi=131072, help="context tokens per server slot")
    port: int = bounded(8765, lo=1, hi=65535, help="port of the local server on 127.0.0.1")
    # One slot: concurrent requests queue instead of decoding in one batch, because llama.cpp
    # is not batch-invariant — with 2 busy slots one prompt got 2 different temperature-0
    # generations, with 1 slot always 1, at 3 % less concurrent throughput
    # (bench/answer_determinism.py, the default tier, 2026-12-01).
    parallel: int = bounded(
        1, lo=1, hi=64, help="server slots; 1 keeps temperature-0 answers deterministic"
    )
    timeout_s: float = bounded(600.0, lo=0.001, hi=86400, help="seconds one LLM call may take")
    max_retries: int = bounded(
        3, lo=0, hi=100, help="retries of a call after its first attempt on transient errors"
    )
    retry_backoff_s: float = bounded(
        0.5, lo=0, hi=3600, help="seconds before the first retry, doubled for each next one"
    )
    retry_wait_max_s: float = bounded(
        30.0, lo=0, hi=86400, help="longest wait between retries, whatever Retry-After asks"
    )
    concurrency: int = bounded(2, lo=1, hi=1024, help="LLM calls in flight at once")
    cache: bool = bounded(True, help="reuse cached responses of identical requests")
    gbnf: bool = bounded(
        False,
        help="`base_url` is a llama.cpp server that samples under GBNF grammars (ArcRAG's "
        "grammar switch then sends one; otherwise a JSON-schema query plan); the local tier does",
    )
    serving: ServingOptions = field(default_factory=ServingOptions)

    __repr__ = safe_repr

    @property
    def is_local(self) -> bool:
        return self.base_url is None


#: The embedding backends :func:`ace_lab.embed.make_embedder` knows.
EMBED_BACKENDS = ("sentence-transformers", "openai")


@dataclass(frozen=True, repr=False)
class EmbedSettings(Bounded):
    """Embedding backend: ``sentence-transformers`` (offline MiniLM) or ``openai`` (endpoint)."""

    backend: str = bounded(
        "sentence-transformers",
        choices=EMBED_BACKENDS,
        help="local sentence-transformers model, or an OpenAI-compatible endpoint",
    )
    model: str = bounded(
        "all-MiniLM-L6-v2", help="embedding model (locally: the bundled MiniLM only)"
    )
    base_url: str | None = _url(None, "OpenAI-compatible embeddings endpoint (backend openai)")
    api_key: str | None = _key("key for the embeddings endpoint")
    batch_size: int = bounded(64, lo=1, hi=4096, help="texts encoded per batch")
    threads: int = bounded(
        2, lo=1, hi=256, help="torch threads of local encoding (all cores would starve the LLM)"
    )

    __repr__ = safe_repr


#: The shape of a graph store setting; the backends and their schemes are the rows of
#: ``ace_lab.graph.store.backends`` (a layer above this one), which checks the scheme.
STORE_FORMS = (
    "embedded | <scheme>://[user@]host[:port][/name] (schemes: ace_lab.graph.store.backends)"
)
_STORE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#]+(/[^/?#]*)?")


def _store_problem(text: str) -> str | None:
    """Why ``text`` is no graph store setting (the scheme is ``parse_store_url``'s to check)."""
    if text == "embedded" or _STORE_URL.fullmatch(text):
        if ":" in text.partition("://")[2].split("@")[0] and "@" in text:
            return "holds a password: set it in the store_password setting, not in the URL"
        return None
    return f"is not a graph store: use {STORE_FORMS}"


@dataclass(frozen=True, repr=False)
class GraphSettings(Bounded):
    """Where the graphs' Cypher queries run (``ace_lab.graph.store.url``)."""

    store: str = bounded(
        "embedded",
        check=_store_problem,
        accepts=STORE_FORMS,
        redact=redact_url,
        help="a private FalkorDB per graph (embedded), or a FalkorDB, Neo4j or Memgraph server",
    )
    store_password: str | None = _key("password of the graph store server (never in the URL)")

    __repr__ = safe_repr


@dataclass(frozen=True, repr=False)
class Settings(Bounded):
    """Everything ace_lab is configured by; built by :func:`ace_lab.config.load_settings`."""

    data_dir: Path | None = bounded(
        None,
        help="benchmark data folder; unset: ../shared/data, fetched sets, else the checkout's "
        "data/ (ace_lab.data.resolve_data_dir)",
        accepts="a folder",
    )
    cache_dir: Path = bounded(
        factory=default_cache_dir,
        help="LLM responses, vectors, indexes; set, also the models and llama-server (models/)",
        accepts="a folder",
    )
    model_dir: Path = bounded(
        factory=default_model_dir, help="joined GGUF model files", accepts="a folder"
    )
    results_dir: Path = bounded(
        factory=default_results_dir, help="study records and tables", accepts="a folder"
    )
    figures_dir: Path = bounded(factory=default_figures_dir, help="figures", accepts="a folder")
    graphs_dir: Path = bounded(
        factory=default_graphs_dir, help="built graphs of the benchmark slices", accepts="a folder"
    )
    llm: LLMSettings = field(default_factory=LLMSettings)
    embed: EmbedSettings = field(default_factory=EmbedSettings)
    graph: GraphSettings = field(default_factory=GraphSettings)

    __repr__ = safe_repr

    def with_llm(self, **changes: object) -> Settings:
        return replace(self, llm=replace(self.llm, **changes))
