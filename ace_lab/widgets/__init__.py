"""Step through any method's answer: stages, evidence tables, costs, an evidence subgraph, and
ipywidgets steppers on top of them.

Everything here reads the answer's ``Trace`` and nothing else, so it works for every method that
records its steps: a baseline shows retrieve → generate; ACE shows C_base → router label →
policy → gap analysis and branch queries → ΔC per branch → merged C* → adapted C̃ → answer;
ArcRAG its schema, plans, Cypher attempts and witness; MOSAIC its seeds, depths and stop. Each
step shows its typed payload's line and, where the method's report defines one, a richer HTML
view for the payload's type (``STEP_VIEWS``). The pipeline runs once (LLM calls are cached, so
rerunning a question is free); ``print_stages`` works without widgets (under papermill).
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
from ace_lab.widgets.views import step_html, step_views, view_for

__all__ = [
    "ACE_MODES",
    "Stage",
    "ace_method",
    "ace_method_name",
    "cost_frame",
    "evidence_frame",
    "evidence_subgraph",
    "method_stepper",
    "policy_stepper",
    "print_stages",
    "provenance_colour",
    "stage_cost_figure",
    "stages",
    "step_html",
    "step_views",
    "stepper",
    "styled",
    "view_for",
]
