"""Stage 4 of the hierarchical build: Leiden communities of the base graph and their reports.

Leiden (leidenalg, modularity, fixed seed) partitions the base entity graph; each community with
at least ``community_min_size`` members gets an LLM report, stored as a ``Community`` node whose
description is the report, linked by ``IN_COMMUNITY`` edges.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import igraph as ig
import leidenalg
from pydantic import BaseModel

from ace_lab.graph.hierarchy.config import HierarchyConfig
from ace_lab.graph.names import bounded_str
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt
from ace_lab.tokens import truncate


class CommunityReport(BaseModel):
    title: bounded_str(100)
    summary: bounded_str(800)
    rating: int


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


def community_report_nodes(
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
