"""GraphRAG-Bench slices (ace_lab.data.graphragbench): stratified questions, evidence chunks,
hard distractors, determinism, and loader errors that name the broken file.

Hand-made sets (named like the real ones, so the slicer handles them) check the algorithm on
known chunk boundaries; the real ../shared/data sets check the default slices.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from ace_lab.data import (
    DataError,
    Dataset,
    Passage,
    Question,
    chunk_passages,
    load_dataset,
    make_slice,
)
from ace_lab.data.graphragbench import (
    CHUNK_TOKENS,
    DEFAULT_DISTRACTORS,
    QUESTION_TYPES,
    allocate,
    corpus_chunks,
    slice_summary,
    split_evidence,
)
from ace_lab.data.records import DOCUMENTS
from tests.support.datasets import need_dataset

REAL = ("graphragbench_medical", "graphragbench_novel")


# ------------------------------------------------------------------ evidence statements
def test_split_evidence_on_semicolon_space_only() -> None:
    text = "Fair skin is a risk factor.; Immune suppression is one too.;  Age matters."
    assert split_evidence(text) == (
        "Fair skin is a risk factor.",
        "Immune suppression is one too.",
        "Age matters.",
    )
    assert split_evidence("Lymphoma is defined by t(14;18)-negativity.") == (
        "Lymphoma is defined by t(14;18)-negativity.",
    )
    assert split_evidence(["a", " ", "b "]) == ("a", "b")
    assert split_evidence(None) == ()
    with pytest.raises(TypeError):
        split_evidence(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        split_evidence(["a", 1])  # type: ignore[list-item]


# ------------------------------------------------------------------ allocation by type
def test_allocate_is_proportional_with_every_type_present() -> None:
    counts = {"Fact Retrieval": 876, "Complex Reasoning": 406, "Contextual Summarize": 241}
    counts["Creative Generation"] = 127
    share = allocate(counts, 20)
    # quotas 10.62, 4.92, 2.92, 1.54: floors 10, 4, 2, 1, then the three largest remainders
    assert share == {
        "Fact Retrieval": 11,
        "Complex Reasoning": 5,
        "Contextual Summarize": 3,
        "Creative Generation": 1,
    }
    # a rare type still gets one question when n allows, taken from the largest share
    rare = allocate({"Fact Retrieval": 97, "Creative Generation": 3}, 4)
    assert rare == {"Fact Retrieval": 3, "Creative Generation": 1}
    assert sum(allocate(counts, 7).values()) == 7
    assert allocate({"Fact Retrieval": 5, "Complex Reasoning": 5}, 1) == {
        "Fact Retrieval": 1,
        "Complex Reasoning": 0,
    }
    with pytest.raises(ValueError):
        allocate({"Fact Retrieval": 2}, 3)


# ------------------------------------------------------------------ a hand-made set
def _block(topic: str, index: int) -> str:
    """Exactly CHUNK_TOKENS word pieces: the topic words, then unique filler."""
    words = topic.split()
    filler = [f"filler{index}x{j}" for j in range(CHUNK_TOKENS - len(words))]
    return " ".join(words + filler) + " "


TOPICS = [
    "whales sing songs across the cold ocean",
    "comets carry ice and dust around the sun",
    "sourdough bread rises with wild yeast",
    "glaciers carve deep valleys in mountains",
]


def _hand_set(name: str = "graphragbench_medical") -> Dataset:
    doc_a = "".join(_block(t, i) for i, t in enumerate(TOPICS))
    doc_b = _block("volcanoes erupt molten lava", 10) + _block("whales migrate to warm seas", 11)
    docs = [Passage("A", "A", doc_a), Passage("B", "B", doc_b)]
    rows = [
        ("q1", "Fact Retrieval", "Why do whales sing?", "A", "Whales sing.; Oceans are cold."),
        ("q2", "Fact Retrieval", "What do comets carry?", "A", "Comets carry ice."),
        ("q3", "Complex Reasoning", "How does bread rise?", "A", "Sourdough rises with yeast."),
        ("q4", "Contextual Summarize", "What do glaciers do?", "A", "Glaciers carve valleys."),
        ("q5", "Creative Generation", "Write about volcanoes.", "B", "Volcanoes erupt lava."),
        ("q6", "Fact Retrieval", "Where do whales migrate?", "B", "Whales migrate to warm seas."),
    ]
    questions = [
        Question(
            qid,
            text,
            "gold",
            (),
            (src,),
            kind,
            name,
            {"evidence_statements": list(split_evidence(ev))},
        )
        for qid, kind, text, src, ev in rows
    ]
    return Dataset(name, docs, questions, DOCUMENTS)


def test_chunks_have_ids_offsets_and_fit_the_pipeline_window() -> None:
    ds = _hand_set()
    chunks = corpus_chunks(ds)
    assert [c.id for c in chunks] == [f"A#c000{i}" for i in range(4)] + ["B#c0000", "B#c0001"]
    assert chunks[1].text.startswith("comets") and chunks[1].meta["doc_id"] == "A"
    assert int(chunks[1].meta["start"]) == len(_block(TOPICS[0], 0))
    # the pipeline's 600-piece chunking keeps every slice chunk whole, under its own id
    assert [c.id for c in chunk_passages(chunks)] == [c.id for c in chunks]


def test_evidence_is_matched_within_the_source_document() -> None:
    sl = make_slice(_hand_set(), 6, distractors=0)
    by_id = {q.id: q for q in sl.questions}
    # "Oceans are cold" shares "cold" with the whale chunk only: both statements land there
    assert by_id["q1"].extra["evidence_chunk_ids"] == ["A#c0000", "A#c0000"]
    assert by_id["q1"].supporting_ids == ("A#c0000",)
    assert by_id["q2"].supporting_ids == ("A#c0001",)
    # q6's statement also matches doc A's whale chunk; only its source document B counts
    assert by_id["q6"].supporting_ids == ("B#c0001",)
    assert by_id["q6"].extra["source_ids"] == ["B"]
    assert set(sl.passage_ids) == {cid for q in sl.questions for cid in q.supporting_ids}


def test_unmatched_statement_is_recorded_not_guessed() -> None:
    ds = _hand_set()
    q = ds.questions[1]
    odd = Question(
        "q9",
        q.question,
        "g",
        (),
        ("A",),
        q.type,
        ds.name,
        {"evidence_statements": ["Comets carry ice.", "Zebras gallop."]},
    )
    ds2 = Dataset(ds.name, ds.passages, [odd], DOCUMENTS)
    (only,) = make_slice(ds2, 1, distractors=0).questions
    assert only.extra["evidence_chunk_ids"] == ["A#c0001", None]
    assert only.extra["evidence_match_scores"][1] == 0.0
    assert only.supporting_ids == ("A#c0001",)


def test_distractors_are_hard_disjoint_and_counted() -> None:
    ds = _hand_set()
    sl = make_slice(ds, 2, distractors=1)
    summary = slice_summary(sl)
    assert summary["distractor_chunks"] == 2 and summary["questions"] == 2
    evidence = {cid for q in sl.questions for cid in q.supporting_ids}
    picked = [cid for q in sl.questions for cid in q.extra["distractor_ids"]]
    assert len(picked) == len(set(picked)) == 2 and not evidence & set(picked)
    for q in sl.questions:
        assert sl.question_passage_ids[q.id] == q.supporting_ids + tuple(q.extra["distractor_ids"])
    assert sl.slice_id.endswith("-k1")
    # the whale question's best non-evidence chunk is the other document's whale chunk
    whale = make_slice(Dataset(ds.name, ds.passages, [ds.questions[0]], DOCUMENTS), 1, 0, 1)
    assert whale.questions[0].extra["distractor_ids"] == ["B#c0001"]


def test_doc_ids_restrict_questions_and_chunks() -> None:
    sl = make_slice(_hand_set(), 2, doc_ids=["B"], distractors=5)
    assert {q.id for q in sl.questions} == {"q5", "q6"}
    assert all(pid.startswith("B#") for pid in sl.passage_ids)
    assert len(sl.passage_ids) == 2  # the scope ran out of distractors
    assert "-d" in sl.slice_id
    with pytest.raises(ValueError, match="unknown doc ids"):
        make_slice(_hand_set(), 1, doc_ids=["Z"])
    with pytest.raises(ValueError, match="only 2 available"):
        make_slice(_hand_set(), 3, doc_ids=["B"])


def test_other_document_sets_are_not_sliced_here() -> None:
    ds = _hand_set(name="multihoprag_small20")
    sl = make_slice(ds, 2)
    assert sl.passage_ids == ["A", "B"]  # whole documents, as before


# ------------------------------------------------------------------ the real sets
@pytest.mark.parametrize("name", REAL)
def test_default_slice_keeps_the_type_mix(name: str) -> None:
    need_dataset(name)
    ds = load_dataset(name)
    sl = make_slice(ds, 20)
    got = Counter(q.type for q in sl.questions)
    assert dict(got) == allocate(dict(Counter(q.type or "" for q in ds.questions)), 20)
    assert set(got) == set(QUESTION_TYPES)
    total = len(ds.questions)
    for kind, count in Counter(q.type for q in ds.questions).items():
        assert abs(got[kind] - 20 * count / total) < 1.0 or got[kind] == 1


@pytest.mark.parametrize("name", REAL)
def test_default_slice_holds_evidence_and_distractors(name: str) -> None:
    need_dataset(name)
    ds = load_dataset(name)
    sl = make_slice(ds, 20)
    assert sl.slice_id == f"{name}-n20-s0"
    ids = set(sl.passage_ids)
    originals = {q.id: q for q in ds.questions}
    for q in sl.questions:
        source = originals[q.id].supporting_ids[0]
        assert q.supporting_ids and set(q.supporting_ids) <= ids
        assert all(cid.startswith(f"{source}#c") for cid in q.supporting_ids)
        statements = split_evidence(originals[q.id].extra["evidence"])
        assert tuple(q.extra["evidence_statements"]) == statements
        assert len(q.extra["evidence_chunk_ids"]) == len(statements)
        assert len(q.extra["distractor_ids"]) == DEFAULT_DISTRACTORS
    summary = slice_summary(sl)
    assert summary["distractor_chunks"] == 20 * DEFAULT_DISTRACTORS
    assert summary["chunks"] == summary["evidence_chunks"] + summary["distractor_chunks"]
    assert summary["tokens"] <= summary["chunks"] * CHUNK_TOKENS
    assert [c.id for c in chunk_passages(sl.passages)] == sl.passage_ids


@pytest.mark.parametrize("name", REAL)
def test_slice_is_deterministic_and_nests_its_questions(name: str) -> None:
    need_dataset(name)
    ds = load_dataset(name)
    fresh = Dataset(ds.name, list(ds.passages), list(ds.questions), ds.setting)  # no memo
    a, b = make_slice(ds, 20, seed=3), make_slice(fresh, 20, seed=3)
    assert [q.id for q in a.questions] == [q.id for q in b.questions]
    assert a.passage_ids == b.passage_ids
    assert dict(a.question_passage_ids) == dict(b.question_passage_ids)
    other = make_slice(ds, 20, seed=4)
    assert [q.id for q in other.questions] != [q.id for q in a.questions]


def test_novel_slice_by_document() -> None:
    need_dataset("graphragbench_novel")
    ds = load_dataset("graphragbench_novel")
    doc = ds.passages[0].id
    sl = make_slice(ds, 3, doc_ids=[doc])
    assert all(pid.startswith(f"{doc}#c") for pid in sl.passage_ids)
    assert sl.slice_id.startswith("graphragbench_novel-n3-s0-d")


# ------------------------------------------------------------------ broken files
def _write(root: Path, corpus: object, questions: object) -> Path:
    folder = root / "graphragbench_medical"
    folder.mkdir(parents=True)
    for fname, content in (("corpus.json", corpus), ("questions.json", questions)):
        if content is not None:
            text = content if isinstance(content, str) else json.dumps(content)
            (folder / fname).write_text(text, encoding="utf-8")
    return folder


CORPUS = [{"id": "Medical", "title": "Medical", "text": "Basal cell carcinoma is common."}]
RECORD = {
    "id": "m1",
    "source": "Medical",
    "question": "What is common?",
    "answer": "BCC",
    "question_type": "Fact Retrieval",
    "evidence": "BCC is common.; It is a skin cancer.",
}


def test_loader_keeps_type_and_evidence(tmp_path: Path) -> None:
    _write(tmp_path, CORPUS, [RECORD])
    (q,) = load_dataset("graphragbench_medical", data_dir=tmp_path).questions
    assert q.type == "Fact Retrieval" and q.supporting_ids == ("Medical",)
    assert q.extra["evidence_statements"] == ["BCC is common.", "It is a skin cancer."]


@pytest.mark.parametrize(
    ("corpus", "questions", "broken", "message"),
    [
        (CORPUS, None, "questions.json", "file not found"),
        (None, [RECORD], "corpus.json", "file not found"),
        (CORPUS, '[{"id": "m1", "source": ', "questions.json", "corrupt JSON"),
        ("[{]", [RECORD], "corpus.json", "corrupt JSON"),
        (CORPUS, [{**RECORD, "evidence": 7}], "questions.json", "'evidence'"),
        (CORPUS, [{**RECORD, "source": "Elsewhere"}], "questions.json", "not in the corpus"),
    ],
)
def test_broken_files_name_the_file(
    tmp_path: Path, corpus: object, questions: object, broken: str, message: str
) -> None:
    folder = _write(tmp_path, corpus, questions)
    with pytest.raises(DataError, match=message) as info:
        load_dataset("graphragbench_medical", data_dir=tmp_path)
    assert str(folder / broken) in str(info.value)
