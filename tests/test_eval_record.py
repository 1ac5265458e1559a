"""ace_lab.eval.record: one answered question as a record (coverage and cold-cache wall time).

The full record of a real answer is checked end to end in ``test_runner.py``."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.data import Question
from ace_lab.eval.record import _has_answer, record
from ace_lab.eval.tables import cost_table
from ace_lab.evidence import Answer, Context, Evidence, LLMCall, Trace
from tests.conftest import result_record


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
    return Answer("Brinemouth", Context(final), trace, {"method": "m"})


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
