"""Small graphs for the tests: the toy corpus's chunks, hand-made tables (a four-entity chain, a
store's test tables) and the typed toy graph built with the scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ace_lab.config import Settings
from tests.support.extraction import typed_reply
from tests.support.scripted import ScriptedClient


def toy_chunk_list() -> list[Any]:
    """Every chunk of the toy corpus (the builders' test input)."""
    from ace_lab.data import chunk_passages, load_dataset

    return chunk_passages(load_dataset("toy").passages)


def _tiny_entity(i: str, name: str, chunk: str) -> dict:
    return {"id": i, "label": "Entity", "name": name, "source_ids": [chunk]}


def _tiny_edge(i: str, a: str, b: str, kind: str, weight: float = 1.0, **extra: Any) -> dict:
    return {"id": i, "source": a, "target": b, "type": kind, "weight": weight, **extra}


def tiny_tables() -> Any:
    """4 entities, 3 chunks: a chain Alpha–Beta–Gamma, Delta alone with its own chunk."""
    from ace_lab.graph.tables import GraphTables

    chunks = {
        "c1": "Alpha met Beta at the harbour.",
        "c2": "Gamma keeps the lighthouse records.",
        "c3": "Delta grows apples in the valley.",
    }
    nodes = [
        {"id": c, "label": "Chunk", "name": c.upper(), "description": t, "source_ids": [c]}
        for c, t in chunks.items()
    ]
    nodes += [
        _tiny_entity("a", "Alpha", "c1"),
        _tiny_entity("b", "Beta", "c1"),
        _tiny_entity("c", "Gamma", "c2"),
        _tiny_entity("d", "Delta", "c3"),
    ]
    edges = [
        _tiny_edge("r1", "a", "b", "RELATION", 2.0, predicate="met", source_ids=["c1"]),
        _tiny_edge("r2", "b", "c", "RELATION", 1.0, predicate="knows", source_ids=["c2"]),
        _tiny_edge("m1", "a", "c1", "MENTIONED_IN"),
        _tiny_edge("m2", "b", "c1", "MENTIONED_IN"),
        _tiny_edge("m3", "c", "c2", "MENTIONED_IN"),
        _tiny_edge("m4", "d", "c3", "MENTIONED_IN"),
    ]
    return GraphTables.from_records(nodes, edges, {"family": "openie"})


def small_tables() -> Any:
    """Three entities, a Person, a two-word schema type, two chunks; RELATED and MENTIONS."""
    from ace_lab.graph.tables import GraphTables

    nodes = [
        {"id": "e1", "label": "Entity", "name": "Set theory", "type": "field", "level": 0},
        {"id": "e2", "label": "Entity", "name": "Logic", "type": "field"},
        {"id": "e3", "label": "Entity", "name": "Create Labs", "type": "org"},
        {"id": "p1", "label": "Person", "name": "Georg Cantor", "source_ids": ["c1", "c2"]},
        {"id": "t1", "label": "Sports Team", "name": "Halle FC"},
        {"id": "c1", "label": "Chunk", "name": "Doc A", "description": 'Cantor\'s "set" text'},
        {"id": "c2", "label": "Chunk", "name": "Doc B", "description": "line one\nline two"},
    ]
    edges = [
        {"id": "r1", "source": "e1", "target": "e2", "type": "RELATED", "weight": 0.5},
        {"id": "r2", "source": "p1", "target": "e1", "type": "RELATED", "predicate": "founded"},
        {"id": "r3", "source": "t1", "target": "p1", "type": "RELATED"},
        {"id": "m1", "source": "c1", "target": "e1", "type": "MENTIONS", "source_ids": ["c1"]},
        {"id": "m2", "source": "c1", "target": "p1", "type": "MENTIONS"},
        {"id": "m3", "source": "c2", "target": "e2", "type": "MENTIONS"},
    ]
    return GraphTables.from_records(nodes, edges, {"family": "test"})


def build_typed_scripted(
    settings: Settings,
    run_dir: Path,
    chunks: Any,
    script: Any = typed_reply,
    config: Any = None,
    **kw: Any,
) -> tuple[Any, ScriptedClient]:
    """``build_typed`` over ``chunks`` with a scripted model; the graph and the client."""
    from ace_lab.graph.typed import TypedConfig, build_typed
    from ace_lab.llm import LLM

    client = ScriptedClient(script)
    graph = build_typed(
        chunks, LLM(settings, client=client), run_dir, config or TypedConfig(), progress=False, **kw
    )
    return graph, client
