"""Composition: ACE's context policy over another method's evidence (``source>ace-…`` names).

``mosaic>ace-full`` runs Algorithm 1 with MOSAIC's selected context as C_base, MOSAIC's
exploration at other policies as the Depth and Breadth retrievals, and ACE's merge and
adaptation at ACE's own budget (the ``AdaptConfig`` of the ACE name: the same context budget
as that ACE method alone). This module holds what ACE needs to compose:

- :class:`Provenanced`: any :class:`~ace_lab.ace.source.EvidenceSource` whose items name the
  part of the composition that produced them (``meta["part"]``: the source's name for C_base,
  ``ace:<branch>`` for a differential retrieval; the merge adds ``provenance``);
- :data:`SOURCE_BACKBONES`: the retrieve-then-generate baselines as sources, each branch at
  another setting of the same retriever (the registry builds MOSAIC's and ArcRAG's sources
  from their own packages and injects them; ACE imports no other method package).

====================  =====================  ====================  =========================
source                C_base                 Depth                 Breadth
====================  =====================  ====================  =========================
``hirag``             ``hi``                 ``hi_local``          ``hi_global``
``graphrag``          ``local+global``       ``local``             ``global``
``lightrag``          ``hybrid``             ``local``             ``global``
``naive``             passages               passages              passages, 3× pool/budget
``hipporag``          PPR                    PPR                   PPR from 10 seeds, any hit
====================  =====================  ====================  =========================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ace_lab.ace.backbone import Backbone, graphrag_backbone, hirag_backbone
from ace_lab.ace.source import PART, EvidenceSource
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Evidence, Trace, tag
from ace_lab.methods.hipporag import HippoConfig, HippoRetriever
from ace_lab.methods.lightrag import LightRAGRetriever
from ace_lab.methods.naive import NaiveConfig, NaiveRetriever
from ace_lab.retrieval import RetrievalGraph

#: NaiveRAG's Breadth setting: a three times larger pool and budget (more, farther passages).
NAIVE_BREADTH = NaiveConfig(candidates=150, budget_tokens=3 * CONTEXT_BUDGET_TOKENS)
#: HippoRAG's Breadth setting: twice the seeds, any index hit seeds the walk.
HIPPO_BREADTH = HippoConfig(top_seeds=10, seed_match="any")


def naive_source(graph: RetrievalGraph) -> Backbone:
    base = NaiveRetriever(graph)
    breadth = NaiveRetriever(graph, NAIVE_BREADTH)
    return Backbone("naive", base, "passages", "passages", "passages", breadth_retriever=breadth)


def lightrag_source(graph: RetrievalGraph) -> Backbone:
    return Backbone("lightrag", LightRAGRetriever(graph), "hybrid", "local", "global")


def hipporag_source(graph: RetrievalGraph) -> Backbone:
    breadth = HippoRetriever(graph, HIPPO_BREADTH)
    return Backbone(
        "hipporag", HippoRetriever(graph), "ppr", "ppr", "ppr", breadth_retriever=breadth
    )


#: The baselines ACE composes with, by name head: a builder of the source over a graph.
SOURCE_BACKBONES: dict[str, Callable[[RetrievalGraph], Backbone]] = {
    "hirag": hirag_backbone,
    "graphrag": graphrag_backbone,
    "lightrag": lightrag_source,
    "naive": naive_source,
    "hipporag": hipporag_source,
}


@dataclass(frozen=True)
class Provenanced:
    """``source`` under the composition's name, its items marked with the part that found
    them: ``meta["part"]`` = ``name`` for C_base, ``ace:<branch>`` for ΔC_b."""

    source: EvidenceSource
    name: str

    @property
    def base_mode(self) -> str:
        return self.source.base_mode

    def base(self, query: str, task: str, trace: Trace) -> list[Evidence]:
        return _part(self.source.base(query, task, trace), self.name)

    def differential(self, query: str, branch: str) -> tuple[str, list[Evidence]]:
        mode, items = self.source.differential(query, branch)
        return mode, _part(items, f"ace:{branch}")


def _part(items: list[Evidence], part: str) -> list[Evidence]:
    """``items`` with ``meta["part"]`` set, keeping their branch and round."""
    return [tag([e], e.branch, e.round, **{PART: part})[0] for e in items]
