"""The retrieval backbone ACE runs on: which context builder serves C_base, Depth and Breadth.

ACE is a policy layer over an existing backbone. On HiRAG, C_base is the ``hi`` context, the
Depth branch is ``hi_local`` and the Breadth branch is ``hi_global`` (paper, Appendix E.3). The
transfer experiment (Table 6a) puts the same layer on GraphRAG: ``local+global`` for C_base,
``local`` for Depth and ``global`` for Breadth.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ace_lab.evidence import Retriever
from ace_lab.methods.graphrag import GraphRAGConfig, GraphRAGRetriever
from ace_lab.methods.hirag import HiConfig, HiRetriever
from ace_lab.retrieval import RetrievalGraph


@dataclass(frozen=True)
class Backbone:
    name: str
    retriever: Retriever
    base_mode: str
    depth_mode: str
    breadth_mode: str

    def mode_of(self, branch: str) -> str:
        return {"base": self.base_mode, "depth": self.depth_mode, "breadth": self.breadth_mode}[
            branch
        ]


def hirag_backbone(graph: RetrievalGraph, config: HiConfig | None = None) -> Backbone:
    return Backbone("hirag", HiRetriever(graph, config), "hi", "hi_local", "hi_global")


def graphrag_backbone(graph: RetrievalGraph, config: GraphRAGConfig | None = None) -> Backbone:
    return Backbone("graphrag", GraphRAGRetriever(graph, config), "local+global", "local", "global")


#: Every backbone by name (``@hirag``, ``@graphrag`` in a method name): its builder ...
BACKBONES: dict[str, Callable[..., Backbone]] = {
    "hirag": hirag_backbone,
    "graphrag": graphrag_backbone,
}
#: ... and the configuration type of its retriever (``BACKBONES[name](graph, config)``).
BACKBONE_CONFIGS: dict[str, type[HiConfig] | type[GraphRAGConfig]] = {
    "hirag": HiConfig,
    "graphrag": GraphRAGConfig,
}
