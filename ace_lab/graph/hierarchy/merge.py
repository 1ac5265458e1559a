"""Stage 2 of the hierarchical build: merge per-chunk extractions into entities and relations.

Entities with the same normalised name are one node; their descriptions are joined and, only
when the joined text grows past ``summarize_over_tokens``, summarised by one LLM call. Relations
between the same pair are one undirected relation (weights added, descriptions joined).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ace_lab.graph.hierarchy.config import HierarchyConfig
from ace_lab.graph.names import normalise_name
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt
from ace_lab.tokens import count_tokens, truncate


@dataclass
class MergedEntity:
    key: str
    names: Counter
    types: Counter
    descriptions: list[str]
    chunks: set[str]


def merge_records(
    records: dict[str, dict[str, Any]],
) -> tuple[dict[str, MergedEntity], dict[tuple[str, str], dict[str, Any]]]:
    entities: dict[str, MergedEntity] = {}
    relations: dict[tuple[str, str], dict[str, Any]] = {}

    def entity(name: str, chunk_id: str) -> MergedEntity | None:
        key = normalise_name(name)
        if not key:
            return None
        ent = entities.setdefault(key, MergedEntity(key, Counter(), Counter(), [], set()))
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


def entity_description(ent: MergedEntity, llm: LLM, config: HierarchyConfig) -> str:
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
