"""One HTML fragment per ArcRAG step payload, for the stepper (``STEP_VIEWS``), and the pass
and subplan each step belongs to (``STEP_GROUPS``: the stepper steps per pass and subplan).

Each view reads only its step's payload (its type says what the stage decided) and escapes
every piece of corpus or model text, so a fragment can be shown as it is. The stepper puts the
step's name and the payload's one line above it (``ace_lab.widgets.views.step_html``), so a
view shows what the line leaves out; the stop decision has no view of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

import pandas as pd

from ace_lab.arc.report.tables import attempt_rows, retrieval_rows
from ace_lab.arc.steps import (
    ArcGeneration,
    ArcPlan,
    ArcRetrieval,
    CypherExecution,
    InterfaceBuilt,
    QueryRewrite,
    SchemaView,
    SufficiencyCheck,
    WitnessUpdate,
)
from ace_lab.steps import StepPayload
from ace_lab.trace import Step


def _table(rows: list[dict[str, object]]) -> str:
    if not rows:
        return "<p><i>(nothing)</i></p>"
    return pd.DataFrame(rows).to_html(index=False, escape=True, border=0)


def _pre(text: str) -> str:
    return f"<pre style='white-space: pre-wrap'>{escape(text)}</pre>"


def schema_html(step: Step) -> str:
    """``S_G`` as the prompts see it."""
    payload = step.payload
    assert isinstance(payload, SchemaView)
    return _pre(payload.rendered)


def rewrite_html(step: Step) -> str:
    """The question before and after the rewrite."""
    payload = step.payload
    assert isinstance(payload, QueryRewrite)
    rows = [{"question": payload.query, "rewritten": payload.rewritten}]
    return _table(rows)


def retrieval_html(step: Step) -> str:
    """Each search phrase with its hits, anchors or gap."""
    payload = step.payload
    assert isinstance(payload, ArcRetrieval)
    return _table(retrieval_rows(payload))


def interface_html(step: Step) -> str:
    """The interface as the planner reads it, and the queries that found it."""
    payload = step.payload
    assert isinstance(payload, InterfaceBuilt)
    queries = [
        {"purpose": q.purpose, "cypher": q.text, "rows": q.n_rows, "error": q.error or ""}
        for q in payload.queries
    ]
    return _pre(payload.rendered) + _table(queries)


def plan_html(step: Step) -> str:
    """The pass's subplans in order."""
    payload = step.payload
    assert isinstance(payload, ArcPlan)
    rows = [
        {
            "subplan": sp.index,
            "goal": sp.goal,
            "kind": "open scan" if sp.open_scan else "traversal",
            "hops": " → ".join(sp.hops) or "(any)",
            "anchors": ", ".join(sp.anchors) or "—",
        }
        for sp in payload.subplans
    ]
    return _table(rows)


def execution_html(step: Step) -> str:
    """Every attempt at the subplan's Cypher and why it was (not) acceptable."""
    payload = step.payload
    assert isinstance(payload, CypherExecution)
    return f"<p>{escape(payload.subplan)}</p>" + _table(attempt_rows(payload))


def witness_html(step: Step) -> str:
    """What the pass added to the witness and its totals."""
    payload = step.payload
    assert isinstance(payload, WitnessUpdate)
    return _table([{"new elements": payload.new_elements, **payload.stats()}])


def sufficiency_html(step: Step) -> str:
    """The judgement and the follow-up question it asked."""
    payload = step.payload
    assert isinstance(payload, SufficiencyCheck)
    row = {"sufficient": payload.sufficient, "follow-up question": payload.follow_up or "—"}
    return _table([row | {"judgement unusable": payload.fallback}])


def generation_html(step: Step) -> str:
    """The answer and the context it was composed from: each item and where it came from
    (model-written Cypher, the scan template or the fallback; records from before the origin
    was kept list the ids only)."""
    payload = step.payload
    assert isinstance(payload, ArcGeneration)
    if not payload.context_ids:
        return "<p>context: (empty)</p>" + _pre(payload.raw or "")
    if len(payload.sources) != len(payload.context_ids):
        return f"<p>context: {escape(', '.join(payload.context_ids))}</p>" + _pre(payload.raw or "")
    rows = [
        {"context item": i, "from": source}
        for i, source in zip(payload.context_ids, payload.sources, strict=True)
    ]
    return _table(rows) + _pre(payload.raw or "")


STEP_VIEWS: dict[type[StepPayload], Callable[[Step], str]] = {
    SchemaView: schema_html,
    QueryRewrite: rewrite_html,
    ArcRetrieval: retrieval_html,
    InterfaceBuilt: interface_html,
    ArcPlan: plan_html,
    CypherExecution: execution_html,
    WitnessUpdate: witness_html,
    ArcGeneration: generation_html,
    SufficiencyCheck: sufficiency_html,
}


#: The payloads recorded once per pass of the loop.
_PASS_PAYLOADS = (
    ArcRetrieval,
    InterfaceBuilt,
    ArcPlan,
    WitnessUpdate,
    ArcGeneration,
    SufficiencyCheck,
)


def pass_group(payload: StepPayload) -> str:
    """The pass (and, for a Cypher execution, the subplan) a step of the loop belongs to."""
    if isinstance(payload, CypherExecution):
        return f"pass {payload.pass_index} · subplan {payload.subplan_index}"
    if isinstance(payload, _PASS_PAYLOADS):
        return f"pass {payload.pass_index}"
    return ""


#: Payload type → the stepper's group of a step that recorded it (per pass and subplan).
STEP_GROUPS: dict[type[StepPayload], Callable[[StepPayload], str]] = {
    kind: pass_group for kind in (*_PASS_PAYLOADS, CypherExecution)
}
