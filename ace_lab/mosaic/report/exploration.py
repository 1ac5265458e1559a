"""One MOSAIC query's exploration as a graph, read from its trace alone (notebook 05).

MOSAIC records every depth of its beam search as a :class:`~ace_lab.steps.mosaic.TraversalDepth`
listing the kept paths and the best pruned ones (:class:`~ace_lab.steps.mosaic.ScoredPath`: node
ids, display names, edge ids, ``view`` standard or connector, score and score components), and
its seeds as a :class:`~ace_lab.steps.mosaic.SeedSelection`. From those:

- :func:`exploration_paths`: one row per recorded path (depth, kept or pruned, view, score,
  the walk, every score component);
- :func:`exploration_view`: the pyvis view — nodes coloured by the depth at which the
  exploration first reached them (seeds apart), nodes only pruned paths reached pale and
  dashed, connector-path edges orange and dashed, pruned-path edges thin and dotted;
- :func:`exploration_figure`: the same exploration as a static matplotlib figure (a column per
  depth), for the PNG next to the HTML.

An optional ``graph`` (a ``RetrievalGraph``) only adds descriptions and relation phrases to the
tooltips. Corpus text reaches the HTML only through :mod:`ace_lab.viz.view_html`, which escapes
it (plain-text tooltips, JSON with ``<``/``>``/``&`` escaped), so none of it can run in a browser.
A trace recorded before steps carried typed payloads draws as an empty exploration.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.patches import FancyArrowPatch

from ace_lab.evidence import Trace
from ace_lab.mosaic.report.steps import payload, payloads
from ace_lab.steps.mosaic import ExplorationStop, ScoredPath, SeedSelection, TraversalDepth
from ace_lab.viz.network import GraphView, pyvis_view, save_view_and_figure
from ace_lab.viz.palette import pass_colour
from ace_lab.viz.view_html import LegendEntry

SEED_GROUP = "seed (depth 0)"
SEED_COLOUR = "#e15759"
CONNECTOR_COLOUR = "#f28e2b"
PRUNED_EDGE_COLOUR = "#c8c8c8"
KEPT_EDGE_COLOUR = "#6f6f6f"
#: How the static figure draws each kind of edge: colour, line style, width.
EDGE_STYLES = {
    "connector": (CONNECTOR_COLOUR, "dashed", 1.6),
    "pruned": (PRUNED_EDGE_COLOUR, "dotted", 0.8),
    "standard": (KEPT_EDGE_COLOUR, "solid", 1.2),
}


def depth_group(depth: int) -> str:
    return SEED_GROUP if depth == 0 else f"depth {depth}"


def depth_colour(depth: int) -> str:
    """Seeds red; depths 1, 2, 3, 4 in blues darkening with depth."""
    return SEED_COLOUR if depth == 0 else pass_colour(depth + 2)


def _stop_reason(trace: Trace) -> str:
    stop = payload(trace, ExplorationStop)
    return stop.reason if stop is not None else "?"


def _statuses(depth: TraversalDepth) -> tuple[tuple[str, tuple[ScoredPath, ...]], ...]:
    return (("kept", depth.kept), ("pruned", depth.pruned))


def exploration_paths(trace: Trace) -> pd.DataFrame:
    """One row per path the trace records: ``depth``, ``status`` (kept / pruned), ``view``,
    ``score``, ``region``, ``walk`` (names joined by →), ``nodes``, ``edges`` and every score
    component of the path's last hop. Pruned paths are those the trace lists (the best ones)."""
    rows = [
        {
            "depth": d.depth,
            "status": status,
            "view": p.view,
            "score": p.score,
            "region": p.region,
            "walk": p.walk(),
            "nodes": list(p.nodes),
            "edges": list(p.edges),
            **p.components,
        }
        for d in payloads(trace, TraversalDepth)
        for status, paths in _statuses(d)
        for p in paths
    ]
    columns = ["depth", "status", "view", "score", "region", "walk", "nodes", "edges"]
    return pd.DataFrame(rows, columns=None if rows else columns)


