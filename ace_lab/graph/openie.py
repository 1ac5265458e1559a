"""The OpenIE graph family, built the HippoRAG way: open triples over entity phrases.

HippoRAG extracts named entities from each passage, then triples that connect them, with no
relation vocabulary: the graph has one node label (``Entity``) and one relationship type
(``RELATION``), and the free-text predicate is an edge property. Phrases that name the same thing
in different words are linked by ``SYNONYM`` edges when their embeddings are close, which is what
lets a traversal cross passages that never share a surface form.

Two extraction modes:

``ner_then_triples``
    HippoRAG's own two calls per chunk: named entities, then triples given that entity list.
``joint`` (default)
    One call per chunk returning both. On a small local model every call costs seconds, and the
    entity list mostly serves to prime the triples, so asking for both at once halves the cost.

Every phrase also gets a ``MENTIONED_IN`` edge to each Chunk node it came from, so retrieval can
return the source text of whatever it reaches. Entities the NER step found but no triple uses
are kept: their chunk edges still make them retrievable entry points. Nodes and edges are
assembled by :mod:`ace_lab.graph.assemble`, which the typed family shares.

Synonym candidates come from a nearest-neighbour search (``synonym_k`` per phrase), not from all
pairs, so the step stays near-linear on large corpora; a candidate becomes an edge when its
cosine similarity is at least ``synonym_threshold`` (HippoRAG's 0.8).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, create_model

from ace_lab.bounded import Bounded, bounded
from ace_lab.data import Chunk
from ace_lab.embed import Embedder, VectorCache, cosine_top_k, embed, get_embedder
from ace_lab.graph.assemble import TripleAssembler
from ace_lab.graph.compact import extract_openie
from ace_lab.graph.extract import cost_summary, read_records, run_per_chunk
from ace_lab.graph.names import bounded_list, bounded_str, fold, normalise_name, short_hash
from ace_lab.graph.tables import GraphTables
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt

Mode = Literal["joint", "ner_then_triples"]
EXTRACT_FILE = "openie_extract.jsonl"


@dataclass(frozen=True)
class OpenIEConfig(Bounded):
    """How OpenIE graphs are extracted; the bounds cap every call's output (and so its cost).

    ``max_tokens`` only guards against a server that ignores the schema bounds: with a grammar
    the output cannot outgrow them, and it is sized so a bounded answer is never cut short.
    ``attempts`` is per call: a failed attempt is retried once, then the empty default is used.
    """

    mode: Mode = bounded(
        "joint",
        choices=("joint", "ner_then_triples"),
        help="one call per chunk (joint) or HippoRAG's two (entities, then triples)",
    )
    max_entities: int = bounded(12, lo=1, hi=100, help="named entities per chunk")
    max_triples: int = bounded(12, lo=1, hi=100, help="triples per chunk")
    max_phrase_chars: int = bounded(64, lo=8, hi=512, help="longest phrase kept")
    max_predicate_chars: int = bounded(48, lo=8, hi=512, help="longest predicate kept")
    max_tokens: int = bounded(1024, lo=16, hi=8192, help="output cap of one extraction call")
    extraction: str = bounded(
        "json",
        choices=("json", "compact"),
        help="extraction output (joint mode): JSON (default) or compact lines under a grammar",
    )
    attempts: int = bounded(2, lo=1, hi=5, help="tries per call before the empty default")
    synonym_threshold: float = bounded(
        0.8, lo=0.0, hi=1.0, help="cosine above which two phrases get a SYNONYM edge"
    )
    synonym_k: int = bounded(10, lo=0, hi=100, help="nearest phrases checked for synonymy")


# ------------------------------------------------------------------------------------ schemas


@cache
def _schemas(config: OpenIEConfig) -> dict[str, type[BaseModel]]:
    """Output models for ``config``'s bounds (built once per config: the bounds are part of them).

    Triples are ``[subject, predicate, object]`` arrays rather than objects: the three keys of
    an object would cost about ten generated tokens per triple.
    """
    phrase = bounded_str(config.max_phrase_chars)
    predicate = bounded_str(config.max_predicate_chars)
    entities = bounded_list(phrase, config.max_entities)
    triples = bounded_list(tuple[phrase, predicate, phrase], config.max_triples)
    return {
        "ner": create_model("NamedEntities", named_entities=(entities, ...)),
        "triples": create_model("OpenTriples", triples=(triples, ...)),
        "joint": create_model(
            "EntitiesAndTriples", named_entities=(entities, ...), triples=(triples, ...)
        ),
    }


def _empty(schema: type[BaseModel]) -> BaseModel:
    """The documented fallback: a chunk whose output cannot be parsed contributes nothing."""
    return schema.model_validate({name: [] for name in schema.model_fields})


# ----------------------------------------------------------------------------- extraction


def clean_extraction(entities: Sequence[str], triples: Sequence[Sequence[str]]) -> dict[str, Any]:
    """Entities de-duplicated by normalised name; triples with an empty end or self-loop dropped.

    The predicate text is kept as written (whitespace trimmed): it is the relation's meaning.
    """
    seen: set[str] = set()
    kept_entities: list[str] = []
    for name in entities:
        key = normalise_name(name)
        if key and key not in seen:
            seen.add(key)
            kept_entities.append(" ".join(str(name).split()))
    kept_triples: list[list[str]] = []
    for triple in triples:
        if len(triple) != 3:
            continue
        subject, predicate, obj = (" ".join(str(part).split()) for part in triple)
        s_key, o_key = normalise_name(subject), normalise_name(obj)
        if s_key and o_key and s_key != o_key:
            kept_triples.append([subject, predicate, obj])
    return {"named_entities": kept_entities, "triples": kept_triples}


def _extractor(llm: LLM, config: OpenIEConfig):
    schemas = _schemas(config)
    json_kwargs = {"attempts": config.attempts, "max_tokens": config.max_tokens}

    def joint(chunk: Chunk) -> dict[str, Any]:
        if config.extraction == "compact":  # compact lines under a grammar (graph.compact)
            return clean_extraction(*extract_openie(chunk, llm, config)) | {"mode": "joint"}
        schema = schemas["joint"]
        messages = load_prompt("openie_joint").messages(title=chunk.title, text=chunk.text)
        out = llm.json(
            messages,
            schema,
            tag="graph.openie.joint",
            default=lambda: _empty(schema),
            **json_kwargs,
        ).value
        return clean_extraction(out.named_entities, out.triples) | {"mode": "joint"}

    def ner_then_triples(chunk: Chunk) -> dict[str, Any]:
        ner_schema, triple_schema = schemas["ner"], schemas["triples"]
        messages = load_prompt("openie_ner").messages(title=chunk.title, text=chunk.text)
        ner = llm.json(
            messages,
            ner_schema,
            tag="graph.openie.ner",
            default=lambda: _empty(ner_schema),
            **json_kwargs,
        ).value
        entities = clean_extraction(ner.named_entities, [])["named_entities"]
        messages = load_prompt("openie_triples").messages(
            title=chunk.title, text=chunk.text, entities=json.dumps(entities, ensure_ascii=False)
        )
        out = llm.json(
            messages,
            triple_schema,
            tag="graph.openie.triples",
            default=lambda: _empty(triple_schema),
            **json_kwargs,
        ).value
        return clean_extraction(entities, out.triples) | {"mode": "ner_then_triples"}

    if config.extraction == "compact" and config.mode != "joint":
        raise ValueError("the compact extraction is one call per chunk: use mode 'joint'")
    return joint if config.mode == "joint" else ner_then_triples


# --------------------------------------------------------------------------------- graph


def build_openie(
    chunks: Sequence[Chunk],
    llm: LLM,
    run_dir: Path | str,
    config: OpenIEConfig = OpenIEConfig(),
    meta: dict[str, Any] | None = None,
    progress: bool = True,
    *,
    embedder: Embedder | None = None,
    embed_cache: VectorCache | bool | None = None,
) -> GraphTables:
    """The OpenIE graph of ``chunks``; extraction resumes from ``run_dir/openie_extract.jsonl``.

    ``embedder`` (default: the settings' embedder) scores synonym candidates; ``embed_cache``
    defaults to the vector cache in the LLM's cache dir. ``meta`` extras (dataset, command, ...)
    are stored with the graph; ``meta["cost"]`` holds LLM calls and tokens per chunk.
    """
    chunks = list(chunks)
    path = Path(run_dir) / EXTRACT_FILE
    other = sorted(
        cid for cid, r in read_records(path).items() if r.result.get("mode") != config.mode
    )
    if other:
        raise ValueError(
            f"{path} holds {len(other)} chunks extracted in another mode than {config.mode!r} "
            f"(e.g. {other[0]}); use a fresh run_dir to change modes"
        )
    records = run_per_chunk(
        chunks, _extractor(llm, config), path, llm, desc=f"openie {config.mode}", progress=progress
    )
    records = {c.id: records[c.id] for c in chunks}
    results = {cid: r.result for cid, r in records.items()}

    nodes, edges = _assemble(chunks, results)
    entity_nodes = [n for n in nodes if n["label"] == "Entity"]
    if embedder is None:
        embedder = get_embedder(llm.settings.embed)
    if embed_cache is None:
        embed_cache = VectorCache.in_dir(llm.settings.cache_dir)
    synonyms = synonym_edges(
        entity_nodes, config.synonym_threshold, config.synonym_k, embedder, embed_cache, progress
    )
    info = dict(meta or {}) | {
        "family": "openie",
        "mode": config.mode,
        "config": asdict(config),
        "extraction_file": str(path),
        "embedder": embedder.model_id,
        "cost": cost_summary(records, f"openie_{config.mode}"),
        "synonym_edges": len(synonyms),
    }
    info.setdefault("model", llm.model_identity)
    return GraphTables.from_records(nodes, edges + synonyms, info)


def _assemble(
    chunks: Sequence[Chunk], results: dict[str, dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Chunk and entity nodes, ``RELATION`` and ``MENTIONED_IN`` edges from per-chunk results.

    A phrase's display name is its most frequent surface form; a repeated triple (same ends,
    same predicate up to case and spacing) is one edge whose weight counts its chunks.
    """
    graph = TripleAssembler()
    for chunk in chunks:
        result = results.get(chunk.id, {})
        for name in result.get("named_entities", []):
            graph.mention(name, chunk.id)
        for subject, predicate, obj in result.get("triples", []):
            graph.triple(
                chunk.id, subject, predicate, obj, rel_type="RELATION", key=fold(predicate)
            )
    return graph.rows(chunks)


def synonym_edges(
    entity_nodes: Sequence[dict[str, Any]],
    threshold: float,
    k: int,
    embedder: Embedder,
    cache: VectorCache | bool = True,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """``SYNONYM`` edges between phrases whose name embeddings have cosine ≥ ``threshold``.

    Each phrase is compared with its ``k`` nearest neighbours only. A pair is one edge (ends in
    id order) weighted by its cosine; its ``source_ids`` are the chunks of both phrases, since a
    synonym link is evidence drawn from where each phrase occurs.
    """
    if len(entity_nodes) < 2 or k < 1:
        return []
    names = [n["name"] for n in entity_nodes]
    vectors = embed(names, embedder, cache=cache, progress=progress)
    indices, scores = cosine_top_k(vectors, vectors, k + 1)  # +1: each phrase finds itself
    best: dict[tuple[int, int], float] = {}
    for i, (row, row_scores) in enumerate(zip(indices, scores, strict=True)):
        for j, score in zip(row, row_scores, strict=True):
            if j == i or score < threshold:
                continue
            pair = (min(i, int(j)), max(i, int(j)))
            best[pair] = max(best.get(pair, -1.0), float(score))
    edges = []
    for (i, j), score in sorted(best.items()):
        a, b = sorted((entity_nodes[i], entity_nodes[j]), key=lambda n: n["id"])
        edges.append(
            {
                "id": "syn:" + short_hash(a["id"], b["id"]),
                "source": a["id"],
                "target": b["id"],
                "type": "SYNONYM",
                "description": f"{a['name']} ~ {b['name']}",
                "weight": round(min(score, 1.0), 4),
                "source_ids": sorted(set(a["source_ids"]) | set(b["source_ids"])),
            }
        )
    return edges
