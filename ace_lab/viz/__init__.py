"""Figures and interactive graph views for the notebooks (top layer: reads graphs and traces).

- ``palette``: one colour per node label, evidence branch, evidence kind and retrieval pass.
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
from ace_lab.viz.network import GraphView, pyvis_network, pyvis_view, save_html
from ace_lab.viz.palette import (
    BRANCH_COLOURS,
    KIND_COLOURS,
    LABEL_COLOURS,
    LEVEL_COLOURS,
    PASS_COLOURS,
    group_colour,
    label_colour,
    level_colour,
    pale,
    pass_colour,
    view_colours,
)

__all__ = [
    "BRANCH_COLOURS",
    "KIND_COLOURS",
    "LABEL_COLOURS",
    "LEVEL_COLOURS",
    "PASS_COLOURS",
    "GraphView",
    "community_reports",
    "evidence_branch",
    "evidence_nodes",
    "evidence_view",
    "group_colour",
    "hierarchy_subgraph",
    "hierarchy_view",
    "induced_schema",
    "introspection_table",
    "label_colour",
    "level_colour",
    "most_connected",
    "neighbourhood",
    "neighbourhood_view",
    "node_name",
    "one_per_community",
    "pale",
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
