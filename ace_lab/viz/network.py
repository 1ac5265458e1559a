"""The one builder of interactive graph views (pyvis / vis-network).

``pyvis_view`` turns node and edge frames in the ``GraphTables`` shape into a ``GraphView``:
nodes coloured by a group (node label by default, or any id → group mapping such as evidence
branch) with a legend of those colours, optional pale dashed nodes (removed evidence), thin
edges scaled modestly by weight, physics that stabilises and then switches off, the title shown
once, plain-text tooltips, and vis-network inlined so the saved HTML opens offline.
``save_html`` writes it. Every view in the package goes through here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from pyvis.network import Network

from ace_lab.viz.palette import BRANCH_COLOURS, LABEL_COLOURS, pale, view_colours
from ace_lab.viz.view_html import LegendEntry, render_page

#: Physics that settles: Barnes-Hut with damping, a fixed number of stabilisation iterations
#: and a fixed random seed (the same layout every time), then physics off (see view_html).
VIEW_OPTIONS: dict[str, Any] = {
    "layout": {"randomSeed": 7, "improvedLayout": True},
    "physics": {
        "solver": "barnesHut",
        "barnesHut": {
            "gravitationalConstant": -3000,
            "centralGravity": 0.45,
            "springLength": 100,
            "springConstant": 0.03,
            "damping": 0.4,
            "avoidOverlap": 0.6,
        },
        "stabilization": {"enabled": True, "iterations": 400, "fit": True},
        "minVelocity": 1.0,
    },
    "edges": {
        "color": {"color": "#9aa0a6", "highlight": "#444444", "opacity": 0.7},
        "arrows": {"to": {"enabled": True, "scaleFactor": 0.35}},
        "font": {"size": 9, "color": "#666666", "strokeWidth": 3, "align": "middle"},
        "smooth": {"enabled": True, "type": "continuous"},
        "selectionWidth": 1.5,
    },
    "nodes": {"font": {"size": 13}, "borderWidth": 1.5},
    "interaction": {"hover": True, "tooltipDelay": 150},
}
#: Edge widths in pixels: thin, scaled by log weight so one heavy edge cannot hide the nodes.
EDGE_WIDTH = (0.6, 2.4)


class GraphView(Network):
    """A pyvis ``Network`` whose HTML is the lab's page (title once, legend, offline)."""

    def __init__(
        self,
        title: str,
        legend: list[LegendEntry],
        *,
        caption: str = "",
        height: str = "600px",
        directed: bool = True,
    ) -> None:
        super().__init__(height=height, width="100%", directed=directed, cdn_resources="in_line")
        self.view_title = title
        self.legend = legend
        self.caption = caption
        self.options = {**VIEW_OPTIONS}

    def generate_html(self, name: str = "index.html", local: bool = True, notebook: bool = False):
        self.html = render_page(
            title=self.view_title,
            legend=self.legend,
            nodes=self.nodes,
            edges=self.edges,
            options=self.options,
            height=self.height,
            caption=self.caption,
        )
        return self.html


def _text(value: Any, limit: int) -> str:
    text = "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _edge_widths(weights: pd.Series) -> list[float]:
    logs = [math.log1p(max(float(w), 0.0)) for w in weights]
    low, high = (min(logs), max(logs)) if logs else (0.0, 0.0)
    thin, thick = EDGE_WIDTH
    if high - low < 1e-9:
        return [round((thin + thick) / 3, 2)] * len(logs)
    return [round(thin + (thick - thin) * (v - low) / (high - low), 2) for v in logs]


def _groups(nodes: pd.DataFrame, colour_by: str | Mapping[str, str]) -> list[str]:
    if isinstance(colour_by, str):
        return [str(v) for v in nodes[colour_by]]
    return [str(colour_by.get(i, "other")) for i in nodes["id"]]


