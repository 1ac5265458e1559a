"""ace_lab.arc.specs: ArcRAG's names pick the stages, the switches (``strict``), the budget
and the graph family, in one canonical order; the registry entries read the Cypher store on
every family (Direct-Cypher: one attempt, one pass); existing names keep their config hash."""

from __future__ import annotations

from dataclasses import fields

import pytest

from ace_lab.arc.budget import Budget
from ace_lab.arc.method import ArcConfig, ArcRAG
from ace_lab.arc.names import ARC_METHODS, FAMILIES
from ace_lab.eval.studies.identity import config_hash, method_configuration
from ace_lab.registry import REGISTRY, canonical_name, graph_family, make_method, parse, spec


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
    from tests.support.replies import arc_reply
    from tests.support.scripted import ScriptedClient

    method = make_method(
        "direct-cypher:r2p1", tiny_graph, LLM(settings, client=ScriptedClient(arc_reply()))
    )
    assert isinstance(method, ArcRAG) and method.name == "direct-cypher:r2p1"
    assert method.config.direct and method.budget.label == "r2p1"
    assert not ArcConfig(components="generator").explores
    assert ArcConfig().plans and ArcConfig(components="explorer+generator").explores


def test_strict_and_budget_tokens_make_the_variant_in_one_canonical_order():
    strict = spec("arcrag:strict").config(ArcConfig)
    assert (strict.template, strict.fallback, strict.components) == (False, False, "full")
    both = spec("arcrag:r3p5+strict@openie")
    assert both.name == "arcrag:strict+r3p5@openie" and both.family == "openie"
    assert both.config(Budget).label == "r3p5" and not both.config(ArcConfig).template
    assert canonical_name("arcrag-generator:strict") == "arcrag-generator:strict"
    assert not spec("arcrag-generator:strict").config(ArcConfig).fallback
    for name in ("arcrag:strict", "arcrag:strict+r3p5@openie", "arcrag-explorer:strict+r1p1"):
        assert str(parse(name)) == name == spec(name).name  # round trip through the grammar
    for bad in ("arcrag:strict+strict", "arcrag:r1p1+r2p2", "arcrag:strict+fast", "arcrag:+"):
        with pytest.raises(KeyError, match=r"variant|malformed"):
            spec(bad)


def test_strict_is_refused_where_it_changes_nothing_and_grammar_waits_for_its_field():
    with pytest.raises(KeyError, match="Direct-Cypher has no scan template"):
        spec("direct-cypher:strict")
    if "grammar" not in {f.name for f in fields(ArcConfig)}:
        with pytest.raises(KeyError, match=r"no ArcConfig\.grammar"):
            spec("arcrag:grammar")
    else:  # schema-constrained decoding has landed: the token switches it on
        assert spec("arcrag:strict+grammar").config(ArcConfig).grammar


def test_patterns_narrows_the_grammar_and_is_refused_without_it():
    with pytest.raises(KeyError, match="write grammar\\+patterns"):
        spec("arcrag:patterns")
    config = spec("arcrag-generator:patterns+grammar+r1p1").config(ArcConfig)
    assert config.grammar and config.patterns
    assert spec("arcrag-generator:patterns+grammar+r1p1").name == (
        "arcrag-generator:grammar+patterns+r1p1"  # the canonical order
    )


def test_strict_is_registered_beside_arcrag_on_every_family():
    for family in FAMILIES:
        name = "arcrag:strict" if family == "typed" else f"arcrag:strict@{family}"
        assert name in ARC_METHODS and REGISTRY[name].family == family
    assert ARC_METHODS.index("arcrag:strict") == ARC_METHODS.index("arcrag") + 1
    assert spec("arcrag").config(ArcConfig) == ArcConfig(components="full")
    assert ArcConfig().template and ArcConfig().fallback  # today's ArcRAG is the default


#: Configuration hashes of committed names before the switches existed: adding a switch whose
#: default is the old behaviour must leave them as they were (records carry them).
HASHES_BEFORE_THE_SWITCHES = {
    "arcrag": "58c9f27987a580ae",
    "arcrag@openie": "ee2af9b1b0921179",
    "arcrag:r3p5": "ed7e33302df65edb",
    "arcrag-generator@openie": "6962423500ddf1d3",
    "direct-cypher": "cc1e34b58556147b",
}


def test_existing_names_keep_their_configuration_hash():
    assert {n: config_hash(n) for n in HASHES_BEFORE_THE_SWITCHES} == HASHES_BEFORE_THE_SWITCHES
    assert config_hash("arcrag:strict") not in HASHES_BEFORE_THE_SWITCHES.values()
    fields_of = method_configuration("arcrag:strict")["configs"][0]["fields"]
    assert (fields_of["template"], fields_of["fallback"]) == (False, False)
    assert "template" not in method_configuration("arcrag")["configs"][0]["fields"]


def test_judge_is_the_paper_s_sampled_sufficiency_judgement_and_keeps_old_hashes():
    assert ArcConfig().judge_temperature == 0.0  # every committed record judged greedily
    judged = spec("arcrag:r3p3+judge+strict")
    assert judged.name == "arcrag:strict+judge+r3p3"  # the canonical order
    assert judged.config(ArcConfig).judge_temperature == 1.0
    assert config_hash("arcrag:judge") not in HASHES_BEFORE_THE_SWITCHES.values()
    assert "judge_temperature" not in method_configuration("arcrag")["configs"][0]["fields"]
    with pytest.raises(KeyError, match="no sufficiency judgement"):
        spec("direct-cypher:judge")
