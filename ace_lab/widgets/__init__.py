"""Step through any method's answer: stages, evidence tables, costs, an evidence subgraph, and
ipywidgets steppers on top of them.

Everything here reads the answer's ``Trace`` and nothing else, so it works for every method that
records its steps: a baseline shows retrieve → generate; ACE shows C_base → router label →
policy → gap analysis and branch queries → ΔC per branch → merged C* → adapted C̃ → answer;
ArcRAG its schema, plans, Cypher attempts and witness; MOSAIC its seeds, depths and stop. Each
step shows its typed payload's line and, where the method's report defines one, a richer HTML
view for the payload's type (``STEP_VIEWS``). The pipeline runs once (LLM calls are cached, so
rerunning a question is free); ``print_stages`` works without widgets (under papermill).

The what-if explorer (:func:`what_if`, :func:`open_explorer`, :class:`WhatIf`) answers one
question as a person moves MOSAIC's, ArcRAG's or ACE's controls, each setting a registry name
(each method plugin's ``knobs``), cache-first, and shows what changed against the previous setting.
"""

from ace_lab.widgets.stages import (
    Stage,
    cost_frame,
    evidence_frame,
    evidence_subgraph,
    print_stages,
    provenance_colour,
    stage_cost_figure,
    stages,
    styled,
)
from ace_lab.widgets.stepper import (
    ACE_MODES,
    ace_method,
    ace_method_name,
    method_stepper,
    policy_stepper,
    stepper,
)
from ace_lab.widgets.views import group_of, step_groups, step_html, step_views, view_for
from ace_lab.widgets.what_if import Change, Outcome, Probe, WhatIf, compare
from ace_lab.widgets.what_if_panel import has_frontend, open_explorer, panel, what_if
from ace_lab.widgets.what_if_views import change_view, walk_figure, walk_table

__all__ = [
    "ACE_MODES",
    "Change",
    "Outcome",
    "Probe",
    "Stage",
    "WhatIf",
    "ace_method",
    "ace_method_name",
    "change_view",
    "compare",
    "cost_frame",
    "evidence_frame",
    "evidence_subgraph",
    "group_of",
    "has_frontend",
    "method_stepper",
    "open_explorer",
    "panel",
    "policy_stepper",
    "print_stages",
    "provenance_colour",
    "stage_cost_figure",
    "stages",
    "step_groups",
    "step_html",
    "step_views",
    "stepper",
    "styled",
    "view_for",
    "walk_figure",
    "walk_table",
    "what_if",
]
