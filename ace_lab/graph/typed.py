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
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, create_model

from ace_lab.data import Chunk
from ace_lab.evidence import Trace
from ace_lab.graph.extract import ChunkRecord, cost_summary, read_records, run_per_chunk
from ace_lab.graph.names import (
    bounded_list,
    bounded_str,
    chunk_node,
    entity_id,
    fold,
    mention_edges,
    normalise_name,
    short_hash,
)
from ace_lab.graph.tables import GraphTables
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

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
class TypedConfig:
    """How typed graphs are built; the bounds cap every call's output (and so its cost).

    ``*_max_tokens`` only guard against a server that ignores the schema bounds: with a grammar
    the output cannot outgrow them. ``attempts`` is per call (one retry, then the default).
    """

    schema_sample_chunks: int = 8
    schema_sample_chars: int = 600
    max_node_types: int = 8
    max_relation_types: int = 12
    max_triples: int = 10
    max_name_chars: int = 64
    reflection: Reflection = "suspicious"
    attempts: int = 2
    schema_max_tokens: int = 384
    extract_max_tokens: int = 1024
    reflect_max_tokens: int = 1024

    def __post_init__(self) -> None:
        if self.reflection not in ("suspicious", "all", "off"):
            raise ValueError(
                f"unknown reflection mode {self.reflection!r}; use 'suspicious', 'all' or 'off'"
            )
        if min(self.schema_sample_chunks, self.max_node_types, self.max_relation_types) < 1:
            raise ValueError("schema_sample_chunks and the type limits must be at least 1")
        if self.max_triples < 1 or self.attempts < 1:
            raise ValueError("max_triples and attempts must be at least 1")


# ------------------------------------------------------------------------------- the schema

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
    config: TypedConfig = TypedConfig(),
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


# -------------------------------------------------------------------------- output models


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
def _models(schema: InducedSchema, config: TypedConfig) -> _Models:
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
def _reflection_model(schema: InducedSchema, config: TypedConfig, n: int) -> type[BaseModel]:
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


# ----------------------------------------------------------------------------- extraction


def _clean_triple(triple: dict[str, Any]) -> dict[str, str] | None:
    """The triple with trimmed names; None if an end is empty or both ends are one entity."""
    out = {k: " ".join(str(triple[k]).split()) for k in TRIPLE_KEYS}
    s_key, o_key = normalise_name(out["subject"]), normalise_name(out["object"])
    return out if s_key and o_key and s_key != o_key else None


def _passage(chunk: Chunk) -> dict[str, str]:
    return {"title": chunk.title, "text": chunk.text}


def _vocabulary(schema: InducedSchema) -> dict[str, str]:
    return {
        "node_types": ", ".join(schema.node_types),
        "relation_types": ", ".join(schema.relation_types),
    }


def _extractor(llm: LLM, schema: InducedSchema, config: TypedConfig):
    model = _models(schema, config).extraction
    vocabulary = _vocabulary(schema)

    def extract(chunk: Chunk) -> dict[str, Any]:
        messages = load_prompt("typed_extract").messages(**vocabulary, **_passage(chunk))
        out = llm.json(
            messages,
            model,
            tag="graph.typed.extract",
            default=lambda: model(triples=[]),  # documented fallback: nothing from this chunk
            attempts=config.attempts,
            max_tokens=config.extract_max_tokens,
        ).value
        triples = [t for t in (_clean_triple(x.model_dump()) for x in out.triples) if t]
        return {"triples": triples, "schema": schema.fingerprint}

    return extract


def is_grounded(triple: dict[str, str], chunk: Chunk) -> bool:
    """Both ends occur (case-insensitively) in the chunk's title or text."""
    haystack = fold(f"{chunk.title}\n{chunk.text}")
    return all(fold(triple[k]) in haystack for k in ("subject", "object"))


def needs_reflection(triples: Sequence[dict[str, str]], chunk: Chunk, mode: Reflection) -> bool:
    """Whether ``mode`` sends this chunk's triples to the reflection call (see the module doc)."""
    if mode == "off" or not triples:
        return False
    return mode == "all" or not all(is_grounded(t, chunk) for t in triples)


