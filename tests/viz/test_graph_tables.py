"""Small tables about a graph for the notebooks."""

from __future__ import annotations

from types import SimpleNamespace

from ace_lab import viz
from ace_lab.graph.tables import GraphTables
from ace_lab.index.hybrid import Hit


def _tables() -> GraphTables:
    nodes = [{"id": f"e{i}", "name": f"E{i}"} for i in range(4)]
    nodes += [
        {"id": "com:0", "label": "Community", "name": "Big", "description": "report 0"},
        {"id": "com:1", "label": "Community", "name": "Small", "description": "report 1"},
    ]
    edges = [
        {"id": f"c{i}", "source": f"e{i}", "target": f"com:{int(i == 3)}", "type": "IN_COMMUNITY"}
        for i in range(4)
    ]
    edges += [{"id": "s", "source": "e0", "target": "e1", "type": "SYNONYM", "weight": 0.87654}]
    meta = {"schema": {"node_types": ["Person", "Place"], "relation_types": ["BORN_IN"]}}
    return GraphTables.from_records(nodes, edges, meta=meta)


def test_community_reports_are_sorted_by_size():
    reports = viz.community_reports(_tables())
    assert list(reports.index) == ["com:0", "com:1"] and list(reports["members"]) == [3, 1]
    assert list(reports.columns) == ["name", "description", "members"]
    assert len(viz.community_reports(_tables(), top=1)) == 1


def test_induced_schema_and_synonym_pairs():
    schema = viz.induced_schema(_tables())
    assert list(schema["node types"]) == ["Person", "Place"]
    assert list(schema["relation types"]) == ["BORN_IN", ""]
    pairs = viz.synonym_pairs(_tables())
    assert pairs.to_dict("records") == [{"a": "E0", "b": "E1", "cosine": 0.877}]


def test_introspection_table_has_one_column_per_graph():
    schema = SimpleNamespace(node_labels=("A", "B"), relationship_types=("R",), property_keys=())
    table = viz.introspection_table({"openie": schema, "typed": schema})
    assert list(table.columns) == ["openie", "typed"]
    assert (
        table.loc["node labels", "typed"] == "A, B" and table.loc["property keys", "openie"] == ""
    )


def test_seed_hits_marks_supporting_passages():
    passages = SimpleNamespace(
        search=lambda q, k: [Hit("p1", 0.123456, 1, None), Hit("p2", 0.1, None, 2)][:k],
        text=lambda doc: f"text of {doc} " * 20,
    )
    question = SimpleNamespace(question="q?", supporting_ids=("p2",))
    hits = viz.seed_hits(SimpleNamespace(passages=passages), question, k=2, width=10)
    assert list(hits["supporting"]) == [False, True] and list(hits["score"]) == [0.1235, 0.1]
    assert hits["text"].str.len().max() == 10 and hits["dense_rank"].iloc[0] == 1
