"""The typed graph family: schema-guided extraction with a reflection pass (FinReflectKG-style).

FinReflectKG has an extraction agent propose triples chunk by chunk against a fixed schema, and
a reflection pass check each proposal for faithfulness to its source chunk before it is
committed. For encyclopedic text there is no business-defined schema, so one is induced first
from a sample of the corpus. The result has typed nodes (the schema's entity types are the node
labels), a closed relation set (the relationship types) and chunk provenance on every edge.

Three stages, each resumable from ``run_dir``:

1. Schema induction: one LLM call on ``schema_sample_chunks`` chunks spread evenly through the
   corpus, sanitised to Cypher-safe identifiers (PascalCase labels, UPPER_SNAKE relations) and
   saved as ``typed_schema.json``, so a restarted build extracts against the same schema.
2. Extraction (``typed_extract.jsonl``): one call per chunk. The output model is built from the
   schema with enums for types and relations, so the server's grammar cannot leave the schema.
3. Reflection (``typed_reflect.jsonl``): one call per selected chunk, a verdict per triple —
   keep, drop, or repair (a corrected triple within the schema). Modes:

   ``suspicious`` (default)
       Only chunks with a triple whose subject or object does not occur in the chunk's text
       (case-insensitive). A triple whose ends are both quoted from the text is rarely
       unfaithful, and skipping those chunks keeps the build near one call per chunk.
   ``all``
       Every chunk with triples, as FinReflectKG does.
   ``off``
       No reflection: extraction is committed as is.

Modules, one per stage: ``config`` (TypedConfig, file names, fallback vocabulary), ``schema``
(stage 1), ``models`` (the schema-built output models), ``extract`` (stage 2), ``reflect``
(stage 3) and ``build`` (:func:`build_typed`, which assembles nodes and edges with the shared
:mod:`ace_lab.graph.assemble`).
"""

from ace_lab.graph.typed.build import build_typed
from ace_lab.graph.typed.config import (
    EXTRACT_FILE,
    FALLBACK_NODE_TYPES,
    FALLBACK_RELATION_TYPES,
    REFLECT_FILE,
    RESERVED_LABELS,
    RESERVED_RELATIONS,
    SCHEMA_FILE,
    TRIPLE_KEYS,
    Reflection,
    TypedConfig,
)
from ace_lab.graph.typed.reflect import apply_verdicts, is_grounded, needs_reflection
from ace_lab.graph.typed.schema import (
    InducedSchema,
    induce_schema,
    load_or_induce_schema,
    pascal_case,
    sample_chunks,
    upper_snake,
)

__all__ = [
    "EXTRACT_FILE",
    "FALLBACK_NODE_TYPES",
    "FALLBACK_RELATION_TYPES",
    "REFLECT_FILE",
    "RESERVED_LABELS",
    "RESERVED_RELATIONS",
    "SCHEMA_FILE",
    "TRIPLE_KEYS",
    "InducedSchema",
    "Reflection",
    "TypedConfig",
    "apply_verdicts",
    "build_typed",
    "induce_schema",
    "is_grounded",
    "load_or_induce_schema",
    "needs_reflection",
    "pascal_case",
    "sample_chunks",
    "upper_snake",
]
