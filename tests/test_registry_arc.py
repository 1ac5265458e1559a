"""ace_lab.registry.arc: ArcRAG's names pick the stages, the budget and the graph family; the
registry entries read the Cypher store on both families (Direct-Cypher: one attempt, one pass)."""

from __future__ import annotations

import pytest

from ace_lab.arc.budget import Budget
from ace_lab.arc.method import ArcConfig, ArcRAG
from ace_lab.arc.names import ARC_METHODS
from ace_lab.registry import REGISTRY, graph_family, make_method, spec


def test_names_pick_components_budget_and_family():
    full = spec("arcrag")
    assert (full.config(ArcConfig).components, full.config(Budget), full.family) == (
        "full",
        Budget(),
        "typed",
    )
    explorer = spec("arcrag-explorer:r1p3@openie")
    assert explorer.config(ArcConfig).components == "explorer+generator"
    assert (explorer.config(Budget).label, explorer.family) == ("r1p3", "openie")
    assert "openie" in explorer.description and "r1p3" in explorer.description
    assert spec("arcrag-generator").config(ArcConfig).components == "generator"
    direct = spec("direct-cypher")
    assert direct.config(ArcConfig).direct and direct.config(Budget).label == "r1p1"
    assert spec("arcrag@typed").family == "typed"
    for bad in ("arcrag@hierarchical", "arcrag:fast", "arcrags", "arcrag>depth"):
        with pytest.raises(KeyError):
            spec(bad)


def test_registry_entries_read_the_cypher_store_on_both_families():
    for name in ARC_METHODS:
        assert name in REGISTRY and REGISTRY[name].needs_store
        assert REGISTRY[name].report == "ace_lab.arc.report"
    assert graph_family("arcrag") == "typed" and graph_family("arcrag@openie") == "openie"
    s = spec("arcrag:r3p5@openie")
    assert s.family == "openie" and s.needs_store
    config, budget = s.configs
    assert isinstance(config, ArcConfig) and budget.label == "r3p5"
    assert spec("arcrag-explorer:r1p1").configs[1].label == "r1p1"
    with pytest.raises(KeyError):
        spec("arcrag@bogus")


def test_make_method_builds_an_arcrag_with_its_budget(tiny_graph, settings):
    from ace_lab.llm import LLM
    from tests.conftest import ScriptedClient, arc_reply

    method = make_method(
        "direct-cypher:r2p1", tiny_graph, LLM(settings, client=ScriptedClient(arc_reply()))
    )
    assert isinstance(method, ArcRAG) and method.name == "direct-cypher:r2p1"
    assert method.config.direct and method.budget.label == "r2p1"
    assert not ArcConfig(components="generator").explores
    assert ArcConfig().plans and ArcConfig(components="explorer+generator").explores
