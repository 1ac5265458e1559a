"""Stage 3 of the hierarchical build: summary layers over clustered entity embeddings.

The layer's entity embeddings (MiniLM over "name: description") are clustered with seeded
k-means (k = layer size / ``cluster_size``); each cluster with at least two members gets an
LLM-written summary entity one level up, linked by ``MEMBER_OF`` edges. HiRAG clusters with GMMs
and stops when cluster sparsity stops changing; our stopping rule is the documented
simplification: stop when the next layer would have fewer than ``min_layer_size`` entities,
when more than half of the clusters are singletons (the layer is too sparse to group), or after
``max_levels`` summary layers.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
from pydantic import BaseModel
from scipy.cluster.vq import kmeans2

from ace_lab.embed import embed
from ace_lab.graph.hierarchy.config import HierarchyConfig
from ace_lab.graph.names import bounded_str
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt
from ace_lab.tokens import truncate


class SummaryEntity(BaseModel):
    name: bounded_str(80)
    description: bounded_str(400)


def _cluster(vectors: np.ndarray, k: int, seed: int) -> np.ndarray:
    if k <= 1 or len(vectors) <= k:
        return np.zeros(len(vectors), dtype=int)
    _, labels = kmeans2(vectors.astype(np.float64), k, minit="++", rng=np.random.default_rng(seed))
    return labels


def summary_layers(
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
