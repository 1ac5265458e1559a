"""ACE's report: its tables, figures and step views (what notebooks 07 and 08 and the stepper call).

- :mod:`~ace_lab.ace.report.tables`: ablations with the oracle-best-fixed and shuffled-router
  controls (ACE Table 3), the router's label distribution, F1 change per topology, confusion
  and accuracy against the data sets' question types, all from a study's records;
- :mod:`~ace_lab.ace.report.routes`: the router measured alone (``results/router/routes.json``);
- :mod:`~ace_lab.ace.report.figures`: the ablation figure and the router figure (Figure 2);
- :mod:`~ace_lab.ace.report.views`: an HTML fragment per ACE step payload, :data:`STEP_VIEWS`.
"""

from collections.abc import Callable

from ace_lab.ace.report.figures import TOPOLOGY_COLOURS, ablation_plot, router_figure
from ace_lab.ace.report.routes import (
    ROUTES_FILE,
    accuracy_table,
    confusion_table,
    load_routes,
    paired_table,
    read_routes,
)
from ace_lab.ace.report.tables import (
    ABLATION_VIEW,
    ABLATIONS,
    CONTROLS,
    SPLIT_ABLATIONS,
    TOPOLOGY_RUNS,
    ablation_methods,
    ablation_report,
    ablation_table,
    ablation_view,
    adaptation_budget,
    adaptive_runs,
    extra_rows,
    f1_change_by_topology,
    f1_text,
    router_accuracy,
    router_confusion,
    router_confusions,
    router_distribution,
    shuffled_label,
    shuffled_run,
    topology_methods,
    topology_runs_table,
)
from ace_lab.ace.report.views import VIEWS
from ace_lab.evidence import Step
from ace_lab.steps import StepPayload

#: ACE payload type → the HTML fragment the stepper shows for a step holding one.
STEP_VIEWS: dict[type[StepPayload], Callable[[Step], str]] = dict(VIEWS)

__all__ = [
    "ABLATIONS",
    "ABLATION_VIEW",
    "CONTROLS",
    "ROUTES_FILE",
    "SPLIT_ABLATIONS",
    "STEP_VIEWS",
    "TOPOLOGY_COLOURS",
    "TOPOLOGY_RUNS",
    "ablation_methods",
    "ablation_plot",
    "ablation_report",
    "ablation_table",
    "ablation_view",
    "accuracy_table",
    "adaptation_budget",
    "adaptive_runs",
    "confusion_table",
    "extra_rows",
    "f1_change_by_topology",
    "f1_text",
    "load_routes",
    "paired_table",
    "read_routes",
    "router_accuracy",
    "router_confusion",
    "router_confusions",
    "router_distribution",
    "router_figure",
    "shuffled_label",
    "shuffled_run",
    "topology_methods",
    "topology_runs_table",
]
