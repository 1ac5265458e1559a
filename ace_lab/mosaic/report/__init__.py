"""MOSAIC's report: the tables, figures and views of notebooks 05 and 06, read from typed traces
(:mod:`ace_lab.mosaic.steps`) and evaluation records.

Modules: ``policies`` (the policies assigned, side by side and over a slice; connector
activation; the budget-matched control), ``policy_figures`` (their histograms), ``stopping``
(gain and completeness per depth), ``effort`` (paths and evidence vs Fixed Wide),
``exploration`` (one query's beam search as a graph) and ``exploration_drawing`` (its paper
figure), ``runs`` (the methods over a slice), ``counterfactuals`` (§7.5: one control flipped,
replayed; its committed tables are remade by ``regenerate``, ``python -m ace_lab.mosaic.report``)
and ``views`` (:data:`STEP_VIEWS`, the stepper's HTML per MOSAIC payload type).
"""

from ace_lab.mosaic.report.counterfactuals import (
    COUNTERFACTUALS,
    counterfactual_rows,
    counterfactual_table,
    read_table,
)
from ace_lab.mosaic.report.effort import REFERENCE, effort_figure, effort_summary, effort_table
from ace_lab.mosaic.report.exploration import (
    exploration_graph,
    exploration_paths,
    exploration_view,
)
from ace_lab.mosaic.report.exploration_drawing import exploration_figure, save_exploration
from ace_lab.mosaic.report.policies import (
    BUDGET_MATCHED,
    POLICY_DIVERSITY,
    POLICY_FIELDS,
    budget_matched_name,
    connector_activation,
    policy_combinations,
    policy_distribution,
    policy_diversity,
    policy_frame,
    policy_side_by_side,
    policy_summary,
    with_budget_matched,
)
from ace_lab.mosaic.report.policy_figures import control_range, policy_histograms
from ace_lab.mosaic.report.runs import (
    MOSAIC_COMPARISON,
    MethodRuns,
    run_methods,
    short_label,
    slice_runs,
    study_records,
    with_family,
)
from ace_lab.mosaic.report.steps import STEP_GROUPS
from ace_lab.mosaic.report.stopping import stopping_curve, stopping_figure
from ace_lab.mosaic.report.views import STEP_VIEWS

__all__ = [
    "BUDGET_MATCHED",
    "COUNTERFACTUALS",
    "MOSAIC_COMPARISON",
    "POLICY_DIVERSITY",
    "POLICY_FIELDS",
    "REFERENCE",
    "STEP_GROUPS",
    "STEP_VIEWS",
    "MethodRuns",
    "budget_matched_name",
    "connector_activation",
    "control_range",
    "counterfactual_rows",
    "counterfactual_table",
    "effort_figure",
    "effort_summary",
    "effort_table",
    "exploration_figure",
    "exploration_graph",
    "exploration_paths",
    "exploration_view",
    "policy_combinations",
    "policy_distribution",
    "policy_diversity",
    "policy_frame",
    "policy_histograms",
    "policy_side_by_side",
    "policy_summary",
    "read_table",
    "run_methods",
    "save_exploration",
    "short_label",
    "slice_runs",
    "stopping_curve",
    "stopping_figure",
    "study_records",
    "with_budget_matched",
    "with_family",
]
