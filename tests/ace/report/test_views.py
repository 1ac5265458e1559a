"""ace_lab.ace.report.views: the stepper's HTML for each ACE payload type, escaped."""

from __future__ import annotations

import pytest

from ace_lab.ace.report import STEP_VIEWS
from ace_lab.ace.steps import (
    BranchRetrieval,
    Consolidation,
    GapPlan,
    PolicyDecision,
    RouterDecision,
)
from ace_lab.evidence import Step
from ace_lab.steps import Generation

PAYLOADS = [
    RouterDecision("POINT", 2, False, ("bad json",), "Node", "fewshot"),
    PolicyDecision(True, ("depth",), True, "qa", "gap+depth+prune", "adaptive", "POINT"),
    GapPlan("missing the <b>year</b>", {"depth": "when & where?"}, False),
    BranchRetrieval("breadth", "q <script>", "global", ("a", "b")),
    Consolidation(7, 2),
]


def test_every_ace_payload_type_has_a_view():
    assert set(STEP_VIEWS) == {type(p) for p in PAYLOADS}


@pytest.mark.parametrize("payload", PAYLOADS, ids=lambda p: type(p).__name__)
def test_a_view_shows_the_payload_and_escapes_model_text(payload):
    step = Step("any name", payload=payload)
    fragment = STEP_VIEWS[type(payload)](step)
    assert fragment.startswith("<div") and "<script>" not in fragment and "<b>year" not in fragment


def test_views_read_the_payload_not_the_step_name():
    fragment = STEP_VIEWS[RouterDecision](Step("renamed", payload=PAYLOADS[0]))
    assert "POINT (Node)" in fragment and "fewshot" in fragment and "bad json" in fragment
    plan = STEP_VIEWS[GapPlan](Step("plan", payload=PAYLOADS[2]))
    assert "when &amp; where?" in plan and "missing the &lt;b&gt;year&lt;/b&gt;" in plan
    with pytest.raises(TypeError, match="RouterDecision"):
        STEP_VIEWS[RouterDecision](Step("route", payload=Generation("x")))
