"""Consolidation C* = Merge(C_base, ΔC): structured blocks that keep every provenance.

Blocks come in round order (C_base first), then branch order (Depth, Breadth). An item found
again in a later round or branch stays where it first appeared, with every place it was found
listed in ``meta["provenance"]`` (e.g. ``["r0:base", "r1:depth"]``); its kind, level and
source ids are unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from ace_lab.evidence import Evidence

BLOCK_ORDER = ("base", "depth", "breadth")


def provenance_of(item: Evidence) -> str:
    return f"r{item.round}:{item.branch}"


def merge(base: list[Evidence], increments: dict[str, list[Evidence]]) -> list[Evidence]:
    blocks = [base] + [increments[b] for b in BLOCK_ORDER if b in increments]
    blocks += [items for b, items in increments.items() if b not in BLOCK_ORDER]
    merged: dict[str, Evidence] = {}
    for block in blocks:
        for item in block:
            earlier = merged.get(item.id)
            if earlier is None:
                merged[item.id] = replace(
                    item, meta={**item.meta, "provenance": [provenance_of(item)]}
                )
                continue
            seen = list(earlier.meta["provenance"])
            if provenance_of(item) not in seen:
                seen.append(provenance_of(item))
            merged[item.id] = replace(
                earlier,
                score=max(earlier.score, item.score),
                meta={**earlier.meta, "provenance": seen},
            )
    return list(merged.values())
