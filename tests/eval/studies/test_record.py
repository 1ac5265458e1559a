"""ace_lab.eval.studies.record: one answered question as a record (coverage, the two recalls,
the evidence metrics, cold-cache wall time) and completing older records (``with_metrics``).

The full record of a real answer is checked end to end in ``test_runner.py``."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import pandas as pd
import pytest

from ace_lab.data import Passage, Question
from ace_lab.eval.reporting.tables import cost_table
from ace_lab.eval.studies.record import (
    _has_answer,
    record,
    record_details,
    step_payloads,
    study_slice,
    with_metrics,
)
from ace_lab.evidence import Answer, Context, Evidence, LLMCall, Trace
from ace_lab.steps import AnswerDetails, Retrieval
from tests.support.records import result_record


def test_coverage_is_undefined_for_yes_no_and_questions_without_gold():
    items = [Evidence("p1", "passage", "The lantern is kept in Brinemouth.")]
    assert _has_answer(items, ["Brinemouth"], yes_no=False) is True
    assert _has_answer(items, ["Kesterholm"], yes_no=False) is False
    assert _has_answer(items, ["yes"], yes_no=True) is None
    assert _has_answer(items, [], yes_no=False) is None


def _answer(*retrievals: list[Evidence], calls: tuple[LLMCall, ...] = ()) -> Answer:
    """An answer whose trace has one retrieve step per list and a generate step."""
    trace = Trace()
    for number, items in enumerate(retrievals):
        with trace.step(f"retrieve:{number}") as step:
            step.add(items)
    with trace.step("generate") as step:
        step.llm_calls.extend(calls)
    final = [e for items in retrievals for e in items]
    return Answer("Brinemouth", Context(final), trace, method="m")


QUESTION = Question("q1", "Where is the lantern kept?", "Brinemouth", (), (), None, "toy")
MISS = Evidence("p0", "passage", "The lantern is old.")
HIT = Evidence("p1", "passage", "The lantern is kept in Brinemouth.")


def test_base_coverage_comes_from_the_first_retrieval_step_of_the_trace():
    refined = record(QUESTION, _answer([MISS], [HIT]))
    assert refined["context_has_answer"] is True and refined["base_has_answer"] is False
    single = record(QUESTION, _answer([HIT]))  # one retrieval: nothing was refined
    assert single["context_has_answer"] is True and single["base_has_answer"] is None


def test_cold_wall_replaces_cache_lookups_with_recorded_model_time():
    fresh = LLMCall("plan", "m", 10, 5, 2.0, False, response_latency_s=2.0)
    hit = LLMCall("gen", "m", 0, 0, 0.001, True, response_latency_s=3.0)
    rec = record(QUESTION, _answer([HIT], calls=(fresh, hit)))
    assert rec["cold_wall_s"] == pytest.approx(rec["wall_s"] + 2.999, abs=2e-4)
    unknown = LLMCall("gen", "m", 0, 0, 0.001, True)
    assert record(QUESTION, _answer([HIT], calls=(fresh, unknown)))["cold_wall_s"] is None
    rows = [
        result_record("m", 0, wall_s=0.5, cache_hits=1, cold_wall_s=4.0),
        result_record("m", 1, wall_s=2.0),
    ]
    rows.append(result_record("m", 2, wall_s=0.01, cache_hits=1, cold_wall_s=None))
    table = cost_table(pd.DataFrame(rows), ["m"], reference="m").iloc[0]
    assert table["wall_s"] == pytest.approx(3.0) and table["wall_n"] == 2


@dataclass(frozen=True)
class StatsDetails(AnswerDetails):
    """A method's details owning one record column, ``stats`` (as ArcRAG's and MOSAIC's do)."""

    stats: dict[str, Any]

    def columns(self) -> dict[str, Any]:
        return {"stats": dict(self.stats)}


def test_a_methods_own_columns_reach_the_record_and_are_absent_otherwise():
    answer = _answer([HIT])
    plain = record(QUESTION, answer)
    assert plain["method"] == "m" and plain["details"] is None and plain["raw"] is None
    assert not {"stats", "policy", "topology", "router", "plan"} & set(plain)
    stats = {"cypher_queries": 3, "passes_used": 2, "stop_reason": "sufficient"}
    with_stats = Answer(
        answer.text,
        answer.context,
        answer.trace,
        method="m",
        raw="r",
        retrieval_calls=2,
        details=StatsDetails(stats),
    )
    rec = json.loads(json.dumps(record(QUESTION, with_stats)))
    assert rec["stats"] == stats and rec["stats"]["passes_used"] == 2
    assert (rec["raw"], rec["retrieval_calls"]) == ("r", 2)
    assert rec["details"] == {"type": "StatsDetails", "v": 1, "stats": stats}
    assert record_details(rec) == StatsDetails(stats) and record_details(plain) is None
    assert rec["context_texts"] == [HIT.text] and rec["context_ids"] == [HIT.id]


