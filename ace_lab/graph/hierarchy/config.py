"""Hierarchical-family settings: extraction bounds, summary-layer and community parameters."""

from __future__ import annotations

from dataclasses import dataclass

from ace_lab.bounded import Bounded, bounded


@dataclass(frozen=True)
class HierarchyConfig(Bounded):
    """How hierarchical graphs are built; the extraction bounds cap every call's cost."""

    max_entities: int = bounded(
        8, lo=1, hi=50, help="entities per chunk (maxItems in the JSON schema bounds the output)"
    )
    max_relations: int = bounded(8, lo=0, hi=50, help="relations per chunk")
    extract_max_tokens: int = bounded(800, lo=16, hi=8192, help="output cap of one extraction")
    extraction: str = bounded(
        "json",
        choices=("json", "compact"),
        help="extraction output: JSON (default) or compact lines under a grammar",
    )
    summarize_over_tokens: int = bounded(
        150, lo=16, hi=4096, help="merged descriptions longer than this are summarised"
    )
    cluster_size: int = bounded(10, lo=2, hi=100, help="average members per summary entity")
    max_levels: int = bounded(3, lo=0, hi=10, help="summary layers above the base entities")
    min_layer_size: int = bounded(6, lo=2, hi=1000, help="stop layering below this many nodes")
    community_min_size: int = bounded(3, lo=1, hi=1000, help="members for a community report")
    leiden_resolution: float = bounded(1.0, lo=0.01, hi=10.0, help="Leiden modularity resolution")
    seed: int = bounded(0, lo=0, hi=2**31 - 1, help="seed of clustering and Leiden")
