"""BM25 with bm25s: tokenisation, building, top-k search and full score vectors.

The one place that calls bm25s, shared by :class:`~ace_lab.index.HybridIndex` (its sparse half)
and :mod:`ace_lab.data` (hard distractors and block scoring for slices). Tokens are bm25s's:
lower-cased words of two or more characters with the stopword list removed, kept as strings so
that queries map onto a saved vocabulary by lookup. A retriever is a plain ``bm25s.BM25``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ace_lab.index.dense import no_rows, top_rows

#: The bm25s stopword list used unless a caller names another.
DEFAULT_STOPWORDS = "en"


def tokenize(texts: Sequence[str], stopwords: str = DEFAULT_STOPWORDS) -> list[list[str]]:
    """bm25s tokens (lower-cased words of 2+ characters, stopwords removed), as strings.

    Strings rather than ids so that queries map onto the saved vocabulary by lookup, and the
    placeholder token bm25s gives an empty text is dropped (it must not match empty documents).
    """
    import bm25s  # deferred: importing bm25s costs ~0.5 s and most callers never search

    if not texts:
        return []
    tokens = bm25s.tokenize(list(texts), stopwords=stopwords, return_ids=False, show_progress=False)
    return [[token for token in doc if token] for doc in tokens]


def build_bm25(
    texts: Sequence[str], stopwords: str = DEFAULT_STOPWORDS, *, pad_empty: bool = True
) -> Any:
    """A ``bm25s.BM25`` over ``texts`` (row ``i`` is ``texts[i]``).

    ``pad_empty`` gives a text without tokens the empty placeholder token, so it counts as one
    token long in the average document length; :class:`~ace_lab.index.HybridIndex` and its saved
    indexes are built that way. With ``pad_empty=False`` such a text stays zero tokens long,
    which is how the data slices have always been scored, and their committed passage choices
    depend on it.
    """
    import bm25s

    docs = tokenize(texts, stopwords)
    retriever = bm25s.BM25()
    retriever.index([doc or [""] for doc in docs] if pad_empty else docs, show_progress=False)
    return retriever


def scores(bm25: Any, tokens: list[str]) -> np.ndarray:
    """The BM25 score of every document for one tokenised query, as float32.

    Zero where no query term occurs; query tokens outside the vocabulary count for nothing, so
    a query with none in it scores all zeros.
    """
    ids = bm25.get_tokens_ids(tokens)
    return np.asarray(bm25.get_scores_from_ids(ids), dtype=np.float32)


def top_k(bm25: Any, tokens: list[str], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top ``k`` documents with a positive BM25 score, best first, ties by row.

    A zero score means no query term occurs in the document: such rows are not evidence, and
    letting them into a fusion would hand out RRF credit in arbitrary order.
    """
    ids = bm25.get_tokens_ids(tokens)
    if not ids or k <= 0:
        return no_rows()
    all_scores = np.asarray(bm25.get_scores_from_ids(ids), dtype=np.float32)
    positive = np.flatnonzero(all_scores > 0)
    rows, top = top_rows(all_scores[positive], k)
    return positive[rows], top


def save_bm25(bm25: Any, folder: str | Path) -> None:
    """bm25s's own files for ``bm25`` in ``folder``."""
    bm25.save(str(folder), show_progress=False)


def load_bm25(folder: str | Path) -> Any:
    """A retriever saved by :func:`save_bm25`."""
    import bm25s

    return bm25s.BM25.load(str(folder), show_progress=False)


def bm25s_version() -> str:
    """The installed bm25s version (recorded with saved indexes)."""
    import bm25s

    return bm25s.__version__
