"""The evidence subgraph: graph nodes behind an answer's evidence, coloured by branch, removed
items pale, built from evidence items and removal reasons only (any method's trace)."""

from __future__ import annotations

from ace_lab import viz
from ace_lab.evidence import Evidence
from ace_lab.graph.tables import GraphTables


def _tables() -> GraphTables:
    nodes = [{"id": f"ent:{i}", "name": f"E{i}"} for i in range(5)]
    edges = [
        {"id": f"r{i}", "source": f"ent:{i}", "target": f"ent:{i + 1}", "type": "RELATED"}
        for i in range(4)
    ]
    return GraphTables.from_records(nodes, edges)


def _item(i: str, nodes: tuple[str, ...], branch: str = "base", **meta) -> Evidence:
    return Evidence(i, "entity", f"text {i}", branch=branch, meta={"nodes": nodes, **meta})


def test_evidence_branch_reads_provenance_then_branch():
    assert viz.evidence_branch(_item("a", ())) == "base"
    assert viz.evidence_branch(_item("a", (), "depth")) == "depth"
    both = _item("a", (), provenance=["r0:base", "r1:depth", "r1:breadth"])
    assert viz.evidence_branch(both) == "both"
    assert viz.evidence_branch(_item("a", (), provenance=["r0:base", "r1:breadth"])) == "breadth"
    assert viz.evidence_branch(_item("a", (), "explorer")) == "explorer"  # other methods' names


def test_evidence_view_colours_by_branch_and_pales_removed_items():
    items = [
        _item("e0", ("ent:0",)),
        _item("e1", ("ent:1", "ent:2"), "depth"),
        _item("e2", ("ent:2", "ent:3", "missing"), "breadth"),  # ent:2 keeps its first branch
    ]
    view = viz.evidence_view(_tables(), items, {"e2": "over budget"}, title="naive: evidence")
    by_id = {n["id"]: n for n in view.nodes}
    assert set(by_id) == {"ent:0", "ent:1", "ent:2", "ent:3"}  # unknown ids are skipped
    assert by_id["ent:2"]["color"]["background"] == viz.BRANCH_COLOURS["depth"]
    assert by_id["ent:3"]["color"]["background"] == viz.pale(viz.BRANCH_COLOURS["breadth"])
    assert (
        "removed: over budget" in by_id["ent:3"]["title"]
        and "evidence e2" in by_id["ent:3"]["title"]
    )
    assert [e.text for e in view.legend][:3] == ["base", "depth", "breadth"]
    assert view.legend[-1].dashed and view.view_title == "naive: evidence"
    assert len(view.edges) == 3  # only the edges among the shown nodes


def test_evidence_view_without_removals_has_no_pale_entry():
    view = viz.evidence_view(_tables(), [_item("e0", ("ent:0", "ent:1"))], title="t")
    assert [e.text for e in view.legend] == ["base"]
