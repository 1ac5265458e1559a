"""bench/pooled_retrieval.py: its passage-only graph gives NaiveRAG the contexts a full build
gives it, and its rows pair the same questions of the small and the pooled slice."""

from __future__ import annotations

import pandas as pd

from ace_lab.data import chunk_passages, load_dataset
from ace_lab.methods.naive import NaiveRetriever
from tests.support.benches import load_bench

bench = load_bench("pooled_retrieval")


def test_naive_reads_the_same_contexts_from_the_passage_graph_as_from_a_build(toy_graph):
    toy = load_dataset("toy")
    passages = bench.passage_graph(chunk_passages(toy.passages))
    for question in toy.questions:
        built = [e.id for e in NaiveRetriever(toy_graph).retrieve(question.question)]
        alone = [e.id for e in NaiveRetriever(passages).retrieve(question.question)]
        assert alone == built and alone
    values = bench.per_question(passages, toy.questions, budget=1500)
    assert list(values.index) == [q.id for q in toy.questions]
    assert values["passage recall"].between(0, 1).all()


def _part(slice_id: str, recall: dict[str, float]) -> dict:
    values = pd.DataFrame({"passage recall": recall, "answer coverage": dict.fromkeys(recall, 1.0)})
    return {
        "budget": 300,
        "slice": slice_id,
        "questions": len(recall),
        "passages": 10,
        "values": values,
    }


def test_the_paired_row_compares_the_shared_questions_only():
    small = _part("s-n2", {"q1": 1.0, "q2": 1.0})
    pooled = _part("s_pooled-n3", {"q1": 0.5, "q2": 0.5, "q3": 0.0})
    rows = bench.rows_of(small, pooled)
    assert [r["slice"] for r in rows[:2]] == ["s-n2", "s_pooled-n3"]
    paired = rows[2]
    assert paired["questions"] == 2
    assert paired["passage recall [95% CI]"].startswith("-0.500")
    assert paired["answer coverage [95% CI]"].startswith("+0.000")
