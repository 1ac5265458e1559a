"""ArcRAG's report: notebook 04's tables, graph views, figures and study results, and the
stepper's view of each ArcRAG step (``STEP_VIEWS``, keyed by payload type).

- :mod:`~ace_lab.arc.report.tables`: one answer's schema, retrieval, plan and Cypher attempts;
- :mod:`~ace_lab.arc.report.views` and :mod:`~ace_lab.arc.report.figures`: the query-local
  interface and the witness subgraph, as pyvis pages and PNGs;
- :mod:`~ace_lab.arc.report.results`: a study's records as the budget grid, Cypher quality and
  where tokens go;
- :mod:`~ace_lab.arc.report.families`: each configuration on each graph construction (RQ2);
- :mod:`~ace_lab.arc.report.steps`: an HTML fragment per step payload type.
"""

from __future__ import annotations

from ace_lab.arc.report.families import FAMILY_TABLE, family_table
from ace_lab.arc.report.figures import graph_figure, save_interface, save_witness
from ace_lab.arc.report.results import (
    arc_rows,
    budget_grid,
    cypher_quality,
    grid_figure,
    paired_questions,
    pooled_budget_grid,
    record_tokens,
    token_split,
)
from ace_lab.arc.report.steps import STEP_GROUPS, STEP_VIEWS
from ace_lab.arc.report.tables import (
    attempts_table,
    chunk_scope,
    family_comparison,
    plan_table,
    replay_table,
    retrieval_table,
    schema_of,
    schema_side_by_side,
)
from ace_lab.arc.report.views import (
    interface_graph,
    interface_of,
    interface_view,
    witness_graph,
    witness_view,
)

__all__ = [
    "FAMILY_TABLE",
    "STEP_GROUPS",
    "STEP_VIEWS",
    "arc_rows",
    "attempts_table",
    "budget_grid",
    "chunk_scope",
    "cypher_quality",
    "family_comparison",
    "family_table",
    "graph_figure",
    "grid_figure",
    "interface_graph",
    "interface_of",
    "interface_view",
    "paired_questions",
    "plan_table",
    "pooled_budget_grid",
    "record_tokens",
    "replay_table",
    "retrieval_table",
    "save_interface",
    "save_witness",
    "schema_of",
    "schema_side_by_side",
    "token_split",
    "witness_graph",
    "witness_view",
]
