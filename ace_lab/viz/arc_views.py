"""ArcRAG's graph views for notebook 04: the query-local interface and the witness subgraph.

Both are read from an answer's trace and meta alone and drawn twice: as a pyvis page (through
:func:`ace_lab.viz.network.pyvis_view`, whose page escapes every piece of corpus text, so none
of it can run in a browser) and as a static matplotlib figure for the PNG.

- :func:`interface_graph` / :func:`interface_view`: ``Ŝ_q`` and ``I_q`` of one pass — the
  anchors (red), the entities on the confirming paths, the paths as edges labelled with their
  descriptor, alias groups joined by dashed orange edges, and the descriptors exploration
  reported that no confirming path shows (grey boxes);
- :func:`witness_graph` / :func:`witness_view`: the witness ``W`` — every node, edge and row an
  acceptable query returned, coloured by the pass and subplan that first found it, with the
  answer path (the shortest witness path from an anchor to a node naming the answer) in red.
"""

from __future__ import annotations

import re
from collections import deque
from itertools import pairwise
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import networkx as nx
import pandas as pd

from ace_lab.evidence import Answer, Trace
from ace_lab.viz.arc_tables import pass_of, steps_of
from ace_lab.viz.network import GraphView, pyvis_view, save_view_and_figure
from ace_lab.viz.palette import view_colours
from ace_lab.viz.view_html import LegendEntry

ANCHOR, ENTITY, ALIAS, DESCRIPTOR = "anchor", "entity on a confirming path", "alias", "descriptor"
INTERFACE_COLOURS = {ANCHOR: "#e15759", ENTITY: "#4e79a7", ALIAS: "#f28e2b",
                     DESCRIPTOR: "#9e9e9e"}  # fmt: skip
ALIAS_COLOUR = "#f28e2b"
ANSWER_COLOUR = "#d62728"
NODE_COLUMNS = ["id", "name", "label", "level", "description"]
EDGE_COLUMNS = ["source", "target", "type", "predicate", "description", "weight"]
_PATH = re.compile(r"^(?P<s>.*?) -\[(?P<r>.*)\]-> (?P<o>.*)$", re.S)


def parse_path(text: str) -> tuple[str, str, str] | None:
    """``"a -[ρ]-> b"`` (how ``I_q`` and witness edges are written) as ``(a, ρ, b)``."""
    m = _PATH.match(str(text))
    return (m["s"], m["r"], m["o"]) if m else None


def interface_of(trace: Trace, pass_: int | None = None) -> dict[str, Any]:
    """The interface an ``explore`` step recorded (the last pass's unless ``pass_``); without
    exploration (ablations, Direct-Cypher), the retrieved anchors alone."""
    for step in reversed(steps_of(trace, "explore:")):
        if pass_ is None or pass_of(step.name) == pass_:
            return dict(step.outputs.get("interface", {}))
    retrieved = [s for s in steps_of(trace, "retrieve:") if pass_ in (None, pass_of(s.name))]
    anchors = list(retrieved[-1].outputs.get("anchors", ())) if retrieved else []
    return {"anchors": anchors, "descriptors": [], "signatures": [], "alias_groups": [],
            "paths": [], "notes": []}  # fmt: skip


def _frames(nodes: dict[str, dict[str, Any]], edges: list[dict[str, Any]]) -> tuple[Any, Any]:
    return (pd.DataFrame(list(nodes.values()), columns=NODE_COLUMNS),
            pd.DataFrame(edges, columns=EDGE_COLUMNS))  # fmt: skip


def interface_graph(interface: dict[str, Any]) -> dict[str, Any]:
    """Nodes and edges of ``Ŝ_q``/``I_q`` (``GraphTables`` columns), ``group`` (node id →
    anchor / entity / alias / descriptor) and ``alias_edges`` ((a, b) pairs drawn dashed)."""
    nodes: dict[str, dict[str, Any]] = {}
    group: dict[str, str] = {}
    edges: list[dict[str, Any]] = []

    def node(name: str, kind: str, label: str = "Entity", note: str = "") -> str:
        nid = f"d:{name}" if kind == DESCRIPTOR else f"n:{name}"
        if nid not in nodes:
            nodes[nid] = {"id": nid, "name": name, "label": label, "level": 0, "description": note}
            group[nid] = kind
        return nid

    for a in interface.get("anchors", ()):
        labels = list(a.get("labels", ())) or ["Entity"]
        node(a["text"], ANCHOR, labels[0], f"anchor [{a['key']}] named by '{a.get('phrase', '')}'")
    on_paths: set[str] = set()
    for text in interface.get("paths", ()):
        parsed = parse_path(text)
        if parsed is None:
            continue
        s, rho, o = parsed
        on_paths.add(rho)
        edges.append({"source": node(s, ENTITY), "target": node(o, ENTITY),
                      "type": "confirming path", "predicate": rho, "description": text,
                      "weight": 1.0})  # fmt: skip
    alias_edges = []
    for names in interface.get("alias_groups", ()):
        ids = [node(n, ALIAS) for n in names]
        for a, b in pairwise(ids):
            alias_edges.append((a, b))
            edges.append({"source": a, "target": b, "type": "alias", "predicate": "same as",
                          "description": " = ".join(names), "weight": 0.5})  # fmt: skip
    counts = {s[1]: int(s[3]) for s in interface.get("signatures", ())}
    for rho in interface.get("descriptors", ()):
        if rho not in on_paths:
            seen = f"seen {counts[rho]}× near the anchors" if rho in counts else "reported"
            node(rho, DESCRIPTOR, "Descriptor", f"descriptor without a confirming path ({seen})")
    nodes_df, edges_df = _frames(nodes, edges)
    return {"nodes": nodes_df, "edges": edges_df, "group": group, "alias_edges": alias_edges}