def _numbered(triples: Sequence[dict[str, str]]) -> str:
    return "\n".join(
        f"{i}. {t['subject']} ({t['subject_type']}) {t['relation']} {t['object']} "
        f"({t['object_type']})"
        for i, t in enumerate(triples, 1)
    )


def apply_verdicts(
    triples: Sequence[dict[str, str]],
    verdicts: Sequence[str],
    repairs: Sequence[dict[str, Any]],
) -> tuple[list[dict[str, str]], Counter[str]]:
    """Triples after reflection, and how many were kept, dropped and repaired.

    A missing verdict keeps its triple (no judgement is no evidence against it); a repair
    verdict without a usable corrected triple drops it, since the reflection judged the triple
    wrong as stated.
    """
    fixes = {int(r["n"]): r for r in repairs}
    out: list[dict[str, str]] = []
    counts: Counter[str] = Counter(kept=0, dropped=0, repaired=0)
    for i, triple in enumerate(triples, 1):
        verdict = verdicts[i - 1] if i - 1 < len(verdicts) else "keep"
        if verdict == "keep":
            out.append(dict(triple))
            counts["kept"] += 1
        elif verdict == "repair" and (fixed := _fix(fixes.get(i))):
            out.append(fixed)
            counts["repaired"] += 1
        else:
            counts["dropped"] += 1
    return out, counts


def _fix(repair: dict[str, Any] | None) -> dict[str, str] | None:
    return _clean_triple({k: repair[k] for k in TRIPLE_KEYS}) if repair else None


def _reflector(
    llm: LLM, schema: InducedSchema, config: TypedConfig, extracted: dict[str, ChunkRecord]
):
    vocabulary = _vocabulary(schema)

    def reflect(chunk: Chunk) -> dict[str, Any]:
        triples = extracted[chunk.id].result["triples"]
        base = {"schema": schema.fingerprint, "reflection": config.reflection}
        if not needs_reflection(triples, chunk, config.reflection):
            counts = {"kept": len(triples), "dropped": 0, "repaired": 0}
            return base | {"triples": triples, "reflected": False, "fallback": False, **counts}
        model = _reflection_model(schema, config, len(triples))
        messages = load_prompt("typed_reflect").messages(
            **vocabulary, **_passage(chunk), triples=_numbered(triples)
        )
        result = llm.json(
            messages,
            model,
            tag="graph.typed.reflect",
            # documented fallback: an unreadable reflection commits the extraction unchanged
            default=lambda: model(verdicts=["keep"] * len(triples), repairs=[]),
            attempts=config.attempts,
            max_tokens=config.reflect_max_tokens,
        )
        value = result.value
        kept, counts = apply_verdicts(
            triples, list(value.verdicts), [r.model_dump() for r in value.repairs]
        )
        return base | {
            "triples": kept,
            "reflected": True,
            "fallback": result.fallback,
            **dict(counts),
        }

    return reflect


def _check_resumable(path: Path, expect: dict[str, str]) -> None:
    """Refuse records made under another schema or reflection mode: they would mix silently."""
    for cid, record in read_records(path).items():
        for key, value in expect.items():
            if record.result.get(key) != value:
                raise ValueError(
                    f"{path}: chunk {cid} was built with another {key} "
                    f"({record.result.get(key)!r} != {value!r}); use a fresh run_dir"
                )


# --------------------------------------------------------------------------------- graph


