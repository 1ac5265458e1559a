"""Stage 1 of the typed build: induce a closed schema from a spread sample of the corpus.

One LLM call proposes entity types and relation types from ``schema_sample_chunks`` chunks spread
evenly through the corpus; they are sanitised to Cypher-safe identifiers (PascalCase labels,
UPPER_SNAKE relations), de-duplicated and capped, and saved as ``typed_schema.json`` so that a
restarted build extracts against the same schema. Too thin a proposal falls back to a built-in
encyclopedic schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, create_model

from ace_lab.data import Chunk
from ace_lab.evidence import Trace
from ace_lab.graph.names import bounded_list, bounded_str, short_hash
from ace_lab.graph.typed.config import (
    DEFAULT_CONFIG,
    FALLBACK_NODE_TYPES,
    FALLBACK_RELATION_TYPES,
    RESERVED_LABELS,
    RESERVED_RELATIONS,
    SCHEMA_FILE,
    TypedConfig,
)
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

_WORDS = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def pascal_case(text: str) -> str:
    """A Cypher-safe node label: "sports team" → "SportsTeam" ("" if no letter leads)."""
    words = _WORDS.findall(str(text))
    label = "".join(w[0].upper() + (w[1:].lower() if w.isupper() else w[1:]) for w in words)
    return label if label[:1].isalpha() else ""


def upper_snake(text: str) -> str:
    """A Cypher-safe relationship type: "works for" / "worksFor" → "WORKS_FOR"."""
    words = _WORDS.findall(_CAMEL.sub(" ", str(text)))
    rel = "_".join(w.upper() for w in words)
    return rel if rel[:1].isalpha() else ""


@dataclass(frozen=True)
class InducedSchema:
    """The closed vocabulary extraction is held to; ``fallback`` marks the built-in one."""

    node_types: tuple[str, ...]
    relation_types: tuple[str, ...]
    fallback: bool = False
    sample_chunk_ids: tuple[str, ...] = ()
    cost: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def default(cls, **kwargs: Any) -> InducedSchema:
        return cls(FALLBACK_NODE_TYPES, FALLBACK_RELATION_TYPES, fallback=True, **kwargs)

    @classmethod
    def sanitised(
        cls, node_types: Sequence[str], relation_types: Sequence[str], config: TypedConfig
    ) -> InducedSchema | None:
        """Cypher-safe, de-duplicated, capped types; None when too few remain to extract with."""
        nodes = _unique(pascal_case(t) for t in node_types)
        nodes = [t for t in nodes if t not in RESERVED_LABELS][: config.max_node_types]
        rels = _unique(upper_snake(t) for t in relation_types)
        rels = [t for t in rels if t not in RESERVED_RELATIONS][: config.max_relation_types]
        if len(nodes) < 2 or len(rels) < 2:
            return None
        return cls(tuple(nodes), tuple(rels))

    @property
    def fingerprint(self) -> str:
        return short_hash(*self.node_types, "|", *self.relation_types)

    def to_dict(self) -> dict[str, Any]:
        return {
            "node_types": list(self.node_types),
            "relation_types": list(self.relation_types),
            "fallback": self.fallback,
            "sample_chunk_ids": list(self.sample_chunk_ids),
            "cost": self.cost,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InducedSchema:
        return cls(
            tuple(data["node_types"]),
            tuple(data["relation_types"]),
            bool(data.get("fallback", False)),
            tuple(data.get("sample_chunk_ids", ())),
            dict(data.get("cost", {})),
        )


def _unique(items: Any) -> list[str]:
    return [t for t in dict.fromkeys(items) if t]


def sample_chunks(chunks: Sequence[Chunk], k: int) -> list[Chunk]:
    """``k`` chunks spread evenly through the corpus (the middle of each of ``k`` equal parts).

    Deterministic, and broader than the first ``k`` chunks, which often all describe one topic.
    """
    n = len(chunks)
    k = min(k, n)
    return [chunks[i] for i in sorted({(2 * j + 1) * n // (2 * k) for j in range(k)})]


@cache
def _schema_output(config: TypedConfig) -> type[BaseModel]:
    return create_model(
        "SchemaProposal",
        node_types=(bounded_list(bounded_str(32), config.max_node_types), ...),
        relation_types=(bounded_list(bounded_str(40), config.max_relation_types), ...),
    )


def induce_schema(
    chunks: Sequence[Chunk],
    llm: LLM,
    config: TypedConfig = DEFAULT_CONFIG,
) -> InducedSchema:
    """One LLM call on a spread sample of ``chunks``; the fallback schema if it gives too little."""
    sample = sample_chunks(chunks, config.schema_sample_chunks)
    if not sample:
        return InducedSchema.default()
    ids = tuple(c.id for c in sample)
    texts = "\n\n".join(
        f"[{i}] {c.title}\n{c.text[: config.schema_sample_chars]}" for i, c in enumerate(sample, 1)
    )
    messages = load_prompt("typed_schema").messages(
        max_node_types=config.max_node_types,
        max_relation_types=config.max_relation_types,
        samples=texts,
    )
    schema = _schema_output(config)
    trace = Trace()
    with trace.step("typed.schema"):
        result = llm.json(
            messages,
            schema,
            tag="graph.typed.schema",
            default=lambda: schema(node_types=[], relation_types=[]),
            attempts=config.attempts,
            max_tokens=config.schema_max_tokens,
        )
    calls = trace.llm_calls
    cost = {
        "stage": "typed_schema",
        "llm_calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "fallbacks": int(result.fallback),
    }
    value = result.value
    induced = InducedSchema.sanitised(value.node_types, value.relation_types, config)
    if induced is None:
        return InducedSchema.default(sample_chunk_ids=ids, cost=cost)
    return InducedSchema(induced.node_types, induced.relation_types, False, ids, cost)


def load_or_induce_schema(
    chunks: Sequence[Chunk], llm: LLM, run_dir: Path | str, config: TypedConfig
) -> InducedSchema:
    """The schema saved in ``run_dir``, or a newly induced one (then saved)."""
    path = Path(run_dir) / SCHEMA_FILE
    if path.is_file():
        return InducedSchema.from_dict(json.loads(path.read_text(encoding="utf-8")))
    schema = induce_schema(chunks, llm, config)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(schema.to_dict(), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)  # atomic: a killed build never leaves half a schema behind
    return schema
