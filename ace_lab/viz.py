"""Plot helpers shared by the notebooks; every figure is saved as PNG and PDF."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from pyvis.network import Network

from ace_lab.graph.tables import GraphTables


def save_figure(fig: plt.Figure, name: str, figures_dir: Path | str) -> list[Path]:
    """Write ``fig`` to ``figures_dir/name.png`` (150 dpi) and ``.pdf``; return both paths."""
    figures_dir = Path(figures_dir)
    figures_dir.mkdir(parents=True, exist_ok=True)
    paths = [figures_dir / f"{name}.png", figures_dir / f"{name}.pdf"]
    fig.savefig(paths[0], dpi=150, bbox_inches="tight")
    fig.savefig(paths[1], bbox_inches="tight")
    return paths


def plot_question_types(type_counts: Mapping[str, pd.Series]) -> plt.Figure:
    """Horizontal stacked bars: questions per data set, split by question type."""
    table = pd.DataFrame({name: counts for name, counts in type_counts.items()}).T.fillna(0)
    table = table.loc[table.sum(axis=1).sort_values().index]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(table) + 1.5))
    # tab20 + tab20b: 40 distinct colours, so no two question types share one
    colours = [*plt.cm.tab20.colors, *plt.cm.tab20b.colors]
    table.plot.barh(stacked=True, ax=ax, width=0.75, color=colours[: len(table.columns)])
    ax.set_xlabel("questions (development split)")
    ax.set_ylabel("")
    ax.set_title("Questions per data set and type")
    ax.legend(fontsize=7, ncols=2, loc="lower right", frameon=False)
    fig.tight_layout()
    return fig


def plot_length_distributions(
    lengths: Mapping[str, np.ndarray], unit: str = "tokens", title: str = ""
) -> plt.Figure:
    """One box per data set (log scale): how long the passages or documents are."""
    names = list(lengths)
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(names) + 1.5))
    ax.boxplot([np.asarray(lengths[n]) for n in names], vert=False, showfliers=False)
    ax.set_yticks(range(1, len(names) + 1), names)
    ax.set_xscale("log")
    ax.set_xlabel(f"length ({unit}, log scale)")
    ax.set_title(title or "Passage / document length per data set")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- graph views
#: Fixed colours per node label so every view of every family reads the same way.
LABEL_COLOURS: dict[str, str] = {
    "Entity": "#4e79a7",
    "Summary": "#f28e2b",
    "Community": "#e15759",
    "Chunk": "#bab0ac",
}
_PALETTE = ["#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#76b7b2", "#af7aa1"]


def label_colour(label: str) -> str:
    if label in LABEL_COLOURS:
        return LABEL_COLOURS[label]
    return _PALETTE[sum(map(ord, label)) % len(_PALETTE)]  # typed labels: stable colours


def neighbourhood(
    tables: GraphTables,
    node_id: str,
    hops: int = 1,
    max_nodes: int = 60,
    edge_types: tuple[str, ...] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Nodes within ``hops`` of ``node_id`` (breadth first, at most ``max_nodes``) and the
    edges among them."""
    edges = tables.edges if edge_types is None else tables.edges_of_type(*edge_types)
    keep = [node_id]
    seen = {node_id}
    frontier = [node_id]
    for _ in range(hops):
        nxt = []
        touching = edges[edges["source"].isin(frontier) | edges["target"].isin(frontier)]
        for row in touching.sort_values("weight", ascending=False).itertuples():
            for other in (row.source, row.target):
                if other not in seen and len(keep) < max_nodes:
                    seen.add(other)
                    keep.append(other)
                    nxt.append(other)
        frontier = nxt
    nodes = tables.nodes[tables.nodes["id"].isin(seen)]
    sub = edges[edges["source"].isin(seen) & edges["target"].isin(seen)]
    return nodes, sub


def pyvis_network(
    nodes: pd.DataFrame,
    edges: pd.DataFrame,
    *,
    colour: Mapping[str, str] | None = None,
    height: str = "650px",
    heading: str = "",
) -> Network:
    """An interactive pyvis view; node colour by label unless ``colour`` maps id -> colour.

    vis.js is embedded in the HTML (``cdn_resources="in_line"``), so the file opens offline.
    """
    net = Network(
        height=height, width="100%", directed=True, cdn_resources="in_line", heading=heading
    )
    for row in nodes.itertuples():
        net.add_node(
            row.id,
            label=str(row.name)[:40] or row.id,
            title=f"{row.label} (level {row.level})\n{str(row.description)[:300]}",
            color=(colour or {}).get(row.id, label_colour(row.label)),
            size=10 + 4 * int(row.level),
            shape="box" if row.label == "Chunk" else "dot",
        )
    for row in edges.itertuples():
        net.add_edge(
            row.source,
            row.target,
            title=f"{row.type} {row.predicate}\n{str(row.description)[:200]}".strip(),
            label=(row.predicate or "")[:20],
            value=float(row.weight),
        )
    net.toggle_physics(True)
    return net


