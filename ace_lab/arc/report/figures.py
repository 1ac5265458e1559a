"""Static drawings of ArcRAG's graph views for the PNGs of notebook 04, and the writers of
each view as ``name.html`` (pyvis, :mod:`ace_lab.arc.report.views`) and ``name.png``.

A drawing is a paper figure (``ace_lab.viz.sizes``): one column for a small graph, two for a
larger one. Node names go beside their nodes where they fit and are numbered otherwise (the key
under the legend); an edge's predicate is written at its middle where it fits and left out
where it would overprint (the HTML view shows every one)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import networkx as nx
from matplotlib.lines import Line2D

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
from ace_lab.viz.label_placement import key_under, place_labels
from ace_lab.viz.network import save_view_and_figure
from ace_lab.viz.palette import view_colours
from ace_lab.viz.sizes import paper_figure, paper_style

#: Up to this many nodes a drawing is one column wide, above it two.
SINGLE_COLUMN_NODES = 10
#: Height (inches) of a one- and a two-column drawing.
HEIGHTS = {1: 2.6, 2: 4.2}
#: Characters of a title line (8 pt) and of a key line (7 pt) per column width.
TITLE_CHARS = {1: 55, 2: 115}
KEY_CHARS = {1: 60, 2: 125}
EDGE_GREY = "#9aa0a6"


@paper_style()
def graph_figure(
    g: dict[str, Any], colours: dict[str, str], title: str, path: list[str] = ()
) -> plt.Figure:
    """A static drawing of an interface or witness graph (fixed-seed layout), for the PNG:
    ``path`` (node ids) is drawn in red, names and predicates as the module says."""
    net = nx.Graph()
    net.add_nodes_from(g["nodes"]["id"])
    net.add_edges_from(zip(g["edges"]["source"], g["edges"]["target"], strict=True))
    k = 2.0 / max(len(net), 1) ** 0.5  # looser than the default: room for the labels
    pos = nx.spring_layout(net, seed=7, k=k) if len(net) else {}
    groups = sorted(set(g["group"].values()))
    palette = view_colours(groups, colours)
    columns = 1 if len(net) <= SINGLE_COLUMN_NODES else 2
    fig, ax = paper_figure(columns, HEIGHTS[columns])
    pairs = path_pairs(list(path))
    labelled = []  # (middle, predicate) of the edges whose predicate is written
    for e in g["edges"].itertuples(index=False):
        (x0, y0), (x1, y1) = pos[e.source], pos[e.target]
        red, alias = (e.source, e.target) in pairs, e.type == "alias"
        colour = ANSWER_COLOUR if red else ALIAS_COLOUR if alias else EDGE_GREY
        style = "--" if alias else "-"
        ax.plot([x0, x1], [y0, y1], color=colour, lw=2 if red else 0.7, ls=style, zorder=1)
        if not alias:
            labelled.append((((x0 + x1) / 2, (y0 + y1) / 2), _plain(e.predicate, 18)))
    for group in groups:
        ids = [n for n in net.nodes if g["group"].get(n) == group]
        ax.scatter(
            [pos[n][0] for n in ids],
            [pos[n][1] for n in ids],
            s=22,
            zorder=2,
            color=palette[group],
            edgecolors=[ANSWER_COLOUR if n in path else "white" for n in ids],
            linewidths=0.8,
        )
    ax.set_axis_off()
    ax.margins(0.08)
    ax.set_title("\n".join(textwrap.wrap(title, TITLE_CHARS[columns])))
    legend = None
    if len(net):  # under the drawing: inside, it would hide nodes and names
        handles = [Line2D([], [], ls="", marker="o", ms=4, color=palette[k]) for k in groups]
        labels = list(groups)
        if path:
            handles.append(Line2D([], [], color=ANSWER_COLOUR, lw=2))
            labels.append("answer path")
        legend = ax.legend(
            handles,
            labels,
            loc="upper center",
            bbox_to_anchor=(0.5, 0.0),
            ncols=min(len(handles), 4),
            frameon=False,
            handletextpad=0.3,
            columnspacing=1.2,
        )
    fig.tight_layout()  # final: names are placed in canvas pixels
    _name_nodes(ax, g, pos, path, legend, KEY_CHARS[columns])
    if labelled:
        middles, predicates = zip(*labelled, strict=True)
        place_labels(
            ax,
            middles,
            predicates,
            [EDGE_GREY] * len(middles),
            avoid=list(pos.values()),
            numbered=False,
        )
    return fig


def _name_nodes(
    ax: plt.Axes, g: dict[str, Any], pos: dict[str, Any], path: Any, legend: Any, width: int
) -> None:
    """Each node's name beside it (the answer path first, then anchors, then the rest: they
    get the nearest places); names that fit nowhere are numbered, the key under ``legend``."""
    names = dict(zip(g["nodes"]["id"], g["nodes"]["name"], strict=True))
    first = {n: i for i, n in enumerate(path)}
    order = sorted(pos, key=lambda n: (first.get(n, len(first)), g["group"].get(n) != "anchor"))
    key = place_labels(ax, [pos[n] for n in order], [_plain(names[n], 24) for n in order])
    if key and legend is not None:
        key_under(ax, textwrap.wrap(" · ".join(key), width), legend)


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
