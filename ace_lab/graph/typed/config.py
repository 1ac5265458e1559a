"""Typed-family settings: the build config, the run-folder files and the fallback vocabulary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ace_lab.bounded import Bounded, bounded

Reflection = Literal["suspicious", "all", "off"]
SCHEMA_FILE = "typed_schema.json"
EXTRACT_FILE = "typed_extract.jsonl"
REFLECT_FILE = "typed_reflect.jsonl"

#: Used when the induced schema cannot be parsed or is too thin to extract against: general
#: encyclopedic types and relations, with ``RELATED_TO`` as the catch-all.
FALLBACK_NODE_TYPES = ("Person", "Organization", "Location", "Work", "Event", "Date", "Concept")
FALLBACK_RELATION_TYPES = (
    "BORN_IN",
    "LOCATED_IN",
    "PART_OF",
    "MEMBER_OF",
    "WORKS_FOR",
    "FOUNDED",
    "CREATED",
    "OCCURRED_ON",
    "RELATED_TO",
)
#: Names the graph already uses for its own structure; the schema may not reuse them.
RESERVED_LABELS = frozenset({"Chunk"})
RESERVED_RELATIONS = frozenset({"MENTIONED_IN"})

TRIPLE_KEYS = ("subject", "subject_type", "relation", "object", "object_type")


@dataclass(frozen=True)
class TypedConfig(Bounded):
    """How typed graphs are built; the bounds cap every call's output (and so its cost).

    ``*_max_tokens`` only guard against a server that ignores the schema bounds: with a grammar
    the output cannot outgrow them. ``attempts`` is per call (one retry, then the default).
    """

    schema_sample_chunks: int = bounded(
        8, lo=1, hi=200, help="chunks the schema is induced from (one call)"
    )
    schema_sample_chars: int = bounded(600, lo=50, hi=10_000, help="characters shown per chunk")
    max_node_types: int = bounded(8, lo=1, hi=50, help="node types the schema may define")
    max_relation_types: int = bounded(12, lo=1, hi=100, help="relation types it may define")
    max_triples: int = bounded(10, lo=1, hi=100, help="typed triples per chunk")
    max_name_chars: int = bounded(64, lo=8, hi=512, help="longest entity name kept")
    reflection: Reflection = bounded(
        "suspicious",
        choices=("suspicious", "all", "off"),
        help="second pass that checks triples: on suspicious chunks, all, or off",
    )
    attempts: int = bounded(2, lo=1, hi=5, help="tries per call before the default")
    schema_max_tokens: int = bounded(384, lo=16, hi=8192, help="output cap of the schema call")
    extract_max_tokens: int = bounded(1024, lo=16, hi=8192, help="output cap of an extraction")
    extraction: str = bounded(
        "json",
        choices=("json", "compact"),
        help="extraction output: JSON (default) or compact lines under a grammar",
    )
    reflect_max_tokens: int = bounded(1024, lo=16, hi=8192, help="output cap of a reflection")


#: The default configuration (a shared instance: the config is frozen).
DEFAULT_CONFIG = TypedConfig()
