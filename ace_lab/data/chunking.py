"""Chunking: passages cut into overlapping windows of word pieces (:mod:`ace_lab.tokens`).

Chunks are exact substrings of their passage with their character offset, so evidence can be
traced back to the source text; a passage that fits in one window keeps its own id, so gold
supporting ids score directly on chunk ids.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ace_lab.data.records import DataError, Passage
from ace_lab.tokens import token_spans


@dataclass(frozen=True)
class Chunk:
    """A piece of a passage; ``start`` is its character offset in the passage text."""

    id: str
    doc_id: str
    title: str
    text: str
    index: int
    start: int = 0


def _check_window(max_tokens: int, overlap: int) -> None:
    if not max_tokens > overlap >= 0:
        raise ValueError(f"need max_tokens > overlap >= 0, got {max_tokens=} {overlap=}")


def chunk_spans(text: str, max_tokens: int = 600, overlap: int = 100) -> list[tuple[int, int]]:
    """Character spans of the chunks :func:`chunk_text` returns.

    Windows of ``max_tokens`` word pieces (ace_lab.tokens) advance by ``max_tokens - overlap``.
    A chunk runs from its first piece to the start of the piece after its last, so whitespace
    stays with the preceding chunk and the spans cover the text without gaps: the first starts
    at 0, the last ends at ``len(text)``, and each starts at or before the previous one's end.
    """
    _check_window(max_tokens, overlap)
    spans = token_spans(text)
    if len(spans) <= max_tokens:
        return [(0, len(text))] if text else []
    step = max_tokens - overlap
    out: list[tuple[int, int]] = []
    first = 0
    while True:
        last = first + max_tokens  # exclusive token index
        start = 0 if first == 0 else spans[first][0]
        if last >= len(spans):
            out.append((start, len(text)))
            return out
        out.append((start, spans[last][0]))
        first += step


def chunk_text(text: str, max_tokens: int = 600, overlap: int = 100) -> list[str]:
    """``text`` cut into overlapping chunks of at most ``max_tokens`` word pieces.

    Chunks are exact substrings (see :func:`chunk_spans`); text that fits is one chunk, and an
    empty string gives no chunks.
    """
    return [text[a:b] for a, b in chunk_spans(text, max_tokens, overlap)]


def chunk_passages(
    passages: Iterable[Passage], max_tokens: int = 600, overlap: int = 100
) -> list[Chunk]:
    """Chunks of every passage, in order.

    A passage that fits in ``max_tokens`` stays one chunk whose id *is* the passage id, so gold
    supporting ids of the multi-hop sets can be scored directly on chunk ids; longer passages
    give chunks ``f"{doc_id}#{index}"``. A chunk id that another passage also gets (a passage
    whose id is ``"p1#0"`` next to a long passage ``"p1"``) is a :class:`DataError`: one of the
    two would silently replace the other wherever chunks are keyed by id.
    """
    _check_window(max_tokens, overlap)
    chunks: list[Chunk] = []
    owner: dict[str, str] = {}
    for p in passages:
        spans = chunk_spans(p.text, max_tokens, overlap) or [(0, 0)]
        if len(spans) == 1:
            new = [Chunk(p.id, p.id, p.title, p.text, 0, 0)]
        else:
            new = [
                Chunk(f"{p.id}#{i}", p.id, p.title, p.text[a:b], i, a)
                for i, (a, b) in enumerate(spans)
            ]
        for chunk in new:
            other = owner.setdefault(chunk.id, p.id)
            if other != p.id:
                raise DataError(
                    f"chunk id {chunk.id!r} belongs to both passage {other!r} and passage "
                    f"{p.id!r}; rename one of them"
                )
        chunks.extend(new)
    return chunks
