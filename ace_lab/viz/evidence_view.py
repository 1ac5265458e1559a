"""The evidence subgraph of one answer: the graph nodes behind its evidence, coloured by the
branch that found them (base, Depth, Breadth, or both), removed items pale.

It reads evidence items and the removal reasons (``Trace.all_evidence()`` and
``Trace.removed()``), so it works for every method whose items name their graph nodes in
``meta["nodes"]``; a method without branches shows everything as ``base``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ace_lab.evidence import Evidence
from ace_lab.graph.tables import GraphTables
from ace_lab.viz.network import GraphView, pyvis_view
from ace_lab.viz.palette import BRANCH_COLOURS


def evidence_branch(item: Evidence) -> str:
    """Where ``item`` was found: ``base``, one branch name (``depth``, ``breadth`` or another
    method's, e.g. ``explorer``, which gets a stable colour), or ``both`` (several branches)."""
    found = {p.split(":", 1)[1] for p in item.meta.get("provenance", [f"r0:{item.branch}"])}
    branches = found - {"base"}
    if len(branches) > 1:
        return "both"
    if branches:
        return branches.pop()
    return "base"


def evidence_nodes(
    tables: GraphTables, items: Sequence[Evidence], removed: Mapping[str, str]
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Graph node id → branch, → removal reason (pale nodes) and → tooltip note, taken from
    the first item that names each node (items in trace order)."""
    known = set(tables.nodes["id"])
    branch: dict[str, str] = {}
    pale: dict[str, str] = {}
    notes: dict[str, str] = {}
    for item in items:
        for node in item.meta.get("nodes", ()):
            if node in known and node not in branch:
                branch[node] = evidence_branch(item)
                notes[node] = f"evidence {item.id} ({item.kind}, round {item.round})"
                if item.id in removed:
                    pale[node] = removed[item.id]
    return branch, pale, notes


def evidence_view(
    tables: GraphTables,
    items: Sequence[Evidence],
    removed: Mapping[str, str] | None = None,
    *,
    title: str,
    height: str = "600px",
) -> GraphView:
    """The pyvis view of the nodes behind ``items`` and the edges among them, coloured by
    branch with a legend; nodes of ``removed`` items (id → reason) are pale and dashed."""
    branch, pale, notes = evidence_nodes(tables, items, removed or {})
    nodes = tables.nodes[tables.nodes["id"].isin(branch)]
    edges = tables.edges
    edges = edges[edges["source"].isin(branch) & edges["target"].isin(branch)]
    caption = f"{len(nodes)} nodes behind {len(items)} evidence items · hover for the text"
    return pyvis_view(
        nodes,
        edges,
        title=title,
        colour_by=branch,
        palette=BRANCH_COLOURS,
        pale_nodes=pale,
        pale_legend="removed by a later step (pale, dashed)",
        notes=notes,
        caption=caption,
        height=height,
    )
