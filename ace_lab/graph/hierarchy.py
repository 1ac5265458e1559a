"""The hierarchical (HiRAG-style) graph: base entities and relations, summary layers, communities.

Construction, in order (every LLM call is cached; the per-chunk stage is resumable):

1. **Extraction** — one call per chunk returns entities (name, type, description) and relations
   (source, target, description, strength 1-10).
2. **Merging** — entities with the same normalised name are one node; descriptions are joined and,
   only when the joined text grows past ``summarize_over_tokens``, summarised by one LLM call.
   Relations between the same pair are merged (weights added, descriptions joined).
3. **Summary layers** — the layer's entity embeddings (MiniLM over "name: description") are
   clustered with seeded k-means (k = layer size / ``cluster_size``); each cluster with at least
   two members gets an LLM-written summary entity one level up, linked by ``MEMBER_OF`` edges.
   HiRAG clusters with GMMs and stops when cluster sparsity stops changing; our stopping rule is
   the documented simplification: stop when the next layer would have fewer than
   ``min_layer_size`` entities, when more than half of the clusters are singletons (the layer is
   too sparse to group), or after ``max_levels`` summary layers.
4. **Communities** — Leiden (leidenalg, modularity, fixed seed) on the base entity graph; each
   community with at least ``community_min_size`` members gets an LLM report, stored as a
   ``Community`` node whose description is the report, linked by ``IN_COMMUNITY`` edges.

Bridge paths (HiRAG's link between local and global knowledge) are computed at query time by
:func:`bridge_paths` over the saved tables.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import igraph as ig
import leidenalg
import networkx as nx
import numpy as np
from pydantic import BaseModel
from scipy.cluster.vq import kmeans2

from ace_lab.data import Chunk
from ace_lab.embed import embed
from ace_lab.graph.extract import cost_summary, run_per_chunk
from ace_lab.graph.names import (
    bounded_list,
    bounded_str,
    chunk_node,
    mention_edges,
    normalise_name,
)
from ace_lab.graph.tables import GraphTables
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt
from ace_lab.tokens import count_tokens, truncate


@dataclass(frozen=True)
class HierarchyConfig:
    max_entities: int = 8  # per chunk (maxItems in the JSON schema bounds the output)
    max_relations: int = 8
    extract_max_tokens: int = 800
    summarize_over_tokens: int = 150  # merged descriptions longer than this are summarised
    cluster_size: int = 10  # average members per summary entity
    max_levels: int = 3
    min_layer_size: int = 6
    community_min_size: int = 3
    leiden_resolution: float = 1.0
    seed: int = 0


# ------------------------------------------------------------------------ LLM output schemas
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


class SummaryEntity(BaseModel):
    name: bounded_str(80)
    description: bounded_str(400)


class CommunityReport(BaseModel):
    title: bounded_str(100)
    summary: bounded_str(800)
    rating: int


# ------------------------------------------------------------------------------- extraction
def extract_chunk(chunk: Chunk, llm: LLM, config: HierarchyConfig) -> dict[str, Any]:
    """Entities and relations of one chunk; on unusable output, no entities (the default)."""
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


# ---------------------------------------------------------------------------------- merging
@dataclass
class _Entity:
    key: str
    names: Counter
    types: Counter
    descriptions: list[str]
    chunks: set[str]


def _merge(
    records: dict[str, dict[str, Any]],
) -> tuple[dict[str, _Entity], dict[tuple[str, str], dict[str, Any]]]:
    entities: dict[str, _Entity] = {}
    relations: dict[tuple[str, str], dict[str, Any]] = {}

    def entity(name: str, chunk_id: str) -> _Entity | None:
        key = normalise_name(name)
        if not key:
            return None
        ent = entities.setdefault(key, _Entity(key, Counter(), Counter(), [], set()))
        ent.names[name.strip()] += 1
        ent.chunks.add(chunk_id)
        return ent

    for chunk_id in sorted(records):
        result = records[chunk_id]
        for item in result.get("entities", []):
            ent = entity(item.get("name", ""), chunk_id)
            if ent is None:
                continue
            if item.get("type"):
                ent.types[item["type"].strip().upper()] += 1
            desc = (item.get("description") or "").strip()
            if desc and desc not in ent.descriptions:
                ent.descriptions.append(desc)
        for rel in result.get("relations", []):
            a, b = entity(rel.get("source", ""), chunk_id), entity(rel.get("target", ""), chunk_id)
            if a is None or b is None or a.key == b.key:
                continue
            pair = tuple(sorted((a.key, b.key)))
            merged = relations.setdefault(
                pair, {"descriptions": [], "weight": 0.0, "chunks": set()}
            )
            desc = (rel.get("description") or "").strip()
            if desc and desc not in merged["descriptions"]:
                merged["descriptions"].append(desc)
            merged["weight"] += float(min(max(int(rel.get("strength") or 1), 1), 10))
            merged["chunks"].add(chunk_id)
    return entities, relations


def _entity_description(ent: _Entity, llm: LLM, config: HierarchyConfig) -> str:
    joined = " ".join(ent.descriptions)
    if count_tokens(joined) <= config.summarize_over_tokens:
        return joined
    name = ent.names.most_common(1)[0][0]
    completion = llm.chat(
        load_prompt("hirag_summarize_descriptions").messages(
            name=name, descriptions="\n".join(f"- {d}" for d in ent.descriptions)
        ),
        tag="build.hirag.describe",
        max_tokens=200,
    )
    text = completion.text.strip()
    return text or truncate(joined, config.summarize_over_tokens)  # empty reply: keep facts


# ----------------------------------------------------------------------------------- layers
def _cluster(vectors: np.ndarray, k: int, seed: int) -> np.ndarray:
    if k <= 1 or len(vectors) <= k:
        return np.zeros(len(vectors), dtype=int)
    _, labels = kmeans2(vectors.astype(np.float64), k, minit="++", rng=np.random.default_rng(seed))
    return labels


def _summary_layers(
    base: list[dict[str, Any]], llm: LLM, config: HierarchyConfig, progress: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Summary nodes, MEMBER_OF edges, and one stats row per level."""
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    stats: list[dict[str, Any]] = []
    layer = base
    for level in range(1, config.max_levels + 1):
        k = len(layer) // config.cluster_size
        if len(layer) < config.min_layer_size or k < 2:
            stats.append({"level": level, "stopped": f"layer of {len(layer)} too small"})
            break
        texts = [f"{n['name']}: {n['description']}" for n in layer]
        labels = _cluster(embed(texts, progress=progress), k, config.seed + level)
        groups = defaultdict(list)
        for node, label in zip(layer, labels, strict=True):
            groups[int(label)].append(node)
        multi = [g for _, g in sorted(groups.items()) if len(g) >= 2]
        singletons = len(groups) - len(multi)
        if len(multi) < 2 or singletons > len(groups) / 2:
            stats.append(
                {"level": level, "stopped": f"sparse: {singletons}/{len(groups)} singletons"}
            )
            break
        members_text = [
            "\n".join(f"- {m['name']}: {truncate(m['description'], 40)}" for m in g[:15])
            for g in multi
        ]

        def summarise(text: str) -> SummaryEntity:
            return llm.json(
                load_prompt("hirag_summary_entity").messages(entities=text),
                SummaryEntity,
                tag="build.hirag.summary",
                default=lambda: SummaryEntity(name="", description=""),
                max_tokens=220,
            ).value

        summaries = llm.map(
            summarise, members_text, desc=f"level {level} summaries" if progress else None
        )
        new_layer = []
        for i, (group, summary) in enumerate(zip(multi, summaries, strict=True)):
            name = summary.name.strip() or " / ".join(m["name"] for m in group[:3])
            description = summary.description.strip() or "; ".join(m["name"] for m in group)
            node = {
                "id": f"sum:{level}:{i}",
                "label": "Summary",
                "name": name,
                "type": "SUMMARY",
                "description": description,
                "level": level,
                "source_ids": sorted({c for m in group for c in m["source_ids"]}),
            }
            nodes.append(node)
            new_layer.append(node)
            for member in group:
                edges.append(
                    {
                        "id": f"member:{member['id']}->{node['id']}",
                        "source": member["id"],
                        "target": node["id"],
                        "type": "MEMBER_OF",
                        "description": f"{member['name']} is part of {name}",
                        "level": level,
                        "source_ids": member["source_ids"],
                    }
                )
        stats.append({"level": level, "clusters": len(multi), "singletons": singletons})
        layer = new_layer
        if len(layer) < config.min_layer_size:
            break
    return nodes, edges, stats