def test_step_rows_carry_their_typed_payload_and_old_rows_load_without_one():
    answer = _answer([HIT])
    answer.trace.steps[0].record(Retrieval("q", "hi", ("p1",)))
    rec = json.loads(json.dumps(record(QUESTION, answer)))
    assert rec["steps"][0]["payload"] == {
        "type": "Retrieval",
        "v": 1,
        "query": "q",
        "mode": "hi",
        "evidence_ids": ["p1"],
    }
    assert rec["steps"][1]["payload"] is None
    assert step_payloads(rec) == [Retrieval("q", "hi", ("p1",)), None]
    old = {"steps": [{"name": "retrieve:base", "elapsed": 0.1, "llm_calls": 0}]}
    assert step_payloads(old) == [None] and step_payloads({}) == []
    newer = {"steps": [{"payload": {"type": "Retrieval", "v": 99, "query": "q"}}]}
    assert step_payloads(newer) == [None]  # a version this package does not know


def test_record_keeps_both_recalls_and_the_supporting_passages():
    question = Question("q2", "Where?", "Brinemouth", (), ("p1", "p2"), None, "toy")
    entity = Evidence("ent:lantern", "entity", "lantern", source_ids=("p2",))
    rec = record(
        question, _answer([entity, Evidence("p1#1", "passage", "x", source_ids=("p1#1",))])
    )
    assert rec["supporting_ids"] == ["p1", "p2"]
    assert rec["passage_recall"] == 0.5  # p2 only reached the context through an entity
    assert rec["provenance_recall"] == 1.0
    assert "support_recall" not in rec
    assert record(QUESTION, _answer([HIT]))["passage_recall"] is None  # no supporting ids


def _old(i: int, context_ids: list[str], support: float, **fields) -> dict:
    """A record as written before the two recalls: ``support_recall`` only."""
    return {
        "id": f"toy-q{i}",
        "method": "m",
        "context_ids": context_ids,
        "support_recall": support,
        **fields,
    }


def test_with_metrics_recomputes_old_records_recalls_and_keeps_new_ones(tmp_path):
    frame = pd.DataFrame(
        [
            _old(1, ["ent:x", "toy-02#0"], 1.0),  # toy-q1 is supported by toy-02 and toy-15
            _old(2, ["p9"], 0.0, supporting_ids=["p9", "p8"]),  # ids in the record win
            {
                "id": "toy-q3",
                "method": "m",
                "context_ids": ["ent:y"],
                "passage_recall": 0.25,
                "provenance_recall": 0.75,
            },
            _old(4, None, 0.5),  # no context ids: passage recall unknown
        ]
    )
    (tmp_path / "manifest.json").write_text(json.dumps({"dataset": "toy"}))
    done = with_metrics(frame, tmp_path)
    assert done["passage_recall"].tolist()[:3] == [0.5, 0.5, 0.25]
    assert math.isnan(done["passage_recall"].iloc[3])
    assert done["provenance_recall"].tolist() == [1.0, 0.0, 0.75, 0.5]  # old = provenance
    assert math.isnan(frame["passage_recall"].iloc[0])  # the input is not changed
    # Without the data set's supporting ids, only records that carry theirs get a value.
    alone = with_metrics(frame)
    assert math.isnan(alone["passage_recall"].iloc[0]) and alone["passage_recall"].iloc[1] == 0.5
    assert with_metrics(pd.DataFrame()).empty


def test_supporting_ids_come_from_the_manifest_data_set_or_stay_empty(tmp_path, caplog):
    old = pd.DataFrame([_old(1, ["ent:x", "toy-02#0"], 1.0)])  # supported by toy-02 and toy-15
    (tmp_path / "manifest.json").write_text(json.dumps({"dataset": "toy"}))
    assert with_metrics(old, tmp_path)["passage_recall"].tolist() == [0.5]
    (tmp_path / "manifest.json").write_text(json.dumps({"dataset": "no-such-set"}))
    assert math.isnan(with_metrics(old, tmp_path)["passage_recall"].iloc[0])
    assert "metrics that read them left empty" in caplog.text
    assert math.isnan(with_metrics(old, tmp_path / "missing")["passage_recall"].iloc[0])


