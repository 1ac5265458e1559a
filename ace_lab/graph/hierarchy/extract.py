"""Stage 1 of the hierarchical build: entities and relations, one LLM call per chunk.

Each chunk yields entities (name, type, description) and relations (source, target,
description, strength 1-10); unusable output is the documented default, no entities.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ace_lab.data import Chunk
from ace_lab.graph.compact import extract_hierarchical
from ace_lab.graph.hierarchy.config import HierarchyConfig
from ace_lab.graph.names import bounded_list, bounded_str
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

# Entities and relations are arrays, not objects: without repeated keys the model generates
# about 40 % fewer tokens per chunk, and generation is the dominant cost of a build.
EntityTuple = tuple[bounded_str(80), bounded_str(24), bounded_str(200)]  # name, type, description
RelationTuple = tuple[
    bounded_str(80), bounded_str(80), bounded_str(200), int
]  # src, tgt, desc, 1-10


def _extraction_schema(config: HierarchyConfig) -> type[BaseModel]:
    class EntityRelationExtraction(BaseModel):
        entities: bounded_list(EntityTuple, config.max_entities)
        relations: bounded_list(RelationTuple, config.max_relations)

    return EntityRelationExtraction


def extract_chunk(chunk: Chunk, llm: LLM, config: HierarchyConfig) -> dict[str, Any]:
    """Entities and relations of one chunk; on unusable output, no entities (the default).
    ``config.extraction == "compact"``: compact lines under a grammar (ace_lab.graph.compact)."""
    if config.extraction == "compact":
        return extract_hierarchical(chunk, llm, config)
    schema = _extraction_schema(config)
    result = llm.json(
        load_prompt("hirag_extract").messages(title=chunk.title, text=chunk.text),
        schema,
        tag="build.hirag.extract",
        default=lambda: schema(entities=[], relations=[]),
        max_tokens=config.extract_max_tokens,
    )
    value = result.value
    return {
        "entities": [{"name": n, "type": t, "description": d} for n, t, d in value.entities],
        "relations": [
            {"source": a, "target": b, "description": d, "strength": w}
            for a, b, d, w in value.relations
        ],
    }