def interface_view(trace: Trace, pass_: int | None = None, *, title: str = "",
                   height: str = "560px") -> GraphView:  # fmt: skip
    """The pyvis view of :func:`interface_graph` for one pass (see the module doc)."""
    interface = interface_of(trace, pass_)
    g = interface_graph(interface)
    caption = (f"{len(interface.get('anchors', ()))} anchors · "
               f"{len(interface.get('descriptors', ()))} descriptors · "
               f"{len(interface.get('alias_groups', ()))} alias groups · "
               f"{len(interface.get('paths', ()))} confirming paths")  # fmt: skip
    view = pyvis_view(g["nodes"], g["edges"], title=title or "query-local interface",
                      colour_by=g["group"], palette=INTERFACE_COLOURS, caption=caption,
                      height=height)  # fmt: skip
    aliases = set(g["alias_edges"])
    for edge in view.edges:
        if (edge["from"], edge["to"]) in aliases:
            edge.update(color={"color": ALIAS_COLOUR}, dashes=[6, 4])
    for n in view.nodes:
        if g["group"].get(n["id"]) == DESCRIPTOR:
            n["shape"] = "box"
    view.legend.append(LegendEntry("alias edge (orange, dashed)", ALIAS_COLOUR, dashed=True))
    return view


# --------------------------------------------------------------------------- witness
def group_of(pass_: int, subplan: int) -> str:
    return f"pass {pass_} · subplan {subplan}"


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", str(text).casefold()))


def names_answer(name: str, answer: str) -> bool:
    """Whether a node called ``name`` names ``answer`` (equal, or one holds the other)."""
    a, b = _norm(name), _norm(answer)
    if not a or not b:
        return False
    return a == b or (min(len(a), len(b)) >= 3 and (f" {a} " in f" {b} " or f" {b} " in f" {a} "))


def _anchor_keys(trace: Trace) -> set[str]:
    return {
        str(a["key"]) for s in steps_of(trace, "retrieve:") for a in s.outputs.get("anchors", ())
    }


def _shortest(adj: dict[str, set[str]], starts: set[str], goals: set[str]) -> list[str]:
    """The shortest path from any of ``starts`` to any of ``goals`` (BFS; [] if none)."""
    prev: dict[str, str | None] = dict.fromkeys(sorted(starts))
    queue = deque(sorted(starts))
    while queue:
        cur = queue.popleft()
        if cur in goals:
            path = [cur]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        for nxt in sorted(adj.get(cur, ())):
            if nxt not in prev:
                prev[nxt] = cur
                queue.append(nxt)
    return []


def _found(el: dict[str, Any]) -> str:
    again = f", again by {', '.join(el['seen_in'])}" if el.get("seen_in") else ""
    return f"found by {el['query']}{again}"


def witness_graph(answer: Answer) -> dict[str, Any]:
    """Nodes (rows too, as boxes) and edges of the witness, ``group`` (id → pass · subplan),
    and the answer path: ``answer_nodes`` (nodes naming the answer) and ``answer_path``
    (node ids from an anchor to one of them; the answer nodes alone when none is reachable)."""
    elements = answer.meta.get("witness", {}).get("elements", [])
    nodes: dict[str, dict[str, Any]] = {}
    group: dict[str, str] = {}
    edges: list[dict[str, Any]] = []

    def put(key: str, name: str, label: str, el: dict[str, Any], note: str) -> None:
        if key not in nodes:
            nodes[key] = {"id": key, "name": name, "label": label, "level": 0,
                          "description": note}  # fmt: skip
            group[key] = group_of(el["pass_"], el["subplan"])

    for el in elements:
        found = _found(el)
        if el["kind"] == "node":
            put(el["key"], el["text"], (list(el.get("labels") or ()) or ["Entity"])[0], el, found)
        elif el["kind"] == "row":
            put(f"row:{el['key']}", el["text"], "Chunk", el, f"result row; {found}")
    for el in (e for e in elements if e["kind"] == "edge"):
        parsed = parse_path(el["text"]) or ("?", el["text"], "?")
        ends = []
        for key, name in ((el.get("source"), parsed[0]), (el.get("target"), parsed[2])):
            key = key or f"end:{el['key']}:{len(ends)}"
            put(key, name, "Entity", el, "edge end (not returned as a node)")
            ends.append(key)
        passages = ", ".join(el.get("provenance") or ()) or "—"
        edges.append({"source": ends[0], "target": ends[1],
                      "type": group_of(el["pass_"], el["subplan"]), "predicate": parsed[1],
                      "description": f"{el['text']} · {_found(el)} · passages: {passages}",
                      "weight": 1.0})  # fmt: skip
    goals = {k for k, n in nodes.items() if names_answer(n["name"], answer.text)}
    adj: dict[str, set[str]] = {}
    for e in edges:
        adj.setdefault(e["source"], set()).add(e["target"])
        adj.setdefault(e["target"], set()).add(e["source"])
    path = _shortest(adj, _anchor_keys(answer.trace) & set(nodes), goals) or sorted(goals)
    nodes_df, edges_df = _frames(nodes, edges)
    return {"nodes": nodes_df, "edges": edges_df, "group": group, "answer_nodes": goals,
            "answer_path": path}  # fmt: skip


