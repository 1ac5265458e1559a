"""The retrieval backbone ACE runs on: which context builder serves C_base, Depth and Breadth.

ACE is a policy layer over an existing backbone. On HiRAG, C_base is the ``hi`` context, the
Depth branch is ``hi_local`` and the Breadth branch is ``hi_global`` (paper, Appendix E.3). The
transfer experiment (Table 6a) puts the same layer on GraphRAG: ``local+global`` for C_base,
``local`` for Depth and ``global`` for Breadth. A ``Backbone`` is an
:class:`~ace_lab.ace.source.EvidenceSource`; a branch may use its own retriever (another
setting of the same method, e.g. NaiveRAG with a larger pool for Breadth).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ace_lab.evidence import Evidence, Retriever, Trace
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
    #: Retrievers of the branches when they differ from ``retriever`` (another setting).
    depth_retriever: Retriever | None = None
    breadth_retriever: Retriever | None = None

    def mode_of(self, branch: str) -> str:
        return {"base": self.base_mode, "depth": self.depth_mode, "breadth": self.breadth_mode}[
            branch
        ]

    def retriever_of(self, branch: str) -> Retriever:
        """The retriever serving ``branch`` (``base``, ``depth`` or ``breadth``)."""
        own = {"depth": self.depth_retriever, "breadth": self.breadth_retriever}.get(branch)
        return own if own is not None else self.retriever

    def base(self, query: str, task: str, trace: Trace) -> list[Evidence]:
        """C_base: one call of the base mode (no steps of its own)."""
        return self.retriever.retrieve(query, self.base_mode)

    def differential(self, query: str, branch: str, trace: Trace) -> tuple[str, list[Evidence]]:
        """ΔC of ``branch``: its retriever in its mode, with the branch query (no steps of its
        own)."""
        mode = self.mode_of(branch)
        return mode, self.retriever_of(branch).retrieve(query, mode)


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