def pyvis_view(
    nodes: pd.DataFrame,
    edges: pd.DataFrame,
    *,
    title: str,
    colour_by: str | Mapping[str, str] = "label",
    palette: Mapping[str, str] | None = None,
    pale_nodes: Mapping[str, str] | Collection[str] = (),
    pale_legend: str = "removed (pale, dashed)",
    notes: Mapping[str, str] | None = None,
    caption: str = "",
    height: str = "600px",
) -> GraphView:
    """An interactive view of ``nodes`` and the ``edges`` among them (``GraphTables`` columns).

    ``colour_by`` is a node column (``"label"``, ``"level"``, ``"type"``) or a node id → group
    mapping (e.g. evidence branch); ``palette`` maps group → colour (default: the label colours,
    stable colours for anything else). The legend lists the groups present, in palette order.
    ``pale_nodes`` (ids, or id → reason) are drawn pale with a dashed border and one legend entry
    ``pale_legend``; ``notes`` adds a line per node id to its tooltip. Tooltips are plain text.
    """
    groups = _groups(nodes, colour_by)
    reasons = pale_nodes if isinstance(pale_nodes, Mapping) else dict.fromkeys(pale_nodes, "")
    notes = notes or {}
    order = list(palette or LABEL_COLOURS)
    present = sorted(set(groups), key=lambda g: (order.index(g) if g in order else len(order), g))
    colours = view_colours(present, palette)
    legend = [LegendEntry(g, colours[g]) for g in present]
    if any(i in reasons for i in nodes["id"]):
        legend.append(LegendEntry(pale_legend, pale("#9e9e9e"), dashed=True))
    view = GraphView(title, legend, caption=caption, height=height)
    for row, group in zip(nodes.itertuples(index=False), groups, strict=True):
        colour = colours[group]
        head = f"{row.label} (level {row.level})" + (f" · {group}" if group != row.label else "")
        tooltip = [head, _text(row.description, 300)]
        if row.id in notes:
            tooltip.append(notes[row.id])
        style: dict[str, Any] = {"color": {"background": colour, "border": colour}}
        if row.id in reasons:
            tooltip.append(f"removed: {reasons[row.id]}" if reasons[row.id] else "removed")
            style = {
                "color": {"background": pale(colour), "border": colour},
                "shapeProperties": {"borderDashes": [4, 3]},
                "font": {"color": "#777777"},
            }
        view.add_node(
            str(row.id),
            label=_text(row.name, 40) or str(row.id),
            title="\n".join(t for t in tooltip if t),
            size=10 + 4 * int(row.level),
            shape="box" if row.label == "Chunk" else "dot",
            **style,
        )
    known = set(view.get_nodes())
    edges = edges[edges["source"].isin(known) & edges["target"].isin(known)]
    widths = _edge_widths(edges["weight"])
    for row, width in zip(edges.itertuples(index=False), widths, strict=True):
        view.add_edge(
            str(row.source),
            str(row.target),
            title=f"{row.type} {row.predicate}\n{_text(row.description, 200)}".strip(),
            label=_text(row.predicate or "", 20),
            width=width,
        )
    return view


def pyvis_network(
    nodes: pd.DataFrame,
    edges: pd.DataFrame,
    *,
    colour: Mapping[str, str] | None = None,
    height: str = "600px",
    heading: str = "",
) -> GraphView:
    """The older entry point: colour by node label, or by ``colour`` (node id → colour).

    Kept so existing callers work; a ``colour`` that is a branch colour is named after its
    branch in the legend. New code calls ``pyvis_view`` (or ``evidence_view``) instead.
    """
    if colour is None:
        return pyvis_view(nodes, edges, title=heading or "graph view", height=height)
    names = {c: name for name, c in BRANCH_COLOURS.items()} | {"#e0e0e0": "dropped"}
    groups = {i: names.get(c, c) for i, c in colour.items()}
    palette = {names.get(c, c): c for c in colour.values()}
    title = heading or "graph view"
    return pyvis_view(nodes, edges, title=title, colour_by=groups, palette=palette, height=height)


_REMOTE_ASSET = re.compile(
    r'<link[^>]+href="https?://[^"]+"[^>]*>|<script[^>]+src="https?://[^"]+"[^>]*>\s*</script>'
)


def save_html(net: Network, name: str, figures_dir: Path | str) -> Path:
    """Write ``net`` to ``figures_dir/name.html`` (self-contained, opens offline)."""
    figures_dir = Path(figures_dir)
    figures_dir.mkdir(parents=True, exist_ok=True)
    path = figures_dir / f"{name}.html"
    page = net.generate_html()
    if not isinstance(net, GraphView):
        # a plain pyvis Network links Bootstrap from a CDN even with vis.js inlined; it only
        # styles menus these views do not use, so drop it and the file still opens offline
        page = _REMOTE_ASSET.sub("", page)
    path.write_text(page, encoding="utf-8")
    return path


def save_view_and_figure(net: Network, fig: Any, name: str, figures_dir: Path | str) -> list[Path]:
    """``name.html`` (the interactive view) and ``name.png`` (its static drawing ``fig``,
    closed afterwards): how the ArcRAG and MOSAIC views are exported."""
    import matplotlib.pyplot as plt

    from ace_lab.viz.figures import save_figure

    html = save_html(net, name, figures_dir)
    try:
        images = save_figure(fig, name, figures_dir, formats=("png",))
    finally:
        plt.close(fig)
    return [html, *images]
