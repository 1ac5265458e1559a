"""Every row of ``METRICS`` keeps the metric contract: named by its key, labelled, explained, of a
known kind; a row that can be computed from a stored record gives the same value from the
record it wrote as from the live answer, of its declared type; a judged row is never computed
here (its judge stores it apart)."""

from __future__ import annotations

import math

import pytest

from ace_lab.data import Question
from ace_lab.eval.metrics.table import KINDS, METRICS, RecordInput
from ace_lab.eval.studies.record import record
from ace_lab.evidence import Answer, Context, Evidence, Trace

QUESTION = Question("q1", "Where is the lantern kept?", "Brinemouth", (), ("p1", "p2"), None, "toy")


def _answer() -> Answer:
    trace = Trace()
    with trace.step("retrieve:0") as step:
        step.add([Evidence("p1", "passage", "The lantern is kept in Brinemouth.")])
    items = [
        Evidence("p1", "passage", "The lantern is kept in Brinemouth.", source_ids=("p1",)),
        Evidence("ent:harbour", "entity", "the harbour", source_ids=("p2",)),
    ]
    raw = "[FINAL_ANSWER] Brinemouth [/FINAL_ANSWER]"
    return Answer("Brinemouth", Context(items), trace, method="m", raw=raw)


@pytest.mark.parametrize("metric", list(METRICS.values()), ids=lambda m: m.name)
def test_every_metric_row_keeps_the_contract(metric):
    assert METRICS[metric.name] is metric and metric.kind in KINDS
    assert metric.label and len(metric.help) > 20
    answer = _answer()
    stored = record(QUESTION, answer)
    if metric.needs_judge:
        assert metric.name not in stored  # a judge's column is stored apart
        return
    live = metric.value(RecordInput(stored, QUESTION, {}, answer))
    if metric.of is None:  # an aggregate over several columns
        assert not math.isnan(metric.summary(_frame(stored)))
        return
    if metric.stored:
        assert metric.value(RecordInput(stored)) == live
    if metric.boolean:
        assert live in (True, False, None)
    else:
        assert live is None or isinstance(live, int | float)


def _frame(stored):
    import pandas as pd

    return pd.DataFrame([stored])
