"""Matplotlib figures of graph artefacts: nodes per level, degree distributions, relation
vocabularies (notebooks 01 and 02). Colours come from ``viz.palette``; sizes from
``viz.sizes`` (one column, the vocabularies two); graph families show their display names."""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab.graph.tables import GraphTables
from ace_lab.viz.names import family_name
from ace_lab.viz.palette import label_colour, view_colours
from ace_lab.viz.sizes import paper_figure, paper_style

#: Edge types these figures leave out: mentions and community membership are not relations.
#: (``SYNONYM`` and ``MEMBER_OF`` stay in, as in the committed figures.)
_NOT_RELATIONS = ["MENTIONED_IN", "IN_COMMUNITY"]


@paper_style()
def plot_nodes_per_level(tables: GraphTables) -> plt.Figure:
    """Stacked bars: nodes per abstraction level, split by label (chunks left out)."""
    counts = tables.nodes[tables.nodes["label"] != "Chunk"].groupby(["level", "label"]).size()
    fig, ax = paper_figure(1, 2.4)
    labels = list(counts.unstack().columns)
    colours = view_colours(labels)  # fixed label colours; typed labels never share one
    counts.unstack(fill_value=0).plot.bar(stacked=True, ax=ax, color=[colours[c] for c in labels])
    ax.tick_params(axis="x", labelrotation=0)
    ax.set_xlabel("level (0 = base entities)")
    ax.set_ylabel("nodes")
    ax.set_title("Nodes per abstraction level")
    fig.tight_layout()
    return fig


@paper_style()
def plot_degree_distributions(graphs: Mapping[str, GraphTables]) -> plt.Figure:
    """Complementary CDF of entity degree (log-log), one line per graph family."""
    fig, ax = paper_figure(1, 2.6)
    for name, tables in graphs.items():
        ids = set(tables.nodes.loc[~tables.nodes["label"].isin(["Chunk", "Community"]), "id"])
        edges = tables.edges[~tables.edges["type"].isin(_NOT_RELATIONS)]
        ends = pd.concat([edges["source"], edges["target"]])
        degree = ends[ends.isin(ids)].value_counts().reindex(list(ids), fill_value=0)
        values = np.sort(degree.to_numpy())
        if len(values) == 0:
            continue
        ccdf = 1.0 - np.arange(len(values)) / len(values)
        ax.loglog(np.maximum(values, 0.8), ccdf, drawstyle="steps-post", label=family_name(name))
    ax.set_xlabel("entity degree")
    ax.set_ylabel("P(degree ≥ x)")
    ax.set_title("Degree distribution")
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


@paper_style()
def plot_relation_vocabulary(graphs: Mapping[str, GraphTables], top: int = 15) -> plt.Figure:
    """Relation vocabulary per family: distinct relation names and the most frequent ones."""
    fig, axes = paper_figure(2, 3.0, ncols=len(graphs), squeeze=False)
    for ax, (name, tables) in zip(axes[0], graphs.items(), strict=True):
        edges = tables.edges[~tables.edges["type"].isin(_NOT_RELATIONS)]
        names = edges["predicate"].where(edges["predicate"] != "", edges["type"])
        counts = names.str.lower().value_counts()
        counts.head(top)[::-1].plot.barh(ax=ax, color=label_colour("Entity"))
        ax.set_title(f"{family_name(name)}: {len(counts)} relation names")
        ax.set_ylabel("")
        ax.set_xlabel("edges")
    fig.tight_layout()
    return fig
