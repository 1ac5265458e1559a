"""Loading, slicing and chunking of the benchmark data (shared sets are skipped when absent)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ace_lab.data import (
    DATASETS,
    DOCUMENTS,
    PER_QUESTION,
    DataError,
    Dataset,
    Passage,
    Question,
    anchor_documents,
    cheapest_documents,
    chunk_passages,
    chunk_spans,
    chunk_text,
    dataset_overview,
    list_datasets,
    load_dataset,
    make_slice,
    passage_lengths,
    question_passages,
    question_type_counts,
    resolve_data_dir,
)
from ace_lab.tokens import count_tokens

SHARED_SETS = [name for name in DATASETS if name != "toy"]


def _available() -> list[str]:
    try:
        return list_datasets()
    except DataError:
        return ["toy"]


def _need(name: str) -> None:
    if name not in _available():
        pytest.skip(f"benchmark set {name} not available (set ACE_LAB_DATA)")


def _assert_supports_in_slice(sl) -> None:
    ids = set(sl.passage_ids)
    for q in sl.questions:
        assert set(q.supporting_ids) <= ids, q.id
        assert set(q.supporting_ids) <= set(sl.question_passage_ids[q.id]), q.id


# --- toy ---------------------------------------------------------------------------------------


def test_toy_loads_and_supports_exist() -> None:
    ds = load_dataset("toy")
    assert len(ds.passages) == 16
    assert len(ds.questions) == 8
    assert len({q.id for q in ds.questions}) == 8
    for q in ds.questions:
        assert q.answer and q.dataset == "toy"
        assert len(q.supporting_ids) >= 2
        for pid in q.supporting_ids:
            assert ds.passage(pid).id == pid
    assert {q.type for q in ds.questions} == {"bridge", "comparison", "yes_no", "summary"}


def test_toy_is_cached_and_unknown_names_fail() -> None:
    assert load_dataset("toy") is load_dataset("toy")
    with pytest.raises(KeyError, match="unknown dataset"):
        load_dataset("no_such_set")
    with pytest.raises(KeyError, match="no passage"):
        load_dataset("toy").passage("toy-99")


def test_toy_slice_is_shared_setting_with_distractors() -> None:
    ds = load_dataset("toy")
    sl = make_slice(ds, 3, seed=1, distractors=2)
    assert sl.slice_id == "toy-n3-s1-k2"
    _assert_supports_in_slice(sl)
    for q in sl.questions:
        assert len(sl.question_passage_ids[q.id]) == len(q.supporting_ids) + 2


# --- shared benchmark sets ----------------------------------------------------------------------


@pytest.mark.parametrize("name", SHARED_SETS)
def test_shared_set_loads(name: str) -> None:
    _need(name)
    ds = load_dataset(name)
    assert ds.passages and ds.questions
    assert len({q.id for q in ds.questions}) == len(ds.questions)
    assert len(ds.passage_by_id) == len(ds.passages)
    for q in ds.questions:
        assert q.question.strip()
        assert all(pid in ds.passage_by_id for pid in q.supporting_ids)
    has_gold = name.startswith(("hotpotqa", "musique", "2wiki", "graphragbench", "multihoprag"))
    assert all((q.answer is not None) == has_gold for q in ds.questions)


def test_ultradomain_second_question_file() -> None:
    _need("ultradomain_mix")
    ds = load_dataset("ultradomain_mix", questions_file="questions_lightrag_generated.json")
    assert ds.questions and all(q.answer is None for q in ds.questions)
    assert "task" in ds.questions[0].extra


def test_hotpot_slice_has_ten_passages_per_question() -> None:
    _need("hotpotqa_dev_sample200")
    ds = load_dataset("hotpotqa_dev_sample200")
    assert ds.setting == PER_QUESTION
    sl = make_slice(ds, 5)
    assert sl.slice_id == "hotpotqa_dev_sample200-n5-s0"
    assert len(sl.passages) == 50
    assert all(len(ids) == 10 for ids in sl.question_passage_ids.values())
    _assert_supports_in_slice(sl)


def test_musique_groups_have_twenty_passages() -> None:
    _need("musique_dev_sample292")
    ds = load_dataset("musique_dev_sample292")
    sl = make_slice(ds, 10, seed=3)
    assert all(len(ids) == 20 for ids in sl.question_passage_ids.values())
    _assert_supports_in_slice(sl)


def test_2wiki_slice_is_deterministic_and_has_supports() -> None:
    _need("2wikimultihopqa_hipporag1000")
    ds = load_dataset("2wikimultihopqa_hipporag1000")
    a, b = make_slice(ds, 10), make_slice(ds, 10)
    assert [q.id for q in a.questions] == [q.id for q in b.questions]
    assert a.passage_ids == b.passage_ids
    _assert_supports_in_slice(a)
    q = a.questions[0]
    assert len(question_passages(ds, q)) == len(q.supporting_ids) + 8


def test_document_slice_holds_all_or_chosen_documents() -> None:
    _need("graphragbench_novel")
    ds = load_dataset("graphragbench_novel")
    assert ds.setting == DOCUMENTS
    assert len(make_slice(ds, 4).passages) == len(ds.passages)
    doc = ds.passages[0].id
    sl = make_slice(ds, 3, doc_ids=[doc])
    assert sl.passage_ids == [doc]
    assert all(q.supporting_ids == (doc,) for q in sl.questions)
    assert sl.slice_id.startswith("graphragbench_novel-n3-s0-d")


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
    _need("ultradomain_mix")
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


# --- errors ------------------------------------------------------------------------------------


def _fake_set(root: Path, corpus: object, questions: object | None) -> Path:
    folder = root / "hotpotqa_dev_sample200"
    folder.mkdir(parents=True)
    for fname, content in (("corpus.json", corpus), ("questions.json", questions)):
        if content is None:
            continue
        text = content if isinstance(content, str) else json.dumps(content)
        (folder / fname).write_text(text, encoding="utf-8")
    return folder


PASSAGES = [{"id": "p1", "title": "A", "text": "alpha"}, {"id": "p2", "title": "B", "text": "b"}]
QUESTION = {"id": "q1", "question": "?", "answer": "a", "supporting_passage_ids": ["p1"]}


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    folder = _fake_set(tmp_path, PASSAGES, None)
    with pytest.raises(DataError, match=re.escape(str(folder / "questions.json"))):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_corrupt_json_names_the_file(tmp_path: Path) -> None:
    folder = _fake_set(tmp_path, '[{"id": "p1",', [QUESTION])
    with pytest.raises(DataError, match=re.escape(str(folder / "corpus.json")) + ".*corrupt JSON"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_missing_field_names_file_record_and_field(tmp_path: Path) -> None:
    corpus = [PASSAGES[0], {"id": "p2", "title": "B"}]
    _fake_set(tmp_path, corpus, [QUESTION])
    with pytest.raises(DataError, match=r"corpus\.json: record 1: missing required field 'text'"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_unknown_support_is_an_error(tmp_path: Path) -> None:
    bad = {**QUESTION, "supporting_passage_ids": ["nope"]}
    _fake_set(tmp_path, PASSAGES, [bad])
    with pytest.raises(DataError, match=r"questions\.json: record 0: .*nope"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_fake_data_dir_loads(tmp_path: Path) -> None:
    _fake_set(tmp_path, PASSAGES, [QUESTION])
    assert list_datasets(tmp_path) == ["toy", "hotpotqa_dev_sample200"]
    ds = load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)
    assert ds.questions[0].supporting_ids == ("p1",)
    overview = dataset_overview(tmp_path)
    assert list(overview["name"]) == ["toy", "hotpotqa_dev_sample200"]


def test_resolve_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_data_dir(tmp_path) == tmp_path.resolve()
    monkeypatch.setenv("ACE_LAB_DATA", str(tmp_path))
    assert resolve_data_dir() == tmp_path.resolve()
    with pytest.raises(DataError, match="does not exist"):
        resolve_data_dir(tmp_path / "missing")


# --- chunking ----------------------------------------------------------------------------------

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


# --- overview ----------------------------------------------------------------------------------


def test_overview_helpers_on_toy() -> None:
    ds = load_dataset("toy")
    counts = question_type_counts(ds)
    assert counts["bridge"] == 4 and counts.sum() == 8
    lengths = passage_lengths(ds)
    assert lengths.shape == (16,) and (lengths > 20).all()
