"""The toy method's report: a stepper view of its one payload type."""

from __future__ import annotations

from html import escape

from ace_lab.evidence import Step
from tests.support.toy_method.steps import ToyPick


def _pick_view(step: Step) -> str:
    payload = step.payload
    assert isinstance(payload, ToyPick)
    items = "".join(f"<li>{escape(i)}</li>" for i in payload.picked)
    return f"<ol class='toy-pick'>{items}</ol>"


STEP_VIEWS = {ToyPick: _pick_view}
