"""Figures and interactive graph views for the notebooks (top layer: reads graphs and traces).

- ``palette``: one colour per node label, evidence branch, evidence kind, retrieval pass and
  method (``method_colours``: distinct within a figure, up to twenty series).
- ``names``: ``display_name`` / ``dataset_name`` / ``family_name``, the one table from ids
  to the names shown.
- ``sizes``: ``paper_figure`` / ``paper_style``, single- (3.3 in) and double-column (6.9 in)
  figures with text >= 7 pt; ``text_layout``: ``layout_problems`` (overlapping or small text).
- ``figures``: ``save_figure`` (byte-identical PNG/PDF for an unchanged figure) and the data-set
  plots; ``graph_plots``: nodes per level, degree distributions, relation vocabularies.
- ``network``: ``pyvis_view``, the one builder of pyvis views (legend, title once, thin edges,
  settling physics, plain-text tooltips, offline HTML) and ``save_html``; ``view_html``: the page.
- ``graph_views``: what part of a graph to show (neighbourhoods, hierarchy slices, most
  connected entities) and its view; ``evidence_view``: an answer's evidence subgraph by branch.
- ``graph_tables``: small tables about a graph (community reports, schema, synonyms, seeds).
"""

from ace_lab.viz.evidence_view import evidence_branch, evidence_nodes, evidence_view
from ace_lab.viz.figures import plot_length_distributions, plot_question_types, save_figure
from ace_lab.viz.graph_plots import (
    plot_degree_distributions,
    plot_nodes_per_level,
    plot_relation_vocabulary,
)
from ace_lab.viz.graph_tables import (
    community_reports,
    induced_schema,
    introspection_table,
    seed_hits,
    synonym_pairs,
)
from ace_lab.viz.graph_views import (
    hierarchy_subgraph,
    hierarchy_view,
    most_connected,
    neighbourhood,
    neighbourhood_view,
    node_name,
    one_per_community,
    relation_degree,
    relation_edges,
)
from ace_lab.viz.names import dataset_name, display_name, family_name
from ace_lab.viz.network import GraphView, pyvis_network, pyvis_view, save_html
from ace_lab.viz.palette import (
    BRANCH_COLOURS,
    KIND_COLOURS,
    LABEL_COLOURS,
    LEVEL_COLOURS,
    METHOD_COLOURS,
    PASS_COLOURS,
    SERIES_COLOURS,
    group_colour,
    label_colour,
    level_colour,
    method_colours,
    pale,
    pass_colour,
    view_colours,
)
from ace_lab.viz.sizes import DOUBLE_COLUMN, SINGLE_COLUMN, paper_figure, paper_style
from ace_lab.viz.text_layout import layout_problems

__all__ = [
    "BRANCH_COLOURS",
    "DOUBLE_COLUMN",
    "KIND_COLOURS",
    "LABEL_COLOURS",
    "LEVEL_COLOURS",
    "METHOD_COLOURS",
    "PASS_COLOURS",
    "SERIES_COLOURS",
    "SINGLE_COLUMN",
    "GraphView",
    "community_reports",
    "dataset_name",
    "display_name",
    "evidence_branch",
    "evidence_nodes",
    "evidence_view",
    "family_name",
    "group_colour",
    "hierarchy_subgraph",
    "hierarchy_view",
    "induced_schema",
    "introspection_table",
    "label_colour",
    "layout_problems",
    "level_colour",
    "method_colours",
    "most_connected",
    "neighbourhood",
    "neighbourhood_view",
    "node_name",
    "one_per_community",
    "pale",
    "paper_figure",
    "paper_style",
    "pass_colour",
    "plot_degree_distributions",
    "plot_length_distributions",
    "plot_nodes_per_level",
    "plot_question_types",
    "plot_relation_vocabulary",
    "pyvis_network",
    "pyvis_view",
    "relation_degree",
    "relation_edges",
    "save_figure",
    "save_html",
    "seed_hits",
    "synonym_pairs",
    "view_colours",
]
