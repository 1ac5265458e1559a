"""ace_lab.mosaic.report.views: the stepper's HTML for each MOSAIC payload type."""

from __future__ import annotations

from ace_lab.evidence import Trace
from ace_lab.mosaic.report import STEP_VIEWS
from ace_lab.mosaic.report.steps import BEFORE_TYPED_STEPS
from ace_lab.mosaic.steps import (
    EvidenceSelection,
    ExplorationChoice,
    ExplorationStop,
    SeedSelection,
    TraversalDepth,
)
from ace_lab.steps import replace
from tests.support.mosaic_synthetic import two_depth_trace


def test_every_step_of_a_mosaic_trace_has_a_view_of_its_payload_type():
    trace = two_depth_trace(signals={"depth": 9, "mediated": True})
    with trace.step("select") as step:
        step.record(EvidenceSelection(kept=("ent:a",), dropped=(("ent:x", "weak"),), budget=8))
    shown = {type(s.payload): STEP_VIEWS[type(s.payload)](s) for s in trace.steps}
    assert set(shown) == {
        ExplorationChoice,
        SeedSelection,
        TraversalDepth,
        ExplorationStop,
        EvidenceSelection,
    }
    assert "<td>max_depth</td><td>9</td><td>4</td>" in shown[ExplorationChoice]
    assert "name of a → name of c → name of d" in shown[TraversalDepth]
    assert "<td>ent:x</td><td>weak</td>" in shown[EvidenceSelection]


def test_corpus_text_in_a_view_is_escaped():
    trace = two_depth_trace()
    step = trace.steps[2]
    first, *rest = step.payload.kept
    evil = replace(first, names=("<script>x</script>", "b"))
    step.record(replace(step.payload, kept=(evil, *rest)))
    html = STEP_VIEWS[TraversalDepth](step)
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_a_step_recorded_before_typed_payloads_says_so():
    trace = Trace()
    with trace.step("traverse:1", kind="traverse") as step:
        pass
    assert BEFORE_TYPED_STEPS in STEP_VIEWS[TraversalDepth](step)
