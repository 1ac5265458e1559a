"""Static drawings of ArcRAG's graph views for the PNGs of notebook 04, and the writers of
each view as ``name.html`` (pyvis, :mod:`ace_lab.arc.report.views`) and ``name.png``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import networkx as nx

from ace_lab.arc.report.views import (
    ALIAS_COLOUR,
    ANSWER_COLOUR,
    INTERFACE_COLOURS,
    interface_graph,
    interface_of,
    interface_view,
    path_pairs,
    witness_graph,
    witness_view,
)
from ace_lab.evidence import Answer, Trace
from ace_lab.viz.network import save_view_and_figure
from ace_lab.viz.palette import view_colours


def graph_figure(
    g: dict[str, Any], colours: dict[str, str], title: str, path: list[str] = ()
) -> plt.Figure:
    """A static drawing of an interface or witness graph (fixed-seed layout), for the PNG."""
    net = nx.Graph()
    net.add_nodes_from(g["nodes"]["id"])
    net.add_edges_from(zip(g["edges"]["source"], g["edges"]["target"], strict=True))
    k = 2.0 / max(len(net), 1) ** 0.5  # looser than the default: room for the labels
    pos = nx.spring_layout(net, seed=7, k=k) if len(net) else {}
    palette = view_colours(sorted(set(g["group"].values())), colours)
    fig, ax = plt.subplots(figsize=(9, 6))
    pairs = path_pairs(list(path))
    for e in g["edges"].itertuples(index=False):
        (x0, y0), (x1, y1) = pos[e.source], pos[e.target]
        red, alias = (e.source, e.target) in pairs, e.type == "alias"
        colour = ANSWER_COLOUR if red else ALIAS_COLOUR if alias else "#9aa0a6"
        ax.plot(
            [x0, x1],
            [y0, y1],
            color=colour,
            lw=2.5 if red else 0.9,
            zorder=1,
            linestyle="--" if alias else "-",
        )
        if not alias:
            ax.annotate(
                _plain(e.predicate, 18),
                ((x0 + x1) / 2, (y0 + y1) / 2),
                fontsize=6,
                color="#666666",
                ha="center",
            )
    names = dict(zip(g["nodes"]["id"], g["nodes"]["name"], strict=True))
    for group in sorted(set(g["group"].values())):
        ids = [n for n in net.nodes if g["group"].get(n) == group]
        ax.scatter(
            [pos[n][0] for n in ids],
            [pos[n][1] for n in ids],
            s=60,
            zorder=2,
            color=palette[group],
            label=group,
            edgecolors=[ANSWER_COLOUR if n in path else "white" for n in ids],
        )
    for n, (x, y) in pos.items():
        ax.annotate(
            _plain(names[n], 24), (x, y), xytext=(5, 3), textcoords="offset points", fontsize=7
        )
    ax.set_axis_off()
    ax.set_title(title, fontsize=10)
    if len(net):
        ax.legend(fontsize=7, frameon=False, loc="best")
    fig.tight_layout()
    return fig


def _plain(text: Any, limit: int) -> str:
    """A label matplotlib draws as typed: one line, shortened, ``$`` escaped (no mathtext)."""
    text = " ".join(str(text).split())
    return (text if len(text) <= limit else text[: limit - 1] + "…").replace("$", r"\$")


def save_interface(
    trace: Trace,
    name: str,
    figures_dir: Path | str,
    pass_: int | None = None,
    title: str = "query-local interface",
) -> list[Path]:
    """Write the interface as ``name.html`` (pyvis) and ``name.png`` (matplotlib)."""
    g = interface_graph(interface_of(trace, pass_))
    fig = graph_figure(g, INTERFACE_COLOURS, title)
    return save_view_and_figure(interface_view(trace, pass_, title=title), fig, name, figures_dir)


def save_witness(
    answer: Answer, name: str, figures_dir: Path | str, title: str = "witness subgraph"
) -> list[Path]:
    """Write the witness as ``name.html`` (pyvis) and ``name.png`` (matplotlib)."""
    g = witness_graph(answer)
    fig = graph_figure(g, {}, title, g["answer_path"])
    return save_view_and_figure(witness_view(answer, title=title), fig, name, figures_dir)
