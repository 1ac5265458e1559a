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

Bridge paths (HiRAG's link between local and global knowledge) are computed at query time over
the saved tables by :func:`ace_lab.retrieval.bridge_paths`.

Modules, one per stage: ``config`` (HierarchyConfig), ``extract`` (1), ``merge`` (2),
``layers`` (3), ``communities`` (4) and ``build`` (:func:`build_hierarchical`).
"""

from ace_lab.graph.hierarchy.build import build_hierarchical
from ace_lab.graph.hierarchy.communities import CommunityReport, leiden_communities
from ace_lab.graph.hierarchy.config import HierarchyConfig
from ace_lab.graph.hierarchy.extract import EntityTuple, RelationTuple, extract_chunk
from ace_lab.graph.hierarchy.layers import SummaryEntity

__all__ = [
    "CommunityReport",
    "EntityTuple",
    "HierarchyConfig",
    "RelationTuple",
    "SummaryEntity",
    "build_hierarchical",
    "extract_chunk",
    "leiden_communities",
]
