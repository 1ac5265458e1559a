"""Approximate token counting that needs no tokenizer download.

Budgets (context rendering, chunking) only need a stable, model-independent count. We count
word pieces: runs of letters/digits and single punctuation marks, which tracks BPE token counts
of English text within roughly ±20 %. Exact usage is taken from the LLM server's ``usage``.
"""

from __future__ import annotations

import re

_PIECE = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def count_tokens(text: str) -> int:
    """Number of word pieces in ``text`` (see module docstring)."""
    return len(_PIECE.findall(text))


def token_spans(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of every word piece, in order."""
    return [m.span() for m in _PIECE.finditer(text)]


def truncate(text: str, max_tokens: int) -> str:
    """``text`` cut after its first ``max_tokens`` word pieces (unchanged if shorter)."""
    spans = token_spans(text)
    if len(spans) <= max_tokens:
        return text
    if max_tokens <= 0:
        return ""
    return text[: spans[max_tokens - 1][1]]