def exploration_graph(trace: Trace, graph: Any = None) -> dict[str, Any]:
    """The nodes and edges of the exploration and how each is drawn.

    Returns ``nodes`` and ``edges`` frames in the ``GraphTables`` shape, ``depth`` (node id →
    first depth a kept path or seed reached it, or the pruned path's depth for pruned-only
    nodes), ``pruned`` (pruned-only node id → reason), ``notes`` (node id → tooltip line) and
    ``edge_style`` ((source, target) → "standard" / "connector" / "pruned")."""
    names: dict[str, str] = {}
    depth: dict[str, int] = {}
    pruned_at: dict[str, str] = {}
    pruned_depth: dict[str, int] = {}
    best: dict[str, float] = {}
    style: dict[tuple[str, str], str] = {}
    edge_ids: dict[tuple[str, str], str] = {}
    rank = {"connector": 0, "standard": 1, "pruned": 2}
    seeds = payload(trace, SeedSelection)
    for seed in seeds.seeds if seeds is not None else ():
        depth[seed.node] = 0
        best[seed.node] = float(seed.score or 0.0)
    for d in payloads(trace, TraversalDepth):
        for status, paths in _statuses(d):
            for path in paths:
                nodes = list(path.nodes)
                names.update(zip(nodes, path.names or nodes, strict=False))
                kind = "pruned" if status == "pruned" else path.view
                for i, node in enumerate(nodes):
                    if status == "kept":
                        depth[node] = min(depth.get(node, i), i)
                        best[node] = max(best.get(node, float("-inf")), path.score)
                    elif node not in pruned_depth:
                        pruned_depth[node] = i
                        pruned_at[node] = f"only on pruned paths (depth {d.depth})"
                for pair, edge in zip(pairwise(nodes), path.edges, strict=False):
                    if pair not in style or rank[kind] < rank[style[pair]]:
                        style[pair], edge_ids[pair] = kind, edge
    pruned_at = {n: why for n, why in pruned_at.items() if n not in depth}
    depth |= {n: pruned_depth[n] for n in pruned_at}
    nodes_df = pd.DataFrame(
        [
            {
                "id": n,
                "name": _name(n, names, graph),
                "label": "Entity",
                "level": 0,
                "description": _description(n, graph),
            }
            for n in depth
        ],
        columns=["id", "name", "label", "level", "description"],
    )
    edges_df = pd.DataFrame(
        [
            {
                "source": a,
                "target": b,
                "type": f"{kind} path",
                "predicate": _predicate(edge_ids[(a, b)], graph),
                "description": edge_ids[(a, b)],
                "weight": 0.5 if kind == "pruned" else 2.0,
            }
            for (a, b), kind in style.items()
        ],
        columns=["source", "target", "type", "predicate", "description", "weight"],
    )
    notes = {
        n: f"depth {d}" + (f" · best kept path score {best[n]:.3f}" if n in best else "")
        for n, d in depth.items()
    }
    return {
        "nodes": nodes_df,
        "edges": edges_df,
        "depth": depth,
        "pruned": pruned_at,
        "notes": notes,
        "edge_style": style,
    }


def _name(node: str, names: dict[str, str], graph: Any) -> str:
    if node in names and names[node] != node:
        return str(names[node])
    info = getattr(graph, "nodes", {}).get(node) if graph is not None else None
    return str(info.name) if info is not None else str(names.get(node, node))


def _description(node: str, graph: Any) -> str:
    info = getattr(graph, "nodes", {}).get(node) if graph is not None else None
    return str(info.description or "") if info is not None else ""


def _predicate(edge: str, graph: Any) -> str:
    info = getattr(graph, "edges", {}).get(edge) if graph is not None else None
    return str(info.predicate or "") if info is not None else ""


