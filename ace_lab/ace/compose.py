"""Composition: ACE's context policy over another method's evidence (``source>ace-…`` names).

``mosaic>ace-full`` runs Algorithm 1 with MOSAIC's selected context as C_base, MOSAIC's
exploration at other policies as the Depth and Breadth retrievals, and ACE's merge and
adaptation at ACE's own budget (the ``AdaptConfig`` of the ACE name: the same context budget
as that ACE method alone). This module holds what ACE needs to compose:

- :class:`Provenanced`: any :class:`~ace_lab.ace.source.EvidenceSource` whose items name the
  part of the composition that produced them (``meta["part"]``: the source's name for C_base,
  ``ace:<branch>`` for a differential retrieval; the merge adds ``provenance``);
- :data:`SOURCE_BACKBONES`: the retrieve-then-generate baselines as sources, each branch at
  another setting of the same retriever (MOSAIC's and ArcRAG's sources come from their own
  plugins, :attr:`ace_lab.methods.plugin.MethodPlugin.source`; ACE imports no other method
  package);
- :func:`composed_spec`: the spec of ``<source>><ace name>`` over a source's factory.

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
from ace_lab.ace.method import AceGraphRAG
from ace_lab.ace.source import PART, EvidenceSource
from ace_lab.ace.specs import REPORT, ace_config
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Evidence, Trace, tag
from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.methods.hipporag import HippoConfig, HippoRetriever
from ace_lab.methods.lightrag import LightRAGRetriever
from ace_lab.methods.naive import NaiveConfig, NaiveRetriever
from ace_lab.methods.names import MethodName, parse
from ace_lab.methods.plugin import SourceFactory
from ace_lab.methods.spec import MethodSpec
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

    def differential(self, query: str, branch: str, trace: Trace) -> tuple[str, list[Evidence]]:
        mode, items = self.source.differential(query, branch, trace)
        return mode, _part(items, f"ace:{branch}")


def _part(items: list[Evidence], part: str) -> list[Evidence]:
    """``items`` with ``meta["part"]`` set, keeping their branch and round."""
    return [tag([e], e.branch, e.round, **{PART: part})[0] for e in items]


def backbone_source(source: MethodSpec) -> SourceFactory:
    """A baseline's retriever as a composition's source (its head's :data:`SOURCE_BACKBONES`)."""
    build = SOURCE_BACKBONES[source.name.split(":")[0].split("@")[0]]
    return lambda graph, llm: build(graph)


def composed_spec(parts: MethodName, source: MethodSpec, build: SourceFactory) -> MethodSpec:
    """The spec of composition ``parts`` (``mosaic>ace-full``): the ACE name after ``>`` over
    the evidence ``build`` serves for ``source``. It reads the source's graph family (and its
    Cypher store) and keeps every configuration of both parts, so its config hash changes when
    either part's does."""
    name = str(parts)
    if parse(parts.policy).family:
        raise KeyError(f"{name!r}: the ACE part takes no @backbone; the source is its backbone")
    config = ace_config(parts.policy)

    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        evidence = Provenanced(build(graph, llm), source.name)
        return AceGraphRAG(evidence, llm, config, name=name, embedder=graph.embedder)

    own = (config.policy,) if config.policy is not None else ()
    configs = (config, *own, config.adapt, *source.configs)
    about = f"{parts.policy} over the evidence of {source.name} (composition)"
    return MethodSpec(name, source.family, factory, source.needs_store, about, configs, REPORT)
