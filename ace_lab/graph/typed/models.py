"""The typed family's LLM output models, built from the induced schema.

Types and relations are enums in the JSON schema, so a server with a grammar cannot leave the
schema; near-misses from a server without one ("person", "born in") are mapped onto the schema's
spelling instead of failing the answer. Models are cached per (schema, config): the bounds and
the vocabulary are part of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, create_model

from ace_lab.graph.names import bounded_list, bounded_str
from ace_lab.graph.typed.config import TypedConfig
from ace_lab.graph.typed.schema import InducedSchema, pascal_case, upper_snake


def _enum(values: Sequence[str], canonical: Callable[[str], str]) -> Any:
    """A ``Literal`` of ``values`` (an enum in the JSON schema) that also accepts near-misses.

    "person" or "born in" from a server without a grammar map onto "Person" / "BORN_IN" instead
    of failing the whole answer.
    """
    lookup = {canonical(v): v for v in values}

    def coerce(value: Any) -> Any:
        return lookup.get(canonical(value), value) if isinstance(value, str) else value

    return Annotated[Literal[tuple(values)], BeforeValidator(coerce)]


@dataclass(frozen=True)
class _Models:
    triple: type[BaseModel]
    extraction: type[BaseModel]


@cache
def output_models(schema: InducedSchema, config: TypedConfig) -> _Models:
    node = _enum(schema.node_types, pascal_case)
    rel = _enum(schema.relation_types, upper_snake)
    name = bounded_str(config.max_name_chars)
    triple = create_model(
        "TypedTriple",
        subject=(name, ...),
        subject_type=(node, ...),
        relation=(rel, ...),
        object=(name, ...),
        object_type=(node, ...),
    )
    extraction = create_model(
        "TypedExtraction", triples=(bounded_list(triple, config.max_triples), ...)
    )
    return _Models(triple, extraction)


@cache
def reflection_model(schema: InducedSchema, config: TypedConfig, n: int) -> type[BaseModel]:
    """Exactly one verdict per triple (the grammar enforces the count) and at most n repairs."""
    node = _enum(schema.node_types, pascal_case)
    rel = _enum(schema.relation_types, upper_snake)
    name = bounded_str(config.max_name_chars)
    repair = create_model(
        "Repair",
        n=(Literal[tuple(range(1, n + 1))], ...),
        subject=(name, ...),
        subject_type=(node, ...),
        relation=(rel, ...),
        object=(name, ...),
        object_type=(node, ...),
    )
    verdict = Literal["keep", "drop", "repair"]
    verdicts = Annotated[list[verdict], Field(json_schema_extra={"minItems": n, "maxItems": n})]
    return create_model(
        "Reflection",
        verdicts=(verdicts, ...),
        repairs=(bounded_list(repair, n), ...),
    )
