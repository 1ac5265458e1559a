"""Compositions: ``<source>><ace name>`` — an ACE method run over another method's evidence.

``mosaic>ace-full``, ``arcrag>ace-adaptive``, ``hipporag@hierarchical>ace-fixed:gap+depth``:
the part before ``>`` is any method name whose head can serve as an evidence source
(:data:`SOURCE_HEADS`), the part after it any ACE name without a backbone. The composed method
reads the source's graph family (and its Cypher store), runs the ACE name's configuration
(policy, planner, adaptation budget) and keeps every configuration of both parts, so its
config hash changes when either part's does. The registry builds the source and injects it
into ACE (:class:`~ace_lab.ace.method.AceGraphRAG` over an
:class:`~ace_lab.ace.source.EvidenceSource`).
"""

from __future__ import annotations

from collections.abc import Callable

from ace_lab.ace.compose import SOURCE_BACKBONES, Provenanced
from ace_lab.ace.method import AceGraphRAG
from ace_lab.ace.source import EvidenceSource
from ace_lab.arc.budget import Budget
from ace_lab.arc.method import ArcConfig
from ace_lab.arc.names import ARC_HEADS
from ace_lab.arc.source import ArcSource
from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.mosaic.method import MOSAIC_HEADS
from ace_lab.mosaic.source import MosaicSource
from ace_lab.registry import ace, mosaic
from ace_lab.registry.method_spec import ACE_REPORT, MethodSpec
from ace_lab.registry.names import MethodName, head_of, parse
from ace_lab.retrieval import RetrievalGraph

SourceFactory = Callable[[RetrievalGraph, LLM], EvidenceSource]
#: Every name head that can be a composition's source.
SOURCE_HEADS: tuple[str, ...] = (*SOURCE_BACKBONES, *MOSAIC_HEADS, *ARC_HEADS)


def is_composition(parts: MethodName) -> bool:
    """Whether ``parts`` names a composition (its ``>policy`` is an ACE method, ``ace-…``)."""
    return bool(parts.policy) and ace.is_ace(head_of(parts.policy)) and "-" in parts.policy


def _source(source: MethodSpec, parts: MethodName) -> SourceFactory:
    """How to build the evidence source named by ``parts`` (resolved to ``source``)."""
    name, head = source.name, parts.head
    if head in SOURCE_BACKBONES:
        build = SOURCE_BACKBONES[head]
        return lambda graph, llm: build(graph)
    if head in MOSAIC_HEADS:
        policy, config, analyzer = mosaic.source_settings(source)
        return lambda graph, llm: MosaicSource(
            graph, llm, policy=policy, config=config, name=name, analyzer=analyzer
        )
    if head in ARC_HEADS:
        arc_config, budget = source.config(ArcConfig), source.config(Budget)
        return lambda graph, llm: ArcSource(graph, llm, arc_config, budget, name=name)
    use = ", ".join(SOURCE_HEADS)
    raise KeyError(f"{head!r} cannot be the source of a composition; use one of {use}")


def resolve(parts: MethodName, spec_of: Callable[[str], MethodSpec]) -> MethodSpec:
    """The spec of composition ``parts``; ``spec_of`` resolves the source's own name."""
    name = str(parts)
    if parse(parts.policy).family:
        raise KeyError(f"{name!r}: the ACE part takes no @backbone; the source is its backbone")
    config = ace.ace_config(parts.policy)
    source = spec_of(str(MethodName(parts.head, parts.variant, parts.family)))
    build = _source(source, parts)

    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        evidence = Provenanced(build(graph, llm), source.name)
        return AceGraphRAG(evidence, llm, config, name=name, embedder=graph.embedder)

    own = (config.policy,) if config.policy is not None else ()
    configs = (config, *own, config.adapt, *source.configs)
    about = f"{parts.policy} over the evidence of {source.name} (composition)"
    return MethodSpec(name, source.family, factory, source.needs_store, about, configs, ACE_REPORT)
