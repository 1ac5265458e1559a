"""ace_lab.eval.metrics.evidence: answer coverage, LLM tokens for the context, recovery and the
three columns of a stored record, on hand-made contexts and step rows."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
import pytest

from ace_lab.data import Question
from ace_lab.eval.metrics.evidence import (
    EVIDENCE_COLUMNS,
    answer_coverage,
    context_llm_tokens,
    context_text,
    evidence_of,
    recovery,
    recovery_by_method,
    recovery_values,
)


def test_coverage_needs_the_answer_as_whole_normalised_words():
    assert answer_coverage("The Art Institute of Chicago.", ["art"]) is True
    assert answer_coverage("We went to a party.", ["art"]) is False  # "art" inside "party"
    assert answer_coverage("It opened in 19423.", ["1942"]) is False  # "1942" inside "19423"
    assert answer_coverage("It opened in 1942, after the war.", ["1942"]) is True
    assert answer_coverage("the U.S. NAVY", ["US Navy"]) is True  # case, punctuation, articles
    assert answer_coverage("Cape Dorn.", ["Kesterholm", "Cape Dorn"]) is True  # an alias


def test_coverage_is_undefined_for_yes_no_questions_and_without_gold():
    assert answer_coverage("yes, it is", ["yes"]) is None
    assert answer_coverage("no", ["No"]) is None
    assert answer_coverage("anything", []) is None
    assert answer_coverage("anything", [""]) is None


def _step(name: str, calls: int, prompt: int | None = None, completion: int | None = None):
    row = {"name": name, "llm_calls": calls}
    return (
        row if prompt is None else row | {"prompt_tokens": prompt, "completion_tokens": completion}
    )


def test_context_tokens_count_every_step_but_the_last_answer_call():
    steps = [
        _step("retrieve:base", 0, 0, 0),
        _step("policy", 1, 300, 20),
        _step("generate:p1", 1, 900, 30),  # an earlier pass's answer, which the judge reads
        _step("judge:p1", 1, 800, 10),
        _step("generate", 1, 1000, 40),
    ]
    assert context_llm_tokens(steps) == 320 + 930 + 810
    # an evidence-only record never made the answer call: every step counts
    assert context_llm_tokens(steps[:4], evidence_only=True) == 320 + 930 + 810
    # the last generate step is the answer, whatever follows it (ArcRAG's stop)
    assert context_llm_tokens([*steps[:3], _step("stop", 0, 0, 0)]) == 320


def test_context_tokens_are_unknown_without_counts_unless_no_call_was_made():
    old = [_step("retrieve:base", 0), _step("policy", 1), _step("generate", 1)]
    assert context_llm_tokens(old) is None  # the policy call's tokens were never kept
    assert context_llm_tokens([_step("retrieve:base", 0), _step("generate", 1)]) == 0
    assert context_llm_tokens([]) is None
    assert context_llm_tokens(None) is None
    assert context_llm_tokens([_step("retrieve", 0, 0, 0)]) is None  # no answer call to leave out


def _frame(rows):
    return pd.DataFrame(rows, columns=["id", "method", "base_has_answer", "context_has_answer"])


def test_recovery_is_over_the_questions_the_base_context_missed():
    ace = _frame(
        [
            ("q1", "ace", False, True),  # recovered
            ("q2", "ace", False, False),  # not recovered
            ("q3", "ace", True, True),  # covered from the start: not in the denominator
            ("q4", "ace", None, None),  # yes/no
        ]
    )
    assert recovery_values(ace).to_dict() == {"q1": 1.0, "q2": 0.0}
    summary = recovery(ace)
    assert summary["n"] == 3 and summary["n_uncovered"] == 2 and summary["recovered"] == 1
    assert summary["recovery"] == 0.5
    assert summary["coverage_initial"] == pytest.approx(1 / 3)
    naive = _frame([("q1", "naive", None, True), ("q2", "naive", None, False)])
    assert recovery(naive)["recovery"] is None and recovery(naive)["n"] == 0  # one stage only
    table = recovery_by_method(pd.concat([ace, naive]))
    assert table["method"].tolist() == ["ace", "naive"]
    assert table["recovery"].tolist()[0] == 0.5 and table["recovery"].isna().tolist()[1]
    assert recovery_values(pd.DataFrame({"id": ["q1"]})).empty


@dataclass(frozen=True)
class P:
    title: str
    text: str


PASSAGES = {
    "pA": P("Brinemouth", "The lantern of Brinemouth was lit in 1942. It burns oil."),
    "pB": P("Kesterholm", "Kesterholm is a village."),
}
EXTRA = {"supporting_facts": [["Brinemouth", 0]], "supporting_titles": ["Brinemouth"]}
QUESTION = Question("q1", "When?", "1942", (), ("pA",), None, "toy", EXTRA)
STEPS = [_step("retrieve:base", 0, 0, 0), _step("generate", 1, 100, 5)]


def _record(**fields):
    return {"gold": ["1942"], "supporting_ids": ["pA"], "steps": STEPS, **fields}


def test_a_record_with_its_context_texts():
    rec = _record(context_ids=["ent:x"], context_texts=["lantern of Brinemouth was lit in 1942"])
    assert evidence_of(rec, QUESTION, PASSAGES) == {
        "answer_coverage": True,
        "supporting_fact_recall": 1.0,  # the sentence's text, from an entity's description
        "context_llm_tokens": 0,
    }
    assert list(evidence_of(rec, QUESTION, PASSAGES)) == list(EVIDENCE_COLUMNS)
    # a question outside the slice: no facts to look for
    assert evidence_of(rec, None, PASSAGES)["supporting_fact_recall"] is None
    # a record written without gold or supporting ids takes its question's
    bare = {"context_ids": ["pA"], "context_texts": ["Brinemouth: lit in 1942."], "steps": STEPS}
    assert evidence_of(bare, QUESTION, {})["answer_coverage"] is True
    assert evidence_of(bare, QUESTION, {})["supporting_fact_recall"] == 1.0  # its passage, whole


def test_a_record_without_texts_is_rebuilt_from_whole_passages_only():
    passages_only = _record(context_ids=["pB", "pA"])
    assert evidence_of(passages_only, QUESTION, PASSAGES)["answer_coverage"] is True
    assert evidence_of(passages_only, QUESTION, PASSAGES)["supporting_fact_recall"] == 1.0
    # other items' texts are lost: coverage as the run stored it, no fact recall
    mixed = _record(context_ids=["ent:lantern", "pB"], context_has_answer=True)
    values = evidence_of(mixed, QUESTION, PASSAGES)
    assert values["answer_coverage"] is True and values["supporting_fact_recall"] is None
    unknown = evidence_of(_record(context_ids=["ent:x"], context_has_answer=math.nan), QUESTION, {})
    assert unknown["answer_coverage"] is None


def test_the_context_text_is_its_items_one_per_line():
    assert context_text(["a", "b"]) == "a\nb" and context_text([]) == ""


def test_an_evidence_only_record_counts_every_step():
    steps = [_step("analyze", 1, 50, 7)]
    rec = _record(context_ids=[], context_texts=[], evidence_only=True, steps=steps)
    values = evidence_of(rec, QUESTION, PASSAGES)
    assert values == {
        "answer_coverage": False,
        "supporting_fact_recall": 0.0,
        "context_llm_tokens": 57,
    }
