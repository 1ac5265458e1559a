"""ace_lab.graph.compact: compact extraction lines under a GBNF grammar, for the hierarchical,
OpenIE and typed families, on scripted replies (the grammar is checked with ArcRAG's GBNF
recognizer; a scripted client only shows what is sent and what is parsed)."""

from __future__ import annotations

import json

import pytest

from ace_lab.arc.gbnf import Recognizer
from ace_lab.data import Chunk
from ace_lab.graph.compact import (
    HIERARCHICAL,
    OPENIE,
    TYPED,
    extract_hierarchical,
    extract_openie,
    extract_typed,
    extraction_label,
    grammar,
    parse_lines,
)
from ace_lab.graph.hierarchy import HierarchyConfig
from ace_lab.graph.openie import OpenIEConfig
from ace_lab.graph.typed import TypedConfig
from ace_lab.prompts import load_prompt
from tests.support.extraction import hierarchy_reply
from tests.support.scripted import scripted_llm

CHUNK = Chunk("c1", "p1", "Ada", "Ada Lovelace worked with Charles Babbage in London.", 0)
ENUMS = {"subject_type": ["Person"], "object_type": ["Person", "Place"], "relation": ["MET"]}


def test_the_grammars_accept_compact_lines_and_nothing_else() -> None:
    hier = Recognizer(grammar(HIERARCHICAL))
    assert hier.accepts("E|Ada|PERSON|A mathematician.\nR|Ada|London|Ada lived in London.|10\n")
    assert hier.accepts("")  # no item at all is a reply too
    assert not hier.accepts('{"entities": []}')
    assert not hier.accepts("R|Ada|London|lived|11\n")  # strength is 1-10
    assert not hier.accepts("E|Ada|PERSON\n")  # a field short
    assert Recognizer(grammar(OPENIE)).accepts("E|Ada\nT|Ada|met|Charles Babbage\n")
    typed = Recognizer(grammar(TYPED, ENUMS))
    assert typed.accepts("T|Ada|Person|MET|London|Place\n")
    assert not typed.accepts("T|Ada|Person|LIVED_IN|London|Place\n")  # not in the schema
    assert "{" not in grammar(HIERARCHICAL)  # no bounded repetition (slow in llama.cpp)


def test_parse_lines_keeps_well_formed_lines_only() -> None:
    text = "E|Ada|PERSON|x\nnoise\nE| |PERSON|x\ne|Bob|PERSON| y \nR|a|b|c\nE|A|B|C|D\n"
    found = parse_lines(text, HIERARCHICAL)
    assert found == {
        "E": [
            {"name": "Ada", "type": "PERSON", "description": "x"},
            {"name": "Bob", "type": "PERSON", "description": "y"},
        ],
        "R": [],
    }


def test_extraction_label_keeps_json_graphs_where_they_were() -> None:
    assert extraction_label("qwen1.5b", "json") == "qwen1.5b"
    assert extraction_label("qwen1.5b", "compact") == "qwen1.5b-compact"
    with pytest.raises(ValueError, match="unknown extraction format"):
        extraction_label("qwen1.5b", "yaml")


def test_hierarchical_compact_extraction_sends_the_grammar_and_bounds_the_items(settings):
    reply = (
        "E|Ada Lovelace|PERSON|Mathematician.\nE|London|LOCATION|A city.\n"
        "R|Ada Lovelace|London|Ada worked in London.|12\nR|x|y|z|3\n"
    )
    llm = scripted_llm(settings, [reply])
    config = HierarchyConfig(extraction="compact", max_entities=1, max_relations=1)
    out = extract_hierarchical(CHUNK, llm, config)
    assert out == {
        "entities": [{"name": "Ada Lovelace", "type": "PERSON", "description": "Mathematician."}],
        "relations": [
            {
                "source": "Ada Lovelace",
                "target": "London",
                "description": "Ada worked in London.",
                "strength": 10,
            }
        ],
    }
    sent = llm.client().requests[0]
    assert sent["extra_body"] == {"grammar": grammar(HIERARCHICAL)}
    assert sent["max_tokens"] == config.extract_max_tokens
    assert sent["messages"][0]["content"] == load_prompt("hirag_extract_compact").system


def test_openie_and_typed_compact_extractions(settings) -> None:
    llm = scripted_llm(
        settings,
        [
            "E|Ada Lovelace\nE|Charles Babbage\nT|Ada Lovelace|worked with|Charles Babbage\n",
            "T|Ada|Person|MET|Charles|Person\nT|Ada|Person|LIVED_IN|London|Place\n",
        ],
    )
    entities, triples = extract_openie(CHUNK, llm, OpenIEConfig(extraction="compact"))
    assert entities == ["Ada Lovelace", "Charles Babbage"]
    assert triples == [["Ada Lovelace", "worked with", "Charles Babbage"]]
    vocabulary = {"node_types": ["Person", "Place"], "relation_types": ["MET"]}
    found = extract_typed(CHUNK, llm, TypedConfig(extraction="compact"), vocabulary)
    assert [t["relation"] for t in found] == ["MET"]  # LIVED_IN is not in the schema
    typed_grammar = llm.client().requests[1]["extra_body"]["grammar"]
    assert '"MET"' in typed_grammar and '"Place"' in typed_grammar


def test_without_a_grammar_the_same_prompt_goes_alone(settings) -> None:
    remote = settings.with_llm(base_url="http://endpoint.invalid/v1", model="m")
    llm = scripted_llm(remote, ["E|Ada|PERSON|x\n"])
    assert extract_hierarchical(CHUNK, llm, HierarchyConfig(extraction="compact"))["entities"]
    assert "extra_body" not in llm.client().requests[0]


def _compact_hierarchy_reply(kwargs: dict) -> str:
    """The scripted hierarchy model, its extraction answered in compact lines."""
    if kwargs["messages"][0]["content"] != load_prompt("hirag_extract_compact").system:
        return hierarchy_reply(kwargs)
    found = json.loads(hierarchy_reply(kwargs))  # the same "model", another format
    lines = [f"E|{n}|{t}|{d}" for n, t, d in found["entities"]]
    lines += [f"R|{a}|{b}|{d}|{w}" for a, b, d, w in found["relations"]]
    return "\n".join(lines) + "\n"


def test_a_compact_build_is_its_own_graph_beside_the_json_one(settings) -> None:
    from ace_lab.graph.build import build_graph, extraction_config, load_graph

    llm = scripted_llm(settings, _compact_hierarchy_reply)
    config = extraction_config("hierarchical", "compact")
    tables, out = build_graph(
        "toy", 3, "hierarchical", settings=settings, llm=llm, progress=False, config=config
    )
    assert out.name.endswith("-compact") and tables.meta["extraction"] == "compact"
    assert "--extraction compact" in tables.meta["regenerate"]
    assert len(tables.nodes) > 0
    json_llm = scripted_llm(settings, hierarchy_reply)
    plain, json_out = build_graph(
        "toy", 3, "hierarchical", settings=settings, llm=json_llm, progress=False
    )
    assert json_out != out and plain.meta["extraction"] == "json"
    # the same entities either way (the scripted model says the same in both formats)
    names = {frozenset(t.nodes.loc[t.nodes["label"] == "Entity", "name"]) for t in (tables, plain)}
    assert len(names) == 1
    loaded, _ = load_graph("toy", 3, "hierarchical", model=out.name, settings=settings)
    assert loaded.meta["extraction"] == "compact"
