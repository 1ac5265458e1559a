"""ace_lab.mosaic.select: roles first, budget cap, preservation floor, per-target restore and
source windows, on hand-made explorations over the tiny graph."""

from __future__ import annotations

import numpy as np

from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.scoring import Path
from ace_lab.mosaic.select import select, source_windows
from ace_lab.mosaic.traverse import DepthRecord, Exploration
from ace_lab.mosaic.view import GraphView


def exploration(*paths: Path) -> Exploration:
    return Exploration([], [DepthRecord(1, len(paths), list(paths), [])], "converged", [])


def path(nodes: str, edges: tuple[str, ...], region: str, score: float, **kw) -> Path:
    return Path(tuple(nodes), edges, region, score, **kw)


def test_selection_restores_the_preservation_floor(tiny_graph):
    view = GraphView(tiny_graph)
    # One strong path of target T, one weak one: its new items (r2, c) are weak support.
    found = exploration(path("ab", ("r1",), "T", 1.0), path("abc", ("r1", "r2"), "T", 0.1))
    policy = ExplorationPolicy(
        per_target=True, targets=("T",), evidence_budget=8, preservation_floor=4
    )
    chosen = select(view, found, policy)
    assert len(chosen.kept) == 4 == policy.preservation_floor  # 3 core + 1 restored
    assert [e.meta["role"] for e in chosen.kept[:3]] == ["core"] * 3
    assert len(chosen.restored) == 1 and chosen.restored[0] in {"r2", "c"}
    assert {e.id for e, why in chosen.dropped} == {"r2", "c"} - set(chosen.restored)
    assert all(why == "weak" for _, why in chosen.dropped)
    # A floor of 2 is already met: nothing is restored.
    lower = select(
        view, found, ExplorationPolicy(per_target=True, targets=("T",), preservation_floor=2)
    )
    assert len(lower.kept) == 3 and not lower.restored


def test_budget_caps_and_a_target_keeps_an_item(tiny_graph):
    view = GraphView(tiny_graph)
    strong = [path("ab", ("r1",), "T", 1.0), path("abc", ("r1", "r2"), "T", 0.9)]
    weak_u = path("cb", ("r2",), "U", 0.2)
    found = exploration(*strong, weak_u)
    policy = ExplorationPolicy(
        per_target=True, targets=("T", "U"), evidence_budget=8, preservation_floor=2
    )
    chosen = select(view, found, policy)
    assert len(chosen.kept) <= policy.evidence_budget
    assert {e.meta["region"] for e in chosen.kept} >= {"T", "U"}
    assert len({e.id for e in chosen.kept}) == len(chosen.kept)  # de-duplicated


def test_roles_order_core_then_complementary_then_support(tiny_graph):
    view = GraphView(tiny_graph)
    found = exploration(
        path("ab", ("r1",), "a", 0.9),
        path("bc", ("r2",), "b", 0.8, view="connector", joins=("b", "a")),
    )
    chosen = select(view, found, ExplorationPolicy())
    roles = [e.meta["role"] for e in chosen.kept]
    assert roles == sorted(roles, key=["core", "complementary", "support"].index)


def test_source_windows_add_cited_chunks_and_their_neighbours(tiny_graph):
    view = GraphView(tiny_graph)
    chosen = select(view, exploration(path("ab", ("r1",), "a", 1.0)), ExplorationPolicy())
    qvec = np.zeros(view.graph.embedder.dim or 384, dtype=np.float32)
    passages = source_windows(view, chosen.kept, qvec, ExplorationPolicy(), passages=4)
    assert [e.id for e in passages] == ["c1"] and passages[0].kind == "passage"
    assert source_windows(view, chosen.kept, qvec, ExplorationPolicy(), passages=0) == []


def test_window_takes_neighbouring_chunks_of_the_same_document():
    from ace_lab.mosaic.select import _window

    nodes = {"d#0": 0, "d#1": 1, "d#2": 2, "d#3": 3, "e#1": 4}
    assert _window("d#1", 1, nodes) == ["d#0", "d#1", "d#2"]
    assert _window("d#0", 2, nodes) == ["d#0", "d#1", "d#2"]
    assert _window("d#1", 0, nodes) == ["d#1"] and _window("plain", 2, nodes) == ["plain"]


def test_list_answers_keep_the_anchors_sibling_relations(tiny_graph):
    view = GraphView(tiny_graph)
    found = exploration(
        path("ab", ("r1",), "a", 1.0),
        path("ba", ("r1",), "b", 0.9),
        path("bc", ("r2",), "a", 0.3),  # a weak one-hop sibling: support unless a list is asked
    )
    single = select(view, found, ExplorationPolicy(preservation_floor=2))
    assert {"r2", "c"}.isdisjoint(e.id for e in single.kept)
    assert {e.id: why for e, why in single.dropped} == {"r2": "weak", "c": "weak"}
    listed = select(view, found, ExplorationPolicy(preservation_floor=2, cardinality="list"))
    role = {e.id: e.meta["role"] for e in listed.kept}
    assert role["r2"] == role["c"] == "complementary"
