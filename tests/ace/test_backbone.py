"""ace_lab.ace.backbone: which retriever and modes serve C_base, Depth and Breadth on HiRAG and
on GraphRAG (the transfer backbone)."""

from __future__ import annotations

import pytest

from ace_lab.ace.backbone import BACKBONES, graphrag_backbone, hirag_backbone
from ace_lab.methods.graphrag import GraphRAGConfig, GraphRAGRetriever
from ace_lab.methods.hirag import HiConfig, HiRetriever

BRANCHES = ("base", "depth", "breadth")


def test_backbones_map_each_branch_to_a_retriever_mode(toy_graph):
    hirag = hirag_backbone(toy_graph)
    assert isinstance(hirag.retriever, HiRetriever) and hirag.name == "hirag"
    assert [hirag.mode_of(b) for b in BRANCHES] == ["hi", "hi_local", "hi_global"]
    graphrag = graphrag_backbone(toy_graph)
    assert isinstance(graphrag.retriever, GraphRAGRetriever) and graphrag.name == "graphrag"
    assert [graphrag.mode_of(b) for b in BRANCHES] == ["local+global", "local", "global"]
    for backbone in (hirag, graphrag):
        assert all(backbone.mode_of(b) in backbone.retriever.modes for b in BRANCHES)
    with pytest.raises(KeyError):
        hirag.mode_of("sideways")
    assert BACKBONES["hirag"] is hirag_backbone and BACKBONES["graphrag"] is graphrag_backbone
    assert set(BACKBONES) == {"hirag", "graphrag"}


def test_backbones_pass_their_config_to_the_retriever(toy_graph):
    hi = HiConfig(budget_tokens=300)
    assert hirag_backbone(toy_graph, hi).retriever.config is hi
    gr = GraphRAGConfig(global_reports=1)
    assert graphrag_backbone(toy_graph, gr).retriever.config is gr


def test_backbone_branches_retrieve_evidence_without_answering(toy_graph):
    backbone = hirag_backbone(toy_graph)
    depth = backbone.retriever.retrieve("tidal lantern", backbone.mode_of("depth"))
    breadth = backbone.retriever.retrieve("tidal lantern", backbone.mode_of("breadth"))
    assert depth and {e.kind for e in depth} <= {"entity", "relation", "passage"}
    assert breadth and {e.kind for e in breadth} <= {"summary", "report"}