def test_record_computes_the_evidence_metrics_from_the_question_and_the_trace():
    titles = ["Lantern", "Harbour"]  # as HotpotQA's extra has them, in supporting_ids order
    extra = {"supporting_facts": [["Lantern", 0], ["Harbour", 0]], "supporting_titles": titles}
    question = Question("q3", "Where?", "Brinemouth", (), ("pl", "ph"), None, "toy", extra)
    lantern = Evidence("pl", "passage", "Lantern: The lantern is kept in Brinemouth.")
    quote = Evidence("ent:harbour", "entity", "the harbour of brinemouth was dug in 1890")
    passages = {
        "pl": Passage("pl", "Lantern", "The lantern is kept in Brinemouth."),
        "ph": Passage("ph", "Harbour", "The harbour of Brinemouth was dug in 1890. It silted."),
    }
    plan = LLMCall("plan", "m", 40, 8, 0.1, False, response_prompt_tokens=40)
    answer = _answer([lantern, quote], calls=(plan,))  # the generate step's call: not counted
    rec = record(question, answer, passages=passages)
    assert rec["answer_coverage"] is True and rec["context_llm_tokens"] == 0
    assert rec["supporting_fact_recall"] == 1.0  # the harbour sentence, quoted by an entity
    # without the passages the harbour sentence has no text: only its passage could find it
    assert record(question, answer)["supporting_fact_recall"] == 0.5
    assert record(QUESTION, _answer([MISS]))["supporting_fact_recall"] is None  # no facts


HOTPOT = {"dataset": "hotpotqa_dev_sample200", "n": 20, "seed": 0}
#: The first question of that slice: "McLaren MP4/11 was driven by what Finnish former
#: professional racing driver" (Mika Häkkinen), facts [McLaren MP4/11, 1], [Mika Häkkinen, 0].
MP4 = "5ae237cf5542992decbdcc78"
MP4_PASSAGE, HAKKINEN_PASSAGE = "9ff3078d2b28a3a8", "e4ad488eca03753c"


def test_with_metrics_fills_evidence_metrics_from_the_study_slice_and_keeps_held_ones(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps(HOTPOT))
    no_tokens = [{"name": "retrieve:base", "llm_calls": 0}, {"name": "generate", "llm_calls": 1}]
    old = {"id": MP4, "method": "m", "gold": ["Mika Häkkinen"], "steps": no_tokens}
    quote = (  # the MP4/11 passage's sentence 1, whole
        "It was driven by Mika Häkkinen, who was in his third full season with the team, "
        "and David Coulthard, who moved from Williams."
    )
    frame = pd.DataFrame(
        [
            old | {"context_ids": [MP4_PASSAGE]},  # whole passages: their texts are rebuilt
            old | {"context_ids": ["ent:mika"], "context_texts": [f"Mika: {quote} Then"]},
            old | {"context_ids": ["ent:mika", HAKKINEN_PASSAGE], "context_has_answer": True},
            old | {"context_ids": [], "answer_coverage": False, "supporting_fact_recall": 0.25},
        ]
    )
    done = with_metrics(frame, tmp_path)
    assert done["answer_coverage"].tolist() == [True, True, True, False]
    # the whole MP4/11 passage; the quoted sentence; other items' texts lost; held values
    assert done["supporting_fact_recall"].tolist()[:2] == [0.5, 0.5]
    cut = with_metrics(frame.assign(context_texts=[None, [quote[:-20]], None, None]), tmp_path)
    assert cut["supporting_fact_recall"].iloc[1] == 0.0  # part of a sentence does not count
    assert math.isnan(done["supporting_fact_recall"].iloc[2])
    assert done["supporting_fact_recall"].iloc[3] == 0.25
    assert done["context_llm_tokens"].tolist() == [0.0] * 4  # no call before the answer
    assert "context_llm_tokens" not in frame  # the input is not changed
    # without the study's slice the facts are unknown, the rest is computed as before
    alone = with_metrics(frame)
    assert alone["supporting_fact_recall"].isna().tolist() == [True, True, True, False]
    assert alone["answer_coverage"].tolist() == [None, True, True, False]
    assert with_metrics(pd.DataFrame()).empty


def test_the_study_slice_is_the_one_its_manifest_names(tmp_path, caplog):
    (tmp_path / "manifest.json").write_text(json.dumps(HOTPOT))
    sl = study_slice(tmp_path)
    assert sl is not None and sl.questions[0].id == MP4
    (tmp_path / "manifest.json").write_text(json.dumps({"model": "m"}))
    assert study_slice(tmp_path) is None and not caplog.text  # no data set: nothing to warn
    assert study_slice(tmp_path / "missing", "facts lost") is None and "facts lost" in caplog.text
