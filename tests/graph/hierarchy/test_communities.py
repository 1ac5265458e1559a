"""ace_lab.graph.hierarchy.communities: seeded Leiden over the weighted entity graph."""

from __future__ import annotations

from ace_lab.graph.hierarchy import leiden_communities


def test_leiden_is_deterministic_and_separates_cliques():
    ids = [f"a{i}" for i in range(4)] + [f"b{i}" for i in range(4)]
    edges = [(f"a{i}", f"a{j}", 1.0) for i in range(4) for j in range(i + 1, 4)]
    edges += [(f"b{i}", f"b{j}", 1.0) for i in range(4) for j in range(i + 1, 4)]
    edges += [("a0", "b0", 0.1)]
    first = leiden_communities(ids, edges, seed=0)
    assert first == leiden_communities(ids, edges, seed=0)
    assert sorted(map(sorted, first)) == [[f"a{i}" for i in range(4)], [f"b{i}" for i in range(4)]]