# ------------------------------------------------------------------------------ communities
def leiden_communities(
    entity_ids: Sequence[str],
    relations: Sequence[tuple[str, str, float]],
    resolution: float = 1.0,
    seed: int = 0,
) -> list[list[str]]:
    """Leiden communities (modularity, seeded) of the weighted entity graph; largest first."""
    index = {e: i for i, e in enumerate(entity_ids)}
    graph = ig.Graph(n=len(entity_ids), edges=[(index[a], index[b]) for a, b, _ in relations])
    graph.es["weight"] = [w for _, _, w in relations]
    partition = leidenalg.find_partition(
        graph,
        leidenalg.RBConfigurationVertexPartition,
        weights="weight",
        resolution_parameter=resolution,
        seed=seed,
    )
    communities = [sorted(entity_ids[i] for i in members) for members in partition]
    return sorted(communities, key=lambda c: (-len(c), c[0]))


def _community_nodes(
    communities: list[list[str]],
    by_id: dict[str, dict[str, Any]],
    relation_rows: list[dict[str, Any]],
    llm: LLM,
    config: HierarchyConfig,
    progress: bool = True,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    eligible = [c for c in communities if len(c) >= config.community_min_size]
    member_of = {e: i for i, c in enumerate(eligible) for e in c}
    rels_by_comm: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for rel in relation_rows:
        ca, cb = member_of.get(rel["source"]), member_of.get(rel["target"])
        if ca is not None and ca == cb:
            rels_by_comm[ca].append(rel)

    def report(i: int) -> CommunityReport:
        members = eligible[i]
        entities = "\n".join(
            f"- {by_id[e]['name']} ({by_id[e]['type']}): {truncate(by_id[e]['description'], 40)}"
            for e in members[:20]
        )
        relations = "\n".join(
            f"- {by_id[r['source']]['name']} -- {by_id[r['target']]['name']}: "
            f"{truncate(r['description'], 30)}"
            for r in sorted(rels_by_comm[i], key=lambda r: -r["weight"])[:20]
        )
        return llm.json(
            load_prompt("community_report").messages(
                entities=entities, relations=relations or "(none)"
            ),
            CommunityReport,
            tag="build.hirag.report",
            default=lambda: CommunityReport(title="", summary="", rating=1),
            max_tokens=350,
        ).value

    reports = llm.map(report, range(len(eligible)), desc="community reports" if progress else None)
    nodes, edges = [], []
    for i, (members, rep) in enumerate(zip(eligible, reports, strict=True)):
        names = ", ".join(by_id[e]["name"] for e in members[:8])
        node_id = f"com:{i}"
        nodes.append(
            {
                "id": node_id,
                "label": "Community",
                "name": rep.title.strip() or f"Community {i}: {names}",
                "type": "COMMUNITY",
                "description": rep.summary.strip() or f"Entities: {names}.",
                "level": 1,
                "source_ids": sorted({c for e in members for c in by_id[e]["source_ids"]}),
            }
        )
        for e in members:
            edges.append(
                {
                    "id": f"incom:{e}->{node_id}",
                    "source": e,
                    "target": node_id,
                    "type": "IN_COMMUNITY",
                    "weight": float(max(1, min(rep.rating, 10))),
                    "level": 1,
                    "source_ids": by_id[e]["source_ids"],
                }
            )
    return nodes, edges


# ------------------------------------------------------------------------------------ build
def build_hierarchical(
    chunks: Sequence[Chunk],
    llm: LLM,
    run_dir: Path | str,
    config: HierarchyConfig | None = None,
    meta: dict[str, Any] | None = None,
    progress: bool = True,
) -> GraphTables:
    """Build the hierarchical graph of ``chunks`` (see module docstring); resumable in run_dir."""
    config = config or HierarchyConfig()
    run_dir = Path(run_dir)
    records = run_per_chunk(
        chunks,
        lambda c: extract_chunk(c, llm, config),
        run_dir / "hirag_extract.jsonl",
        llm,
        desc="hirag extract",
        progress=progress,
    )
    calls_before = len(llm.ledger.calls)
    entities, relations = _merge({cid: r.result for cid, r in records.items()})

    keys = sorted(entities)
    descriptions = llm.map(
        lambda k: _entity_description(entities[k], llm, config),
        keys,
        desc="entity descriptions" if progress else None,
    )
    entity_rows = []
    for key, description in zip(keys, descriptions, strict=True):
        ent = entities[key]
        entity_rows.append(
            {
                "id": f"ent:{key}",
                "label": "Entity",
                "name": ent.names.most_common(1)[0][0],
                "type": ent.types.most_common(1)[0][0] if ent.types else "UNKNOWN",
                "description": description,
                "level": 0,
                "source_ids": sorted(ent.chunks),
            }
        )
    relation_rows = [
        {
            "id": f"rel:{a}|{b}",
            "source": f"ent:{a}",
            "target": f"ent:{b}",
            "type": "RELATED",
            "description": " ".join(rel["descriptions"]),
            "weight": rel["weight"],
            "level": 0,
            "source_ids": sorted(rel["chunks"]),
        }
        for (a, b), rel in sorted(relations.items())
    ]
    chunk_rows = [chunk_node(c) for c in chunks]
    mention_rows = [m for e in entity_rows for m in mention_edges(e["id"], e["source_ids"])]
    summary_nodes, member_edges, layer_stats = _summary_layers(entity_rows, llm, config, progress)
    by_id = {e["id"]: e for e in entity_rows}
    communities = leiden_communities(
        [e["id"] for e in entity_rows],
        [(r["source"], r["target"], r["weight"]) for r in relation_rows],
        config.leiden_resolution,
        config.seed,
    )
    community_nodes, community_edges = _community_nodes(
        communities, by_id, relation_rows, llm, config, progress
    )
    corpus_calls = llm.ledger.calls[calls_before:]
    n = max(len(records), 1)
    extract_cost = cost_summary(records, "hirag.extract")
    corpus_cost = {
        "stage": "hirag.corpus (descriptions, summaries, reports)",
        "llm_calls": len(corpus_calls),
        "model_calls": sum(not c.cache_hit for c in corpus_calls),
        "calls_per_chunk": round(len(corpus_calls) / n, 3),
        "prompt_tokens": sum(c.prompt_tokens for c in corpus_calls),
        "completion_tokens": sum(c.completion_tokens for c in corpus_calls),
    }
    build_meta = {
        "family": "hierarchical",
        "config": config.__dict__,
        "levels": layer_stats,
        "communities": {"total": len(communities), "reported": len(community_nodes)},
        "cost": [extract_cost, corpus_cost],
        "calls_per_chunk": round(extract_cost["calls_per_chunk"] + len(corpus_calls) / n, 3),
    } | dict(meta or {})
    return GraphTables.from_records(
        entity_rows + summary_nodes + community_nodes + chunk_rows,
        relation_rows + member_edges + community_edges + mention_rows,
        build_meta,
    )


# ------------------------------------------------------------------------------ bridge paths
def bridge_paths(
    tables: GraphTables, entity_ids: Sequence[str], max_pairs: int = 6, max_hops: int = 4
) -> list[list[str]]:
    """HiRAG bridge paths: shortest paths linking query entities of different communities.

    Paths run over the undirected base relation graph plus the summary layer (``RELATED`` and
    ``MEMBER_OF`` edges), so two entities can be bridged through a shared summary entity. Pairs
    are taken in the given (relevance) order; paths longer than ``max_hops`` are skipped.
    """
    edges = tables.edges_of_type("RELATED", "MEMBER_OF")
    graph = nx.Graph()
    graph.add_edges_from(zip(edges["source"], edges["target"], strict=True))
    community = {
        row.source: row.target for row in tables.edges_of_type("IN_COMMUNITY").itertuples()
    }
    paths = []
    for a, b in itertools.combinations([e for e in entity_ids if e in graph], 2):
        if community.get(a) is not None and community.get(a) == community.get(b):
            continue
        try:
            path = nx.shortest_path(graph, a, b)
        except nx.NetworkXNoPath:
            continue
        if len(path) - 1 <= max_hops:
            paths.append(path)
        if len(paths) >= max_pairs:
            break
    return paths
