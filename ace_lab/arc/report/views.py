"""ArcRAG's graph views for notebook 04: the query-local interface and the witness subgraph.

Both are read from an answer's trace payloads and details alone and drawn as a pyvis page
(through :func:`ace_lab.viz.network.pyvis_view`, whose page escapes every piece of corpus text,
so none of it can run in a browser); :mod:`ace_lab.arc.report.figures` draws them for the PNG.

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
from typing import Any

import pandas as pd

from ace_lab.arc.report.tables import details, payloads
from ace_lab.arc.steps import ArcRetrieval, InterfaceBuilt
from ace_lab.evidence import Answer, Trace
from ace_lab.viz.network import GraphView, pyvis_view
from ace_lab.viz.view_html import LegendEntry

ANCHOR, ENTITY, ALIAS, DESCRIPTOR = "anchor", "entity on a confirming path", "alias", "descriptor"
INTERFACE_COLOURS = {ANCHOR: "#e15759", ENTITY: "#4e79a7", ALIAS: "#f28e2b", DESCRIPTOR: "#9e9e9e"}
ALIAS_COLOUR = "#f28e2b"
ANSWER_COLOUR = "#d62728"
NODE_COLUMNS = ["id", "name", "label", "level", "description"]
EDGE_COLUMNS = ["source", "target", "type", "predicate", "description", "weight"]
_PATH = re.compile(r"^(?P<s>.*?) -\[(?P<r>.*)\]-> (?P<o>.*)$", re.S)


def parse_path(text: str) -> tuple[str, str, str] | None:
    """``"a -[ρ]-> b"`` (how ``I_q`` and witness edges are written) as ``(a, ρ, b)``."""
    m = _PATH.match(str(text))
    return (m["s"], m["r"], m["o"]) if m else None


def interface_of(trace: Trace, pass_: int | None = None) -> InterfaceBuilt:
    """The interface an ``explore`` step recorded (the last pass's unless ``pass_``); without
    exploration (ablations, Direct-Cypher), the retrieved anchors alone."""
    for built in reversed(payloads(trace, InterfaceBuilt)):
        if pass_ is None or built.pass_index == pass_:
            return built
    retrieved = [r for r in payloads(trace, ArcRetrieval) if pass_ in (None, r.pass_index)]
    if not retrieved:
        return InterfaceBuilt(pass_index=pass_ or 0)
    return InterfaceBuilt(pass_index=retrieved[-1].pass_index, anchors=retrieved[-1].anchors)


def _frames(nodes: dict[str, dict[str, Any]], edges: list[dict[str, Any]]) -> tuple[Any, Any]:
    return (
        pd.DataFrame(list(nodes.values()), columns=NODE_COLUMNS),
        pd.DataFrame(edges, columns=EDGE_COLUMNS),
    )


def interface_graph(interface: InterfaceBuilt) -> dict[str, Any]:
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

    for a in interface.anchors:
        labels = list(a.labels) or ["Entity"]
        node(a.text, ANCHOR, labels[0], f"anchor [{a.key}] named by '{a.phrase}'")
    on_paths: set[str] = set()
    for text in interface.paths:
        parsed = parse_path(text)
        if parsed is None:
            continue
        s, rho, o = parsed
        on_paths.add(rho)
        edges.append(
            {
                "source": node(s, ENTITY),
                "target": node(o, ENTITY),
                "type": "confirming path",
                "predicate": rho,
                "description": text,
                "weight": 1.0,
            }
        )
    alias_edges = []
    for names in interface.alias_groups:
        ids = [node(n, ALIAS) for n in names]
        for a, b in pairwise(ids):
            alias_edges.append((a, b))
            edges.append(
                {
                    "source": a,
                    "target": b,
                    "type": "alias",
                    "predicate": "same as",
                    "description": " = ".join(names),
                    "weight": 0.5,
                }
            )
    counts = {s[1]: int(s[3]) for s in interface.signatures}
    for rho in interface.descriptors:
        if rho not in on_paths:
            seen = f"seen {counts[rho]}× near the anchors" if rho in counts else "reported"
            node(rho, DESCRIPTOR, "Descriptor", f"descriptor without a confirming path ({seen})")
    nodes_df, edges_df = _frames(nodes, edges)
    return {"nodes": nodes_df, "edges": edges_df, "group": group, "alias_edges": alias_edges}


def interface_view(
    trace: Trace, pass_: int | None = None, *, title: str = "", height: str = "560px"
) -> GraphView:
    """The pyvis view of :func:`interface_graph` for one pass (see the module doc)."""
    interface = interface_of(trace, pass_)
    g = interface_graph(interface)
    caption = (
        f"{len(interface.anchors)} anchors · {len(interface.descriptors)} descriptors · "
        f"{len(interface.alias_groups)} alias groups · {len(interface.paths)} confirming paths"
    )
    view = pyvis_view(
        g["nodes"],
        g["edges"],
        title=title or "query-local interface",
        colour_by=g["group"],
        palette=INTERFACE_COLOURS,
        caption=caption,
        height=height,
    )
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
    return {str(a.key) for r in payloads(trace, ArcRetrieval) for a in r.anchors}


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
    arc = details(answer)
    elements = (arc.witness or {}).get("elements", ()) if arc is not None else ()
    nodes: dict[str, dict[str, Any]] = {}
    group: dict[str, str] = {}
    edges: list[dict[str, Any]] = []

    def put(key: str, name: str, label: str, el: dict[str, Any], note: str) -> None:
        if key not in nodes:
            nodes[key] = {"id": key, "name": name, "label": label, "level": 0, "description": note}
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
        edges.append(
            {
                "source": ends[0],
                "target": ends[1],
                "type": group_of(el["pass_"], el["subplan"]),
                "predicate": parsed[1],
                "description": f"{el['text']} · {_found(el)} · passages: {passages}",
                "weight": 1.0,
            }
        )
    goals = {k for k, n in nodes.items() if names_answer(n["name"], answer.text)}
    adj: dict[str, set[str]] = {}
    for e in edges:
        adj.setdefault(e["source"], set()).add(e["target"])
        adj.setdefault(e["target"], set()).add(e["source"])
    path = _shortest(adj, _anchor_keys(answer.trace) & set(nodes), goals) or sorted(goals)
    nodes_df, edges_df = _frames(nodes, edges)
    return {
        "nodes": nodes_df,
        "edges": edges_df,
        "group": group,
        "answer_nodes": goals,
        "answer_path": path,
    }


def path_pairs(path: list[str]) -> set[tuple[str, str]]:
    """The consecutive pairs of ``path``, both ways round (the answer path's edges)."""
    return {p for a, b in pairwise(path) for p in ((a, b), (b, a))}


def witness_view(answer: Answer, *, title: str = "", height: str = "600px") -> GraphView:
    """The pyvis view of :func:`witness_graph`: colour = pass · subplan, answer path in red."""
    g = witness_graph(answer)
    on_path, pairs = set(g["answer_path"]), path_pairs(g["answer_path"])
    caption = (
        f"{len(g['nodes'])} nodes, {len(g['edges'])} edges · answer: {answer.text or '—'}"
        f" · answer path: {len(on_path)} nodes (red)"
    )
    view = pyvis_view(
        g["nodes"],
        g["edges"],
        title=title or "witness subgraph",
        colour_by=g["group"],
        caption=caption,
        height=height,
    )
    for n in view.nodes:
        if n["id"] in on_path:
            n["color"] = {**n["color"], "border": ANSWER_COLOUR}
            n["borderWidth"] = 4
    for e in view.edges:
        if (e["from"], e["to"]) in pairs:
            e.update(color={"color": ANSWER_COLOUR}, width=4)
    view.legend.append(LegendEntry("answer path (red)", ANSWER_COLOUR))
    return view
