"""ace_lab.data.pooled: pooled views slice ``n`` questions against the whole corpus.

Hand-made sets check the algorithm; the committed pooled slices (HippoRAG's HotpotQA and MuSiQue
samples, GraphRAG-Bench Medical's whole document) are checked on their files alone, as on a
fresh clone with nothing beside it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from ace_lab.data import DataError, Dataset, Passage, Question, load_slice, make_slice
from ace_lab.data.committed import read_slice_file, slice_path, slice_text
from ace_lab.data.graphragbench import CHUNK_TOKENS, corpus_chunks, split_evidence
from ace_lab.data.pooled import make_pooled_slice, pooled_slice
from ace_lab.data.records import POOLED
from ace_lab.data.registry import POOLED_SETS, get_spec, pooled_base
from ace_lab.data.slices import selection_key

COMMITTED = {
    "hotpotqa_train_sample100_hipporag_pooled": 994,
    "musique_train_sample100_hipporag_pooled": 1890,
    "graphragbench_medical_pooled": None,  # chunks of the whole document
}


def _multihop(n_questions: int = 6, n_passages: int = 30) -> Dataset:
    passages = [Passage(f"p{i}", f"T{i}", f"text {i}") for i in range(n_passages)]
    questions = [
        Question(f"q{i}", f"question {i}?", "a", (), (f"p{i}", f"p{i + 10}"), None, "x")
        for i in range(n_questions)
    ]
    return Dataset("hotpotqa_train_sample100_hipporag_pooled", passages, questions, POOLED)


def test_pooled_views_read_their_sets_files_in_the_pooled_setting() -> None:
    for name, spec in POOLED_SETS.items():
        base = get_spec(pooled_base(name))
        assert name == f"{base.name}_pooled" and spec.setting == POOLED
        assert (spec.folder, spec.schema, spec.task) == (base.folder, base.schema, base.task)
    assert pooled_base("hotpotqa_dev_sample200") == "hotpotqa_dev_sample200"
    assert get_spec("graphragbench_medical_pooled").task == "open"


def test_a_pooled_slice_is_n_questions_in_selection_order_with_every_passage() -> None:
    ds = _multihop()
    sl = make_slice(ds, 3, seed=1)
    expected = sorted(ds.questions, key=lambda q: selection_key(q.id, 1))[:3]
    assert [q.id for q in sl.questions] == [q.id for q in expected]
    assert sl.passage_ids == [p.id for p in ds.passages]  # the whole corpus, also the unused
    assert sl.setting == POOLED and sl.slice_id.endswith("_pooled-n3-s1")
    everything = tuple(sl.passage_ids)
    assert all(ids == everything for ids in sl.question_passage_ids.values())
    smaller = make_slice(ds, 2, seed=1)  # nests: the first questions, the same corpus
    assert smaller.questions == sl.questions[:2] and smaller.passages == sl.passages


def test_pooled_slice_rejects_n_out_of_range() -> None:
    with pytest.raises(ValueError, match="n must be >= 1"):
        make_pooled_slice(_multihop(), 0)
    with pytest.raises(ValueError, match="only 6 available"):
        make_pooled_slice(_multihop(), 7)


def _medical() -> Dataset:
    """One document of six topic chunks, one question of each of four types and two more."""
    topics = [
        "whales sing",
        "comets carry ice",
        "bread rises",
        "glaciers carve",
        "volcanoes erupt",
        "rivers flood",
    ]
    text = "".join(
        " ".join([t, *(f"f{i}x{j}" for j in range(CHUNK_TOKENS - len(t.split())))]) + " "
        for i, t in enumerate(topics)
    )
    kinds = ["Fact Retrieval", "Complex Reasoning", "Contextual Summarize", "Creative Generation"]
    rows = [(kinds[i % 4], topics[i]) for i in range(6)]
    questions = [
        Question(
            f"q{i}",
            f"What about {topic}?",
            "gold",
            (),
            ("Medical",),
            kind,
            "graphragbench_medical_pooled",
            {"evidence_statements": list(split_evidence(f"{topic} indeed."))},
        )
        for i, (kind, topic) in enumerate(rows)
    ]
    return Dataset(
        "graphragbench_medical_pooled", [Passage("Medical", "M", text)], questions, POOLED
    )


def test_graphragbench_pooled_slice_is_every_chunk_with_evidence_chunks_as_supports() -> None:
    ds = _medical()
    sl = make_slice(ds, 4)
    assert sl.passages == corpus_chunks(ds)  # the whole document, no distractor choice
    assert Counter(q.type for q in sl.questions) == Counter(
        {
            "Fact Retrieval": 1,
            "Complex Reasoning": 1,
            "Contextual Summarize": 1,
            "Creative Generation": 1,
        }
    )
    for q in sl.questions:
        topic = q.question.removeprefix("What about ").removesuffix("?")
        chunk = next(c.id for c in sl.passages if c.text.startswith(topic))
        assert q.supporting_ids == (chunk,) and q.extra["distractor_ids"] == []
        assert q.extra["source_ids"] == ["Medical"]


def test_a_committed_pooled_file_stores_no_groups_and_reads_back_whole(tmp_path: Path) -> None:
    ds = _multihop()
    sl = make_slice(ds, 4)
    path = tmp_path / f"{sl.slice_id}.json"
    path.write_text(slice_text(sl), encoding="utf-8")
    assert json.loads(path.read_text())["question_passage_ids"] == {}
    back = read_slice_file(path)
    assert back.question_passage_ids == sl.question_passage_ids
    assert back.setting == POOLED and back.passages == sl.passages


def test_pooled_slice_helper_gives_every_question_the_corpus() -> None:
    ds = _multihop()
    sl = pooled_slice("name", ds.questions[:2], ds.passages, 0, 2)
    assert sl.question_passage_ids == {"q0": tuple(sl.passage_ids), "q1": tuple(sl.passage_ids)}


# ------------------------------------------------------------------ the committed slices
@pytest.fixture
def no_full_sets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("ACE_LAB_DATA", str(empty))
    return empty


@pytest.mark.parametrize("name", COMMITTED)
def test_a_clone_with_nothing_beside_it_loads_each_pooled_slice(name: str, no_full_sets) -> None:
    sl = load_slice(name, 100)
    assert sl.slice_id == f"{name}-n100-s0" and len(sl.questions) == 100
    if COMMITTED[name] is not None:
        assert len(sl.passages) == COMMITTED[name]
    ids = set(sl.passage_ids)
    assert all(q.supporting_ids and set(q.supporting_ids) <= ids for q in sl.questions)
    record = json.loads(slice_path(sl.slice_id).read_text(encoding="utf-8"))
    assert record["source"] and record["licence"] and record["setting"] == POOLED


def test_committed_medical_pooled_is_the_whole_document_and_stratified(no_full_sets) -> None:
    sl = load_slice("graphragbench_medical_pooled")
    assert sum(len(p.text) for p in sl.passages) > 1_000_000  # 1.05 M characters
    assert len({q.type for q in sl.questions}) == 4
    with pytest.raises(DataError, match=r"ace-lab data fetch graphragbench_medical$"):
        load_slice("graphragbench_medical_pooled", 10)  # stratified slices do not nest


def test_a_smaller_pooled_hotpotqa_slice_keeps_the_whole_corpus(no_full_sets) -> None:
    full = read_slice_file(slice_path("hotpotqa_train_sample100_hipporag_pooled-n100-s0"))
    sl = load_slice("hotpotqa_train_sample100_hipporag_pooled", 10)
    assert sl.questions == full.questions[:10] and sl.passages == full.passages
