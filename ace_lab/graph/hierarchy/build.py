"""The hierarchical build entry point: extraction, merging, summary layers, communities.

Every LLM call is cached and the per-chunk extraction resumes from ``hirag_extract.jsonl``; the
corpus-level calls (descriptions, summaries, reports) are costed separately in the graph's meta.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ace_lab.data import Chunk
from ace_lab.graph.extract import cost_summary, run_per_chunk
from ace_lab.graph.hierarchy.communities import community_report_nodes, leiden_communities
from ace_lab.graph.hierarchy.config import HierarchyConfig
from ace_lab.graph.hierarchy.extract import extract_chunk
from ace_lab.graph.hierarchy.layers import summary_layers
from ace_lab.graph.hierarchy.merge import entity_description, merge_records
from ace_lab.graph.names import chunk_node, mention_edges
from ace_lab.graph.tables import GraphTables
from ace_lab.llm import LLM


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
    entities, relations = merge_records({cid: r.result for cid, r in records.items()})

    keys = sorted(entities)
    descriptions = llm.map(
        lambda k: entity_description(entities[k], llm, config),
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
    summary_nodes, member_edges, layer_stats = summary_layers(entity_rows, llm, config, progress)
    by_id = {e["id"]: e for e in entity_rows}
    communities = leiden_communities(
        [e["id"] for e in entity_rows],
        [(r["source"], r["target"], r["weight"]) for r in relation_rows],
        config.leiden_resolution,
        config.seed,
    )
    community_nodes, community_edges = community_report_nodes(
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
