"""HTML views of ACE's steps for the stepper, one per ACE payload type.

Each view takes a trace ``Step`` whose payload is of its type and returns an HTML fragment: a
heading line and a small key/value table. Every value is escaped (queries, labels and the gap
analysis come from the model or the corpus). The stepper finds a view by the payload's type in
:data:`ace_lab.ace.report.STEP_VIEWS`; the generic payloads (``Retrieval``, ``Selection``,
``Generation``) are left to the stepper's own views.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Any

from ace_lab.ace.policy import TOPOLOGY_NAMES
from ace_lab.ace.steps import (
    BranchRetrieval,
    Consolidation,
    GapPlan,
    PolicyDecision,
    RouterDecision,
)
from ace_lab.evidence import Step
from ace_lab.steps import StepPayload


def _table(title: str, rows: Iterable[tuple[str, Any]]) -> str:
    cells = "".join(
        f"<tr><th style='text-align:left;padding-right:1em'>{html.escape(key)}</th>"
        f"<td>{html.escape(str(value))}</td></tr>"
        for key, value in rows
    )
    return f"<div class='ace-step'><b>{html.escape(title)}</b><table>{cells}</table></div>"


def _payload(step: Step, kind: type[StepPayload]) -> Any:
    if not isinstance(step.payload, kind):
        raise TypeError(f"step {step.name!r} holds no {kind.__name__}")
    return step.payload


def router_view(step: Step) -> str:
    """The router's label (with the paper's topology name), what the model wrote, attempts."""
    d: RouterDecision = _payload(step, RouterDecision)
    label = f"{d.topology} ({TOPOLOGY_NAMES.get(d.topology, '?')})"
    rows = [
        ("label", label),
        ("model wrote", "(fallback)" if d.fallback else d.raw_label),
        ("prompt", d.prompt),
        ("attempts", d.attempts),
    ]
    rows += [(f"error {i}", e) for i, e in enumerate(d.errors, start=1)]
    return _table("Router decision", rows)


def policy_view(step: Step) -> str:
    """The policy ρ: gap diagnosis, branches, pruning, profile, and how it was chosen."""
    p: PolicyDecision = _payload(step, PolicyDecision)
    chosen = p.mode + (f" (router label {p.topology})" if p.topology else "")
    rows = [
        ("policy", p.label),
        ("chosen", chosen),
        ("gap diagnosis", "on" if p.gap else "off"),
        ("branches", " + ".join(p.branches)),
        ("pruning", "on" if p.pruning else "off"),
        ("profile", p.profile),
    ]
    return _table("Context policy", rows)


def plan_view(step: Step) -> str:
    """The gap analysis and each branch's query (or the planner's fallback)."""
    p: GapPlan = _payload(step, GapPlan)
    analysis = p.analysis or "(none)"
    rows = [("gap analysis", analysis), *((f"{b} query", q) for b, q in p.queries.items())]
    if p.fallback:
        rows.append(("fallback", "one depth retrieval with the original query"))
    return _table("Gap plan", rows)


def branch_view(step: Step) -> str:
    """One branch's query, retrieval mode and how many items it brought (ΔC_b)."""
    b: BranchRetrieval = _payload(step, BranchRetrieval)
    rows = [("query", b.query), ("mode", b.mode), ("items", len(b.evidence_ids))]
    return _table(f"Branch retrieval: {b.branch}", rows)


def merge_view(step: Step) -> str:
    """C*: the merged size and the items more than one retrieval found."""
    c: Consolidation = _payload(step, Consolidation)
    return _table("Merge (C*)", [("items", c.n), ("found more than once", c.duplicates)])


#: ACE payload type → its view (the stepper's lookup table).
VIEWS: dict[type[StepPayload], Callable[[Step], str]] = {
    RouterDecision: router_view,
    PolicyDecision: policy_view,
    GapPlan: plan_view,
    BranchRetrieval: branch_view,
    Consolidation: merge_view,
}