def exploration_view(
    trace: Trace, graph: Any = None, *, title: str = "MOSAIC exploration", height: str = "600px"
) -> GraphView:
    """The pyvis view of :func:`exploration_graph` (see module doc)."""
    g = exploration_graph(trace, graph)
    groups = {n: depth_group(d) for n, d in g["depth"].items()}
    palette = {depth_group(d): depth_colour(d) for d in sorted(set(g["depth"].values()))}
    kept = sum(s == "standard" or s == "connector" for s in g["edge_style"].values())
    caption = (
        f"{len(g['nodes'])} nodes, {kept} kept-path edges · stopped: {_stop_reason(trace)} · "
        "hover a node for its text"
    )
    view = pyvis_view(
        g["nodes"],
        g["edges"],
        title=title,
        colour_by=groups,
        palette=palette,
        pale_nodes=g["pruned"],
        pale_legend="reached only by pruned paths (pale, dashed)",
        notes=g["notes"],
        caption=caption,
        height=height,
    )
    for edge in view.edges:
        kind = g["edge_style"].get((edge["from"], edge["to"]), "standard")
        if kind == "connector":
            edge.update(color={"color": CONNECTOR_COLOUR}, dashes=[8, 4])
        elif kind == "pruned":
            edge.update(color={"color": PRUNED_EDGE_COLOUR, "opacity": 0.5}, dashes=[2, 4])
        else:
            edge.update(color={"color": KEPT_EDGE_COLOUR})
    view.legend += [
        LegendEntry("connector-path edge (orange, dashed)", CONNECTOR_COLOUR, dashed=True),
        LegendEntry("pruned-path edge (grey, dotted)", PRUNED_EDGE_COLOUR, dashed=True),
    ]
    return view


def _plain(text: str, limit: int = 22) -> str:
    """A label matplotlib draws as typed: ``$`` escaped (no mathtext), shortened."""
    text = " ".join(str(text).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return text.replace("$", r"\$")


def exploration_figure(trace: Trace, graph: Any = None, title: str = "") -> plt.Figure:
    """A column per depth: each node at the depth it was first reached, edges styled as in
    :func:`exploration_view` (static, for the PNG)."""
    g = exploration_graph(trace, graph)
    columns: dict[int, list[str]] = {}
    for node, d in g["depth"].items():
        columns.setdefault(d, []).append(node)
    height = max((len(c) for c in columns.values()), default=1)
    pos = {
        n: (d, height - 1 - i - (height - len(col)) / 2)
        for d, col in columns.items()
        for i, n in enumerate(col)
    }
    fig, ax = plt.subplots(figsize=(2.6 * max(len(columns), 2) + 1, 0.42 * height + 1.6))
    for (a, b), kind in g["edge_style"].items():
        (x0, y0), (x1, y1) = pos[a], pos[b]
        colour, line, width = EDGE_STYLES[kind]
        # an edge within one column (seed to seed) bends, so it does not hide behind the nodes
        bend = 0.35 if x0 == x1 else 0.0
        ax.add_patch(
            FancyArrowPatch(
                (x0, y0),
                (x1, y1),
                arrowstyle="-",
                color=colour,
                lw=width,
                linestyle=line,
                connectionstyle=f"arc3,rad={bend}",
                zorder=1,
            )
        )
    names = dict(zip(g["nodes"]["id"], g["nodes"]["name"], strict=True))
    for node, (x, y) in pos.items():
        is_pruned = node in g["pruned"]
        colour = depth_colour(g["depth"][node])
        ax.scatter(
            [x],
            [y],
            s=70,
            zorder=2,
            color="white" if is_pruned else colour,
            edgecolors=colour,
            linestyle="--" if is_pruned else "-",
        )
        ax.annotate(
            _plain(names.get(node, node)),
            (x, y),
            xytext=(6, 3),
            textcoords="offset points",
            fontsize=7,
            color="#888888" if is_pruned else "#222222",
        )
    depths = sorted(columns)
    ax.set_xticks(depths, [depth_group(d) for d in depths])
    ax.set_yticks([])
    ax.set_xlim(min(depths, default=0) - 0.6, max(depths, default=0) + 0.9)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title(
        title
        or f"MOSAIC exploration (stopped: {_stop_reason(trace)}); hollow: pruned only; "
        "orange dashed: connector paths",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def save_exploration(
    trace: Trace, name: str, figures_dir: Path | str, graph: Any = None, title: str = ""
) -> list[Path]:
    """Write the exploration as ``name.html`` (pyvis) and ``name.png`` (matplotlib)."""
    view = exploration_view(trace, graph, title=title or "MOSAIC exploration")
    fig = exploration_figure(trace, graph, title)
    return save_view_and_figure(view, fig, name, figures_dir)
