"""Tests for ace_lab.data.slices: deterministic, nested slices with every question's supports,
per-question groups, hard distractors and anchored documents (shared sets skipped when absent)."""

from __future__ import annotations

import pytest

from ace_lab.data import (
    DOCUMENTS,
    PER_QUESTION,
    Dataset,
    Passage,
    Question,
    anchor_documents,
    cheapest_documents,
    load_dataset,
    make_slice,
    question_passages,
    selection_key,
)
from tests.support.datasets import need_dataset


def _assert_supports_in_slice(sl) -> None:
    ids = set(sl.passage_ids)
    for q in sl.questions:
        assert set(q.supporting_ids) <= ids, q.id
        assert set(q.supporting_ids) <= set(sl.question_passage_ids[q.id]), q.id


def test_toy_slice_is_shared_setting_with_distractors() -> None:
    ds = load_dataset("toy")
    sl = make_slice(ds, 3, seed=1, distractors=2)
    assert sl.slice_id == "toy-n3-s1-k2"
    _assert_supports_in_slice(sl)
    for q in sl.questions:
        assert len(sl.question_passage_ids[q.id]) == len(q.supporting_ids) + 2


def test_hotpot_slice_has_ten_passages_per_question() -> None:
    need_dataset("hotpotqa_dev_sample200")
    ds = load_dataset("hotpotqa_dev_sample200")
    assert ds.setting == PER_QUESTION
    sl = make_slice(ds, 5)
    assert sl.slice_id == "hotpotqa_dev_sample200-n5-s0"
    assert len(sl.passages) == 50
    assert all(len(ids) == 10 for ids in sl.question_passage_ids.values())
    _assert_supports_in_slice(sl)


def test_musique_groups_have_twenty_passages() -> None:
    need_dataset("musique_dev_sample292")
    ds = load_dataset("musique_dev_sample292")
    sl = make_slice(ds, 10, seed=3)
    assert all(len(ids) == 20 for ids in sl.question_passage_ids.values())
    _assert_supports_in_slice(sl)


def test_2wiki_slice_is_deterministic_and_has_supports() -> None:
    need_dataset("2wikimultihopqa_hipporag1000")
    ds = load_dataset("2wikimultihopqa_hipporag1000")
    a, b = make_slice(ds, 10), make_slice(ds, 10)
    assert [q.id for q in a.questions] == [q.id for q in b.questions]
    assert a.passage_ids == b.passage_ids
    _assert_supports_in_slice(a)
    q = a.questions[0]
    assert len(question_passages(ds, q)) == len(q.supporting_ids) + 8


def test_document_slice_holds_all_or_chosen_documents() -> None:
    # GraphRAG-Bench sets are sliced by evidence chunks (tests/data/test_graphragbench.py);
    # a document-setting set without that slicer keeps whole documents.
    need_dataset("msgraphrag_msft_transcripts")
    ds = load_dataset("msgraphrag_msft_transcripts")
    assert ds.setting == DOCUMENTS
    assert len(make_slice(ds, 4).passages) == len(ds.passages)
    doc = ds.passages[0].id
    sl = make_slice(ds, 3, doc_ids=[doc])
    assert sl.passage_ids == [doc]
    assert all(set(q.supporting_ids) <= {doc} for q in sl.questions)
    assert sl.slice_id.startswith("msgraphrag_msft_transcripts-n3-s0-d")


def _anchored_set() -> Dataset:
    docs = [
        Passage("whales", "whales", "Blue whales sing songs across oceans. " * 40),
        Passage("comets", "comets", "Comets carry ice and dust around the sun. " * 5),
        Passage("bread", "bread", "Sourdough bread rises with wild yeast. " * 10),
    ]
    asks = {
        "q1": "Why do blue whales sing?",
        "q2": "What do comets carry?",
        "q3": "Where do comets travel around the sun?",
        "q4": "How does sourdough bread rise?",
    }
    questions = [Question(i, text, None, (), (), None, "anchored") for i, text in asks.items()]
    return Dataset("anchored", docs, questions, DOCUMENTS, anchored=True)


