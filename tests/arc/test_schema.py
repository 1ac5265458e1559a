"""ace_lab.arc.schema: ``S_G`` by introspection on both families, cached per graph; and the scan
that keeps every label, type and property of our own constructions out of arc/ and its prompts."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

from ace_lab.arc.execute import query_log
from ace_lab.arc.schema import introspect, schema_for
from ace_lab.graph.seeds import STRUCTURAL_EDGE_TYPES
from ace_lab.graph.store.load_plan import EDGE_PROPERTIES, NODE_PROPERTIES
from ace_lab.trace import Trace
from tests.support.paths import REPO

ROOT = REPO / "ace_lab"
#: Property keys that are also ordinary words of code; searched only as Cypher would use them.
GENERIC_KEYS = {"id", "name", "type"}


def test_typed_graph_keeps_relations_in_types(typed_graph):
    schema, _ = schema_for(typed_graph)
    labels = dict(schema.labels)
    assert set(labels) == set(typed_graph.tables.nodes["label"])
    assert dict(schema.rel_types) == typed_graph.tables.edges["type"].value_counts().to_dict()
    assert schema.relation_property is None and schema.descriptor("r") == "type(r)"
    # the passage store's ids name nodes: that property is the identifier, their label passages
    passages = typed_graph.indexes.get("passages").ids
    assert schema.key is not None and schema.passage_label is not None
    ids = typed_graph.tables.nodes.set_index(schema.key)
    assert set(ids.loc[list(passages), "label"]) == {schema.passage_label}
    assert schema.chunk_backed and schema.provenance_is_list
    assert schema.text_key is not None and schema.text_key != schema.key


def test_openie_graph_keeps_relations_in_an_edge_property(openie_graph):
    schema, _ = schema_for(openie_graph)
    assert schema.relation_property is not None
    edges = openie_graph.tables.edges
    texts = set(edges[schema.relation_property])
    assert "born in" in texts and "born in" not in {t for t, _ in schema.rel_types}
    assert schema.relation_property in schema.descriptor("r") and "type(r)" in schema.descriptor(
        "r"
    )
    assert schema.chunk_backed
    rendered = schema.render()
    assert "edge property" in rendered and schema.scope("r") in rendered


def test_introspection_is_cached_and_its_queries_recorded(typed_graph, openie_graph):
    first, _ = schema_for(openie_graph)
    again, cached = schema_for(openie_graph)
    assert cached and again is first
    trace = Trace()
    with trace.activate(), trace.step("schema", kind="schema") as step, query_log() as log:
        fresh = introspect(typed_graph.store, typed_graph.indexes.get("passages").ids[:5])
    assert fresh.labels == schema_for(typed_graph)[0].labels
    assert step.queries and log and all(q.error is None for q in log)


def test_a_graph_without_passage_store_is_not_chunk_backed(typed_graph):
    schema = introspect(typed_graph.store)  # no text store to match ids against
    assert not schema.chunk_backed and schema.passage_label is None
    assert schema.scope("r") == "true"


class Weakable(SimpleNamespace):
    """A stand-in graph (``schema_for`` caches per graph in a weak dictionary)."""

    __hash__ = object.__hash__


def test_provenance_is_read_against_every_passage_id(typed_graph, monkeypatch):
    ids = list(typed_graph.indexes.get("passages").ids)
    # one id of three: most edges' provenance is not in it, so the graph looks row-only
    assert not introspect(typed_graph.store, ids[:1]).chunk_backed
    assert introspect(typed_graph.store, ids).chunk_backed
    seen = {}
    many = tuple(f"p{i}" for i in range(50))
    graph = Weakable(store=typed_graph.store, indexes={"passages": SimpleNamespace(ids=many)})
    monkeypatch.setattr(
        "ace_lab.arc.schema.introspect", lambda store, ids, *rest: seen.setdefault("ids", ids)
    )
    schema_for(graph)
    assert tuple(seen["ids"]) == many  # all 50, not a sample


# ----------------------------------------------------------------- construction-name scan
def construction_names(*graphs) -> tuple[set[str], set[str]]:
    """(labels and relationship types, property keys) our constructions use."""
    names = {"Chunk", "Entity", "Community", "Summary", "RELATION", "RELATED"}
    names |= set(STRUCTURAL_EDGE_TYPES)
    for graph in graphs:
        names |= set(graph.tables.nodes["label"]) | set(graph.tables.edges["type"])
        names |= {str(t) for t in graph.tables.nodes["type"] if str(t)}
    return names, set(NODE_PROPERTIES) | set(EDGE_PROPERTIES)


def arc_files() -> list[Path]:
    prompts = ROOT / "prompts"
    files = sorted((ROOT / "arc").glob("*.py"))
    return files + sorted(prompts.glob("arc_*.txt")) + sorted(prompts.glob("direct_cypher*.txt"))


def literals(source: str) -> list[str]:
    """String constants of a module, docstrings left out (prose may say "name")."""
    tree = ast.parse(source)
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def offending(text: str, code_literals: list[str] | None, names: set[str], keys: set[str]):
    found = [n for n in names if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)]
    pieces = [text] if code_literals is None else code_literals
    for piece in pieces:
        for key in keys - GENERIC_KEYS:
            if re.search(rf"(?<![\w]){key}(?![\w])", piece):
                found.append(key)
        for key in keys & GENERIC_KEYS:
            if piece.strip() == key or re.search(rf"(\w\.|\{{\s*|`){key}(?![\w(])", piece):
                found.append(key)
    return sorted(set(found))


def test_arc_code_and_prompts_name_nothing_of_our_constructions(typed_graph, openie_graph):
    names, keys = construction_names(typed_graph, openie_graph)
    assert {"Chunk", "MENTIONED_IN", "Person", "BORN_IN"} <= names and "source_ids" in keys
    files = arc_files()
    assert len(files) >= 15
    bad = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        code = literals(text) if path.suffix == ".py" else None
        hits = offending(text, code, names, keys)
        if hits:
            bad[path.name] = hits
    assert bad == {}


def test_the_scan_catches_what_it_is_for():
    names, keys = {"Chunk", "MENTIONED_IN"}, {"source_ids", "name", "id"}
    src = 'q = "MATCH (c:Chunk) RETURN c.name"\nk = "id"\n'
    assert offending(src, literals(src), names, keys) == ["Chunk", "id", "name"]
    prompt = "Follow MENTIONED_IN edges; filter on r.source_ids."
    assert offending(prompt, None, names, keys) == ["MENTIONED_IN", "source_ids"]
    clean = 'def f(self):\n    """The name of a node."""\n    return self.name\n'
    assert offending(clean, literals(clean), names, keys) == []