def build_typed(
    chunks: Sequence[Chunk],
    llm: LLM,
    run_dir: Path | str,
    config: TypedConfig = TypedConfig(),
    meta: dict[str, Any] | None = None,
    progress: bool = True,
) -> GraphTables:
    """The typed graph of ``chunks``; every stage resumes from its file in ``run_dir``.

    ``meta`` extras (dataset, command, ...) are stored with the graph, next to the schema, the
    LLM cost per stage and the reflection counts.
    """
    chunks = list(chunks)
    run_dir = Path(run_dir)
    schema = load_or_induce_schema(chunks, llm, run_dir, config)

    extract_path = run_dir / EXTRACT_FILE
    _check_resumable(extract_path, {"schema": schema.fingerprint})
    extracted = run_per_chunk(
        chunks,
        _extractor(llm, schema, config),
        extract_path,
        llm,
        desc="typed extract",
        progress=progress,
    )
    extracted = {c.id: extracted[c.id] for c in chunks}
    cost: dict[str, Any] = {
        "schema": schema.cost,
        "extract": cost_summary(extracted, "typed_extract"),
    }

    if config.reflection == "off":
        final = {cid: r.result["triples"] for cid, r in extracted.items()}
        stats: dict[str, Any] = {"mode": "off"}
    else:
        reflect_path = run_dir / REFLECT_FILE
        _check_resumable(
            reflect_path, {"schema": schema.fingerprint, "reflection": config.reflection}
        )
        reflected = run_per_chunk(
            chunks,
            _reflector(llm, schema, config, extracted),
            reflect_path,
            llm,
            desc="typed reflect",
            progress=progress,
        )
        reflected = {c.id: reflected[c.id] for c in chunks}
        cost["reflect"] = cost_summary(reflected, "typed_reflect")
        final = {cid: r.result["triples"] for cid, r in reflected.items()}
        results = [r.result for r in reflected.values()]
        stats = {
            "mode": config.reflection,
            "chunks_reflected": sum(r["reflected"] for r in results),
            "kept": sum(r["kept"] for r in results),
            "dropped": sum(r["dropped"] for r in results),
            "repaired": sum(r["repaired"] for r in results),
            "fallbacks": sum(r["fallback"] for r in results),
        }
    n = max(len(chunks), 1)
    per_chunk = sum(c.get("llm_calls", 0) for c in cost.values())
    cost["calls_per_chunk"] = round(per_chunk / n, 3)

    nodes, edges = _assemble(chunks, final)
    info = dict(meta or {}) | {
        "family": "typed",
        "schema": schema.to_dict(),
        "config": asdict(config),
        "cost": cost,
        "reflection": stats,
    }
    info.setdefault("model", llm.model_identity)
    return GraphTables.from_records(nodes, edges, info)


def _assemble(
    chunks: Sequence[Chunk], triples_by_chunk: dict[str, list[dict[str, str]]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Typed entity nodes, relation edges and ``MENTIONED_IN`` edges.

    One node per normalised name: its label is the type it was given most often (ties: first
    seen), its name the most frequent surface form. A repeated (subject, relation, object) is
    one edge whose weight counts its chunks.
    """
    types: dict[str, Counter[str]] = defaultdict(Counter)
    surfaces: dict[str, Counter[str]] = defaultdict(Counter)
    sources: dict[str, set[str]] = defaultdict(set)
    relations: dict[tuple[str, str, str], dict[str, Any]] = {}
    for chunk in chunks:
        for t in triples_by_chunk.get(chunk.id, []):
            s_id, o_id = entity_id(t["subject"]), entity_id(t["object"])
            if not s_id or not o_id or s_id == o_id:
                continue
            for eid, name, kind in (
                (s_id, t["subject"], t["subject_type"]),
                (o_id, t["object"], t["object_type"]),
            ):
                types[eid][kind] += 1
                surfaces[eid][name] += 1
                sources[eid].add(chunk.id)
            key = (s_id, t["relation"], o_id)
            edge = relations.setdefault(
                key,
                {
                    "id": "rel:" + short_hash(*key),
                    "source": s_id,
                    "target": o_id,
                    "type": t["relation"],
                    "predicate": t["relation"],
                    "description": f"{t['subject']} {t['relation']} {t['object']}",
                    "source_ids": set(),
                },
            )
            edge["source_ids"].add(chunk.id)

    nodes = [chunk_node(c) for c in chunks]
    edges: list[dict[str, Any]] = []
    for eid in sorted(types):
        label = types[eid].most_common(1)[0][0]
        nodes.append(
            {
                "id": eid,
                "label": label,
                "name": surfaces[eid].most_common(1)[0][0],
                "type": label,
                "source_ids": sorted(sources[eid]),
            }
        )
        edges.extend(mention_edges(eid, sources[eid]))
    for edge in relations.values():
        edge["weight"] = float(len(edge["source_ids"]))
        edge["source_ids"] = sorted(edge["source_ids"])
        edges.append(edge)
    return nodes, edges
