"""Stage 2 of the typed build: one enum-constrained extraction call per chunk.

Each chunk's triples are cleaned (names trimmed; empty ends and self-loops dropped) and stored
with the schema's fingerprint in ``typed_extract.jsonl``, so records made under another schema
are never mixed in. An unparseable answer is the documented fallback: no triples from the chunk.
"""

from __future__ import annotations

from typing import Any

from ace_lab.data import Chunk
from ace_lab.graph.compact import extract_typed
from ace_lab.graph.names import normalise_name
from ace_lab.graph.typed.config import TRIPLE_KEYS, TypedConfig
from ace_lab.graph.typed.models import output_models
from ace_lab.graph.typed.schema import InducedSchema
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt


def clean_triple(triple: dict[str, Any]) -> dict[str, str] | None:
    """The triple with trimmed names; None if an end is empty or both ends are one entity."""
    out = {k: " ".join(str(triple[k]).split()) for k in TRIPLE_KEYS}
    s_key, o_key = normalise_name(out["subject"]), normalise_name(out["object"])
    return out if s_key and o_key and s_key != o_key else None


def prompt_passage(chunk: Chunk) -> dict[str, str]:
    return {"title": chunk.title, "text": chunk.text}


def prompt_vocabulary(schema: InducedSchema) -> dict[str, str]:
    return {
        "node_types": ", ".join(schema.node_types),
        "relation_types": ", ".join(schema.relation_types),
    }


def schema_vocabulary(schema: InducedSchema) -> dict[str, list[str]]:
    """The schema's node and relation types, as the compact grammar enumerates them."""
    return {
        "node_types": list(schema.node_types),
        "relation_types": list(schema.relation_types),
    }


def extractor(llm: LLM, schema: InducedSchema, config: TypedConfig):
    model = output_models(schema, config).extraction
    vocabulary = prompt_vocabulary(schema)

    def extract(chunk: Chunk) -> dict[str, Any]:
        if config.extraction == "compact":  # compact lines under a grammar (graph.compact)
            found = extract_typed(chunk, llm, config, schema_vocabulary(schema))
            triples = [t for t in (clean_triple(x) for x in found) if t]
            return {"triples": triples, "schema": schema.fingerprint}
        messages = load_prompt("typed_extract").messages(**vocabulary, **prompt_passage(chunk))
        out = llm.json(
            messages,
            model,
            tag="graph.typed.extract",
            default=lambda: model(triples=[]),  # documented fallback: nothing from this chunk
            attempts=config.attempts,
            max_tokens=config.extract_max_tokens,
        ).value
        triples = [t for t in (clean_triple(x.model_dump()) for x in out.triples) if t]
        return {"triples": triples, "schema": schema.fingerprint}

    return extract
