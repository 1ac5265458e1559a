"""One MOSAIC query's exploration as a graph, read from its trace alone (notebook 05).

MOSAIC records every depth of its beam search as a :class:`~ace_lab.mosaic.steps.TraversalDepth`
listing the kept paths and the best pruned ones (:class:`~ace_lab.mosaic.steps.ScoredPath`: node
ids, display names, edge ids, ``view`` standard or connector, score and score components), and
its seeds as a :class:`~ace_lab.mosaic.steps.SeedSelection`. From those:

- :func:`exploration_paths`: one row per recorded path (depth, kept or pruned, view, score,
  the walk, every score component);
- :func:`exploration_view`: the pyvis view — nodes coloured by the depth at which the
  exploration first reached them (seeds apart), nodes only pruned paths reached pale and
  dashed, connector-path edges orange and dashed, pruned-path edges thin and dotted.

:mod:`ace_lab.mosaic.report.exploration_drawing` draws the same exploration as a static paper
figure (a column per depth) for the PNG next to the HTML, and writes both.

An optional ``graph`` (a ``RetrievalGraph``) only adds descriptions and relation phrases to the
tooltips. Corpus text reaches the HTML only through :mod:`ace_lab.viz.view_html`, which escapes
it (plain-text tooltips, JSON with ``<``/``>``/``&`` escaped), so none of it can run in a browser.
A trace recorded before steps carried typed payloads draws as an empty exploration.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pandas as pd

from ace_lab.evidence import Trace
from ace_lab.mosaic.report.steps import payload, payloads
from ace_lab.mosaic.steps import ExplorationStop, ScoredPath, SeedSelection, TraversalDepth
from ace_lab.viz.network import GraphView, pyvis_view
from ace_lab.viz.palette import pass_colour
from ace_lab.viz.view_html import LegendEntry

SEED_GROUP = "seed (depth 0)"
SEED_COLOUR = "#e15759"
CONNECTOR_COLOUR = "#f28e2b"
PRUNED_EDGE_COLOUR = "#c8c8c8"
KEPT_EDGE_COLOUR = "#6f6f6f"


def depth_group(depth: int) -> str:
    return SEED_GROUP if depth == 0 else f"depth {depth}"


def depth_colour(depth: int) -> str:
    """Seeds red; depths 1, 2, 3, 4 in blues darkening with depth."""
    return SEED_COLOUR if depth == 0 else pass_colour(depth + 2)


def stop_reason(trace: Trace) -> str:
    """Why the exploration stopped (``?`` for a trace without the typed stop step)."""
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
        f"{len(g['nodes'])} nodes, {kept} kept-path edges · stopped: {stop_reason(trace)} · "
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
