"""Tests for ace_lab.data.chunking: overlapping word-piece windows that rebuild the text."""

from __future__ import annotations

import pytest

from ace_lab.data import chunk_passages, chunk_spans, chunk_text, load_dataset
from ace_lab.tokens import count_tokens

LONG_TEXT = " ".join(
    f"Sentence {i}: the lantern-works' ledger, page {i}, lists {i * 7} lamps.\n" for i in range(120)
)


@pytest.mark.parametrize(("max_tokens", "overlap"), [(50, 10), (40, 0), (7, 6), (1000, 100)])
def test_chunks_reconstruct_text_and_respect_budget(max_tokens: int, overlap: int) -> None:
    chunks = chunk_text(LONG_TEXT, max_tokens, overlap)
    spans = chunk_spans(LONG_TEXT, max_tokens, overlap)
    assert len(chunks) == len(spans)
    rebuilt, end = "", 0
    for chunk, (start, stop) in zip(chunks, spans, strict=True):
        assert chunk == LONG_TEXT[start:stop]
        assert count_tokens(chunk) <= max_tokens
        assert start <= end  # no gap
        rebuilt += chunk[end - start :]
        end = stop
    assert rebuilt == LONG_TEXT


def test_chunk_overlap_validation_and_edge_cases() -> None:
    for bad in ((100, 100), (100, 200), (10, -1), (0, 0)):
        with pytest.raises(ValueError, match="max_tokens > overlap >= 0"):
            chunk_text("some text", *bad)
    assert chunk_text("") == []
    assert chunk_text("  short text \n") == ["  short text \n"]


def test_chunk_passages_ids() -> None:
    ds = load_dataset("toy")
    chunks = chunk_passages(ds.passages)
    assert [c.id for c in chunks] == [p.id for p in ds.passages]
    long = chunk_passages([ds.passages[0]], max_tokens=20, overlap=5)
    assert len(long) > 1
    assert [c.id for c in long] == [f"toy-01#{i}" for i in range(len(long))]
    assert all(c.doc_id == "toy-01" and c.title == "Ilse Marrin" for c in long)
    assert all(ds.passages[0].text[c.start :].startswith(c.text) for c in long)


def test_a_chunk_id_claimed_by_two_passages_is_an_error() -> None:
    """Regression (issue 13): passage ``p1#0`` next to a long ``p1`` gave two chunks one id."""
    from ace_lab.data import DataError, Passage

    passages = [Passage("p1", "A", LONG_TEXT), Passage("p1#0", "B", "short")]
    with pytest.raises(DataError, match=r"'p1#0' belongs to both passage 'p1' and passage 'p1#0'"):
        chunk_passages(passages, 50, 10)
    assert [c.id for c in chunk_passages(passages[1:])] == ["p1#0"]