def test_anchored_slice_takes_cheapest_documents_per_question() -> None:
    ds = _anchored_set()
    assert anchor_documents(ds) == {"q1": "whales", "q2": "comets", "q3": "comets", "q4": "bread"}
    # comets: 2 questions in the shortest text; bread next; whales is long with one question
    assert cheapest_documents(ds, 2) == ["comets"]
    assert cheapest_documents(ds, 3) == ["comets", "bread"]
    sl = make_slice(ds, 3)
    assert sl.slice_id == "anchored-n3-s0"
    assert sl.passage_ids == ["comets", "bread"]
    assert {q.id for q in sl.questions} == {"q2", "q3", "q4"}
    assert make_slice(ds, 4).passage_ids == ["whales", "comets", "bread"]
    # explicit documents keep only the questions anchored in them
    only = make_slice(ds, 1, doc_ids=["whales"])
    assert [q.id for q in only.questions] == ["q1"]
    with pytest.raises(ValueError, match="only 1 available"):
        make_slice(ds, 2, doc_ids=["whales"])


def test_ultradomain_default_slice_is_anchored_and_small() -> None:
    need_dataset("ultradomain_mix")
    ds = load_dataset("ultradomain_mix")
    sl = make_slice(ds, 8)
    assert sl.slice_id == "ultradomain_mix-n8-s0"
    assert len(sl.passages) < len(ds.passages) / 10
    anchors = anchor_documents(ds)
    assert all(anchors[q.id] in sl.passage_ids for q in sl.questions)


# --- selection ---------------------------------------------------------------------------------


def test_slices_are_nested_and_seeded() -> None:
    ds = load_dataset("toy")
    small, large = make_slice(ds, 3), make_slice(ds, 6)
    assert [q.id for q in large.questions[:3]] == [q.id for q in small.questions]
    orders = {tuple(q.id for q in make_slice(ds, 8, seed=s).questions) for s in range(4)}
    assert len(orders) > 1


def test_slice_larger_than_available_fails_clearly() -> None:
    ds = load_dataset("toy")
    with pytest.raises(ValueError, match=r"n=9 .*only 8 available"):
        make_slice(ds, 9)
    with pytest.raises(ValueError, match="n must be"):
        make_slice(ds, 0)
    with pytest.raises(ValueError, match="doc_ids"):
        make_slice(ds, 1, doc_ids=["toy-01"])


def test_selection_key_is_a_stable_hash() -> None:
    assert selection_key("q1", 0) == selection_key("q1", 0) != selection_key("q1", 1)
    assert len(selection_key("q1", 0)) == 64  # SHA-256 hex: the same on every machine


def test_toy_distractors_are_pinned() -> None:
    # Committed slices depend on the BM25 ranking (bm25s tokens, "en" stopwords, ties by id);
    # these are the distractors the original data module chose.
    ds = load_dataset("toy")
    picked = {q.id: [p.id for p in question_passages(ds, q, 3)] for q in ds.questions[:3]}
    assert picked == {
        "toy-q1": ["toy-02", "toy-15", "toy-03", "toy-13", "toy-16"],
        "toy-q2": ["toy-01", "toy-03", "toy-10", "toy-09", "toy-11", "toy-04"],
        "toy-q3": ["toy-04", "toy-06", "toy-10", "toy-01", "toy-07"],
    }


def test_slicing_a_corpus_without_a_single_bm25_token() -> None:
    """Regression (issue 13): bm25s failed with ``max() arg is an empty sequence``."""
    passages = [Passage("e1", "", ""), Passage("e2", "a", "b c")]
    questions = [
        Question("q1", "x?", "a", (), (), None, "t"),
        Question("q2", "the lantern?", "a", (), ("e2",), None, "t"),
    ]
    for setting in (PER_QUESTION, "shared"):
        ds = Dataset("tokenless", passages, questions, setting, passages_per_question=2)
        sl = make_slice(ds, 2)
        _assert_supports_in_slice(sl)
        assert set(sl.passage_ids) == {"e1", "e2"}
