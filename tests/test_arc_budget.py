"""ace_lab.arc.budget and ace_lab.arc.names: the frozen budget, budget labels, method names and
their registry entries (families, store use, Direct-Cypher's one attempt and one pass)."""

from __future__ import annotations

import dataclasses

import pytest

from ace_lab.arc.budget import Budget
from ace_lab.arc.method import ArcConfig, ArcRAG
from ace_lab.arc.names import ARC_METHODS, parse_name
from ace_lab.bounded import ConfigError
from ace_lab.registry import REGISTRY, graph_family, make_method, spec


def test_budget_defaults_are_the_papers_and_frozen():
    b = Budget()
    assert (b.passes, b.explorers, b.explorer_turns, b.max_subplans) == (6, 2, 3, 4)
    assert b.label == "r3p6"
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.retries = 5  # type: ignore[misc]


@pytest.mark.parametrize("field", ["retries", "passes", "explorer_turns", "max_rows"])
def test_budget_rejects_out_of_bounds_values(field):
    with pytest.raises(ConfigError, match=field):
        Budget(**{field: 0})


def test_budget_labels_round_trip_and_bad_labels_fail():
    assert Budget.parse("r5p1").label == "r5p1"
    assert Budget.parse("r1p3", Budget(max_rows=7)).max_rows == 7
    for bad in ("r3", "p5r3", "r3p5x", "rXpY"):
        with pytest.raises(ValueError, match="budget label"):
            Budget.parse(bad)
    with pytest.raises(ConfigError):
        Budget.parse("r0p5")


def test_names_pick_components_budget_and_family():
    assert parse_name("arcrag")[:3] == ("full", Budget(), "typed")
    components, budget, family, about = parse_name("arcrag-explorer:r1p3@openie")
    assert (components, budget.label, family) == ("explorer+generator", "r1p3", "openie")
    assert "openie" in about and "r1p3" in about
    assert parse_name("arcrag-generator")[0] == "generator"
    direct = parse_name("direct-cypher")
    assert direct[0] == "direct" and direct[1].label == "r1p1"
    assert parse_name("arcrag@typed")[2] == "typed"
    for bad in ("arcrag@hierarchical", "arcrag:fast", "arcrags"):
        with pytest.raises(KeyError):
            parse_name(bad)


def test_registry_entries_read_the_cypher_store_on_both_families():
    for name in ARC_METHODS:
        assert name in REGISTRY and REGISTRY[name].needs_store
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
