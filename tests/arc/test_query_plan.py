"""ace_lab.arc.query_plan: the JSON query plan's enums come from ``S_G`` (an unknown label, type
or property fails validation), and a plan compiles to Cypher in the grammar's language that runs
on the embedded store from the anchors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from ace_lab.arc.gbnf import Recognizer
from ace_lab.arc.grammar import query_grammar
from ace_lab.arc.query_plan import (
    compile_plan,
    cypher_reply_model,
    explorer_reply_model,
    plan_messages,
)
from ace_lab.arc.schema import schema_for
from ace_lab.llm.structured import schema_format
from ace_lab.prompts import load_prompt
from tests.support.arc_committed import ANCHOR, committed_graph

PLAN = {
    "start_label": "Person",
    "hops": [{"type": "BORN_IN", "direction": "out", "label": "any"}],
    "filters": [{"node": 1, "key": "name", "op": "contains", "value": "COPEN"}],
    "within_passages": False,
    "limit": 10,
}


@pytest.fixture(scope="module")
def graph() -> Any:
    g = committed_graph("query-plan/committed-typed")
    yield g
    g.close()


@pytest.fixture(scope="module")
def schema(graph: Any) -> Any:
    return schema_for(graph)[0]


def _enums(node, found=None):
    found = {} if found is None else found
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, dict) and "enum" in value:
                found.setdefault(key, set()).update(value["enum"])
            if isinstance(value, dict) and "const" in value:
                found.setdefault(key, set()).add(value["const"])
            _enums(value, found)
    elif isinstance(node, list):
        for value in node:
            _enums(value, found)
    return found


def test_the_schema_sent_names_only_the_graphs_labels_types_and_keys(schema):
    enums = _enums(schema_format(cypher_reply_model(schema))["json_schema"]["schema"])
    labels = {name for name, _ in schema.labels}
    assert enums["start_label"] == labels - {schema.passage_label}
    assert enums["label"] == labels | {"any"}
    assert enums["type"] == {name for name, _ in schema.rel_types} | {"any"}
    assert enums["key"] == {k for keys in schema.node_keys.values() for k in keys}
    narrowed = _enums(schema_format(cypher_reply_model(schema, ["Person"]))["json_schema"])
    assert narrowed["start_label"] == {"Person"}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("start_label", "Planet"),
        ("hops", [{"type": "ORBITS", "direction": "out", "label": "any"}]),
        ("hops", [{"type": "any", "direction": "out", "label": "Planet"}]),
        ("filters", [{"node": 0, "key": "birthplace", "op": "equals", "value": "x"}]),
    ],
)
def test_a_plan_naming_what_the_schema_lacks_is_rejected(schema, field, value):
    model = cypher_reply_model(schema)
    model.model_validate({"plan": PLAN})
    with pytest.raises(ValidationError):
        model.model_validate({"plan": {**PLAN, field: value}})


def test_a_plan_compiles_to_a_query_of_the_grammar_that_runs_from_the_anchors(graph, schema):
    plan = cypher_reply_model(schema).model_validate({"plan": PLAN}).plan
    cypher = compile_plan(plan, schema)
    assert cypher.startswith("MATCH (a:`Person`)-[r:`BORN_IN`]->(b) WHERE a.`id` IN $anchors")
    assert Recognizer(query_grammar(schema)).accepts(cypher)
    assert "$anchors" not in compile_plan(plan, schema, anchored=False)  # Direct-Cypher's
    rows = graph.store.read(
        cypher, {"anchors": [ANCHOR], "chunk_ids": []}, timeout_ms=10_000, max_rows=50
    ).rows
    assert [r["b"]["name"] for r in rows] == ["Copenhagen"]
    scoped = compile_plan(plan.model_copy(update={"within_passages": True}), schema)
    assert "$chunk_ids" in scoped and Recognizer(query_grammar(schema)).accepts(scoped)
    assert not graph.store.read(
        scoped, {"anchors": [ANCHOR], "chunk_ids": []}, timeout_ms=10_000, max_rows=50
    ).rows  # no retrieved passage holds the edge


def test_an_explorer_plan_may_search_by_name_away_from_the_anchors(graph, schema):
    turn = explorer_reply_model(schema).model_validate(
        {
            "plans": [
                {
                    **PLAN,
                    "hops": [],
                    "from_anchors": False,
                    "filters": [
                        {"node": 0, "key": "name", "op": "starts with", "value": "Carsten"}
                    ],
                }
            ],
            "descriptors": ["born in"],
        }
    )
    cypher = compile_plan(turn.plans[0], schema)
    assert "$anchors" not in cypher
    rows = graph.store.read(cypher, {}, timeout_ms=10_000, max_rows=50).rows
    assert ANCHOR in {r["a"]["id"] for r in rows}


def test_plan_messages_swap_only_the_reply_format():
    messages = load_prompt("arc_cypher").messages(
        schema="S", interface="I", question="Q", answer_type="T", subplan="P", anchors="A"
    )
    swapped = plan_messages(messages, "arc_query_plan")
    assert swapped[1] == messages[1]
    head = messages[0]["content"].split("Reply with JSON only")[0].rstrip()
    assert swapped[0]["content"].startswith(head) and '"plan"' in swapped[0]["content"]
    assert '{"cypher"' not in swapped[0]["content"]
