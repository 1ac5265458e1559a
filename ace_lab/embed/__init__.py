"""Text embeddings: offline MiniLM or an OpenAI-compatible endpoint, behind one on-disk cache.

Vectors go through :func:`embed`, which keeps them in a SQLite :class:`VectorCache` keyed by
model and text hash, encodes only what is missing and hands back unit-length float32 rows in
input order; :func:`cosine_top_k` searches them exactly.

Modules: :mod:`~ace_lab.embed.backends` (the :class:`Embedder` protocol, local MiniLM and
OpenAI-compatible backends, the factory), :mod:`~ace_lab.embed.cache` (the SQLite vector
cache), :mod:`~ace_lab.embed.encode` (:func:`embed`) and :mod:`~ace_lab.embed.similarity`
(:func:`cosine_top_k`). Importing the package sets the Hugging Face offline switches.
"""

from ace_lab.embed.backends import (
    DEFAULT_THREADS,
    MINILM,
    THREADS_ENV,
    Embedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    embed_threads,
    get_embedder,
    make_embedder,
    resolve_model_path,
)
from ace_lab.embed.cache import VectorCache, default_cache, text_key
from ace_lab.embed.encode import embed
from ace_lab.embed.similarity import cosine_top_k

__all__ = [
    "DEFAULT_THREADS",
    "MINILM",
    "THREADS_ENV",
    "Embedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "VectorCache",
    "cosine_top_k",
    "default_cache",
    "embed",
    "embed_threads",
    "get_embedder",
    "make_embedder",
    "resolve_model_path",
    "text_key",
]
