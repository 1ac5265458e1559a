"""Tests for ace_lab.index.sparse: bm25s tokens, top-k and full score vectors, save and load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ace_lab.index import sparse

DOCS = [
    "The committee approved the zymurgy grant for the brewing laboratory.",
    "A kitten was sleeping on the rug near the fireplace.",
    "Zymurgy, zymurgy: the brewing of beer.",
    "",
]


def test_tokenize_lowercases_and_drops_stopwords_and_short_words() -> None:
    assert sparse.tokenize(["The Zymurgy grant, a 1889 X-ray!"]) == [
        ["zymurgy", "grant", "1889", "ray"]
    ]
    assert sparse.tokenize(["", "the of and"]) == [[], []]
    assert sparse.tokenize([]) == []


def test_top_k_keeps_positive_scores_best_first() -> None:
    bm25 = sparse.build_bm25(DOCS)
    rows, scores = sparse.top_k(bm25, ["zymurgy"], 5)
    assert rows.tolist() == [2, 0]  # the document saying it twice first; others score zero
    assert scores.dtype == np.float32 and scores[0] > scores[1] > 0
    assert sparse.top_k(bm25, ["zymurgy"], 1)[0].tolist() == [2]
    assert len(sparse.top_k(bm25, ["unknownword"], 5)[0]) == 0
    assert len(sparse.top_k(bm25, ["zymurgy"], 0)[0]) == 0


def test_scores_cover_every_document() -> None:
    bm25 = sparse.build_bm25(DOCS)
    full = sparse.scores(bm25, ["zymurgy", "kitten"])
    assert full.shape == (4,) and full.dtype == np.float32
    assert (full[[0, 1, 2]] > 0).all() and full[3] == 0
    rows, top = sparse.top_k(bm25, ["zymurgy", "kitten"], 4)
    np.testing.assert_array_equal(full[rows], top)
    np.testing.assert_array_equal(sparse.scores(bm25, ["unknownword"]), np.zeros(4))


def test_pad_empty_changes_only_the_average_length() -> None:
    padded = sparse.scores(sparse.build_bm25(DOCS), ["zymurgy"])
    bare = sparse.scores(sparse.build_bm25(DOCS, pad_empty=False), ["zymurgy"])
    assert np.flatnonzero(padded).tolist() == np.flatnonzero(bare).tolist() == [0, 2]
    assert not np.array_equal(padded, bare)  # the empty text counts 1 token long, or 0
    same = sparse.build_bm25(DOCS[:3], pad_empty=False)
    np.testing.assert_array_equal(
        sparse.scores(same, ["zymurgy"]), sparse.scores(sparse.build_bm25(DOCS[:3]), ["zymurgy"])
    )


def test_save_load_round_trip(tmp_path: Path) -> None:
    bm25 = sparse.build_bm25(DOCS)
    sparse.save_bm25(bm25, tmp_path / "bm25")
    loaded = sparse.load_bm25(tmp_path / "bm25")
    for query in (["zymurgy"], ["kitten", "brewing"]):
        np.testing.assert_array_equal(sparse.scores(loaded, query), sparse.scores(bm25, query))
    assert sparse.bm25s_version()


@pytest.mark.parametrize("stopwords", ["en", "english"])
def test_stopword_names(stopwords: str) -> None:
    assert sparse.tokenize(["the kitten and the rug"], stopwords) == [["kitten", "rug"]]