_REMOTE_ASSET = re.compile(
    r'<link[^>]+href="https?://[^"]+"[^>]*>|<script[^>]+src="https?://[^"]+"[^>]*>\s*</script>'
)


def save_html(net: Network, name: str, figures_dir: Path | str) -> Path:
    figures_dir = Path(figures_dir)
    figures_dir.mkdir(parents=True, exist_ok=True)
    path = figures_dir / f"{name}.html"
    # pyvis' template links Bootstrap from a CDN even with vis.js inlined; it only styles the
    # select/filter menus, which these views do not use, so drop it: the file opens offline.
    html = _REMOTE_ASSET.sub("", net.generate_html())
    path.write_text(html, encoding="utf-8")
    return path


def hierarchy_subgraph(
    tables: GraphTables, max_summaries: int = 8, max_members: int = 6
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The top summary entities of every level with a few members each (a readable slice)."""
    member = tables.edges_of_type("MEMBER_OF")
    summaries = tables.nodes_with_label("Summary")
    if summaries.empty:
        return summaries, member.iloc[0:0]
    sizes = member.groupby("target").size()
    keep: set[str] = set()
    for _level, group in summaries.groupby("level"):
        top = sizes.reindex(group["id"]).fillna(0).sort_values(ascending=False)
        keep.update(top.index[:max_summaries])
    chosen = member[member["target"].isin(keep)]
    chosen = chosen.groupby("target").head(max_members)
    ids = keep | set(chosen["source"])
    return tables.nodes[tables.nodes["id"].isin(ids)], chosen


def plot_nodes_per_level(tables: GraphTables) -> plt.Figure:
    counts = tables.nodes[tables.nodes["label"] != "Chunk"].groupby(["level", "label"]).size()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    counts.unstack(fill_value=0).plot.bar(
        stacked=True, ax=ax, color=[label_colour(c) for c in counts.unstack().columns]
    )
    ax.set_xlabel("level (0 = base entities)")
    ax.set_ylabel("nodes")
    ax.set_title("Nodes per abstraction level")
    fig.tight_layout()
    return fig


def plot_degree_distributions(graphs: Mapping[str, GraphTables]) -> plt.Figure:
    """Complementary CDF of entity degree (log-log), one line per graph family."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, tables in graphs.items():
        ids = set(tables.nodes.loc[~tables.nodes["label"].isin(["Chunk", "Community"]), "id"])
        edges = tables.edges[~tables.edges["type"].isin(["MENTIONED_IN", "IN_COMMUNITY"])]
        ends = pd.concat([edges["source"], edges["target"]])
        degree = ends[ends.isin(ids)].value_counts().reindex(list(ids), fill_value=0)
        values = np.sort(degree.to_numpy())
        if len(values) == 0:
            continue
        ccdf = 1.0 - np.arange(len(values)) / len(values)
        ax.loglog(np.maximum(values, 0.8), ccdf, drawstyle="steps-post", label=name)
    ax.set_xlabel("entity degree")
    ax.set_ylabel("P(degree ≥ x)")
    ax.set_title("Degree distribution")
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def plot_relation_vocabulary(graphs: Mapping[str, GraphTables], top: int = 15) -> plt.Figure:
    """Relation vocabulary per family: distinct relation names and the most frequent ones."""
    fig, axes = plt.subplots(1, len(graphs), figsize=(5 * len(graphs), 4), squeeze=False)
    for ax, (name, tables) in zip(axes[0], graphs.items(), strict=True):
        edges = tables.edges[~tables.edges["type"].isin(["MENTIONED_IN", "IN_COMMUNITY"])]
        names = edges["predicate"].where(edges["predicate"] != "", edges["type"])
        counts = names.str.lower().value_counts()
        counts.head(top)[::-1].plot.barh(ax=ax, color="#4e79a7")
        ax.set_title(f"{name}: {len(counts)} relation names")
        ax.set_xlabel("edges")
    fig.tight_layout()
    return fig