def _path_pairs(path: list[str]) -> set[tuple[str, str]]:
    return {p for a, b in pairwise(path) for p in ((a, b), (b, a))}


def witness_view(answer: Answer, *, title: str = "", height: str = "600px") -> GraphView:
    """The pyvis view of :func:`witness_graph`: colour = pass · subplan, answer path in red."""
    g = witness_graph(answer)
    on_path, pairs = set(g["answer_path"]), _path_pairs(g["answer_path"])
    caption = (f"{len(g['nodes'])} nodes, {len(g['edges'])} edges · answer: {answer.text or '—'}"
               f" · answer path: {len(on_path)} nodes (red)")  # fmt: skip
    view = pyvis_view(g["nodes"], g["edges"], title=title or "witness subgraph",
                      colour_by=g["group"], caption=caption, height=height)  # fmt: skip
    for n in view.nodes:
        if n["id"] in on_path:
            n["color"] = {**n["color"], "border": ANSWER_COLOUR}
            n["borderWidth"] = 4
    for e in view.edges:
        if (e["from"], e["to"]) in pairs:
            e.update(color={"color": ANSWER_COLOUR}, width=4)
    view.legend.append(LegendEntry("answer path (red)", ANSWER_COLOUR))
    return view


# --------------------------------------------------------------------------- static figures
def graph_figure(g: dict[str, Any], colours: dict[str, str], title: str,
                 path: list[str] = ()) -> plt.Figure:  # fmt: skip
    """A static drawing of an interface or witness graph (fixed-seed layout), for the PNG."""
    net = nx.Graph()
    net.add_nodes_from(g["nodes"]["id"])
    net.add_edges_from(zip(g["edges"]["source"], g["edges"]["target"], strict=True))
    k = 2.0 / max(len(net), 1) ** 0.5  # looser than the default: room for the labels
    pos = nx.spring_layout(net, seed=7, k=k) if len(net) else {}
    palette = view_colours(sorted(set(g["group"].values())), colours)
    fig, ax = plt.subplots(figsize=(9, 6))
    pairs = _path_pairs(list(path))
    for e in g["edges"].itertuples(index=False):
        (x0, y0), (x1, y1) = pos[e.source], pos[e.target]
        red, alias = (e.source, e.target) in pairs, e.type == "alias"
        colour = ANSWER_COLOUR if red else ALIAS_COLOUR if alias else "#9aa0a6"
        ax.plot([x0, x1], [y0, y1], color=colour, lw=2.5 if red else 0.9, zorder=1,
                linestyle="--" if alias else "-")  # fmt: skip
        if not alias:
            ax.annotate(_plain(e.predicate, 18), ((x0 + x1) / 2, (y0 + y1) / 2), fontsize=6,
                        color="#666666", ha="center")  # fmt: skip
    names = dict(zip(g["nodes"]["id"], g["nodes"]["name"], strict=True))
    for group in sorted(set(g["group"].values())):
        ids = [n for n in net.nodes if g["group"].get(n) == group]
        ax.scatter([pos[n][0] for n in ids], [pos[n][1] for n in ids], s=60, zorder=2,
                   color=palette[group], label=group,
                   edgecolors=[ANSWER_COLOUR if n in path else "white" for n in ids])  # fmt: skip
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


def save_interface(trace: Trace, name: str, figures_dir: Path | str, pass_: int | None = None,
                   title: str = "query-local interface") -> list[Path]:  # fmt: skip
    """Write the interface as ``name.html`` (pyvis) and ``name.png`` (matplotlib)."""
    g = interface_graph(interface_of(trace, pass_))
    fig = graph_figure(g, INTERFACE_COLOURS, title)
    return save_view_and_figure(interface_view(trace, pass_, title=title), fig, name, figures_dir)


def save_witness(answer: Answer, name: str, figures_dir: Path | str,
                 title: str = "witness subgraph") -> list[Path]:  # fmt: skip
    """Write the witness as ``name.html`` (pyvis) and ``name.png`` (matplotlib)."""
    g = witness_graph(answer)
    fig = graph_figure(g, {}, title, g["answer_path"])
    return save_view_and_figure(witness_view(answer, title=title), fig, name, figures_dir)
