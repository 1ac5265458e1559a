"""ace_lab.registry: one MethodSpec per method, parametric names, graph families."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ace_lab.ace.method import AceGraphRAG
from ace_lab.ace.specs import ace_config, fixed_policy_runs
from ace_lab.arc.method import ArcRAG
from ace_lab.llm import LLM
from ace_lab.methods.base import RetrieveThenGenerate
from ace_lab.mosaic.method import Mosaic
from ace_lab.registry import (
    METHODS,
    REGISTRY,
    graph_family,
    make_method,
    method_table,
    report,
    spec,
)
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient


def test_every_registered_method_answers(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    for name in [*METHODS, "ace-fixed:depth", "ace-adaptive@graphrag"]:
        answer = make_method(name, toy_graph, llm).answer("Who founded the observatory?")
        assert answer.text == "Brinemouth", name
        # Direct-Cypher's and strict ArcRAG's only evidence is what model-written queries
        # return; the ACE script writes no Cypher, so they answer from an empty context (the
        # papers' methods do too).
        empty = name.startswith("direct-cypher") or name.startswith("arcrag:strict")
        assert answer.context.evidence or empty, name
    with pytest.raises(KeyError, match="unknown method"):
        make_method("bogus", toy_graph, llm)


def test_method_table_lists_every_method_with_family_and_description():
    table = method_table()
    assert list(table["method"]) == list(METHODS)
    assert table["description"].str.len().min() > 10
    assert set(table["family"]) == {"hierarchical", "openie", "typed", "openie-bare"}
    assert graph_family("hipporag") == "openie" and graph_family("ace-full") == "hierarchical"
    assert graph_family("hipporag@hierarchical") == "hierarchical"
    assert graph_family("arcrag") == "typed" and graph_family("arcrag@openie") == "openie"
    # Only the methods that read the graph through model-written Cypher start the store.
    readers = table.loc[table["cypher store"], "method"]
    assert set(readers) == {m for m in METHODS if m.startswith(("arcrag", "direct-cypher"))}


def test_parametric_names_resolve_to_configurations():
    assert spec("ace-fixed:gap+depth").family == "hierarchical"
    assert ace_config("ace-fixed:gap+depth").policy.label == "gap+depth"
    assert ace_config("ace-wo-gap").policy.label == "depth+breadth+prune"
    assert ace_config("ace-fixed-multires").rewrite is False
    assert "graphrag" in spec("ace-adaptive@graphrag").description
    with pytest.raises(KeyError, match="unknown backbone"):
        spec("ace-full@lightrag")
    with pytest.raises(KeyError, match="unknown ACE method"):
        spec("ace-bogus")


def test_methods_are_configurations_of_four_classes(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    kinds = {type(REGISTRY[name].make(toy_graph, llm)) for name in METHODS}
    assert kinds == {RetrieveThenGenerate, AceGraphRAG, ArcRAG, Mosaic}


def test_fixed_policy_runs_name_the_ablation_that_equals_the_policy():
    assert fixed_policy_runs("gap+depth+prune") == ("ace-wo-breadth", "ace-fixed:gap+depth+prune")
    assert fixed_policy_runs("depth") == ("ace-fixed:depth",)


def test_answer_prompt_and_router_variants(settings, toy_graph):
    client = ScriptedClient(ace_reply)
    llm = LLM(settings, client=client)
    method = make_method("hirag-json", toy_graph, llm)
    assert isinstance(method, RetrieveThenGenerate) and method.prompt_style == "json"
    assert method.mode == "hi" and graph_family("hirag-json") == "hierarchical"
    method.answer("Who founded the observatory?")
    assert client.requests[-1]["response_format"]["type"] == "json_schema"
    assert make_method("hirag", toy_graph, llm).prompt_style == "task"  # the paper's prompt
    assert ace_config("ace-adaptive-fewshot").router_prompt == "fewshot"
    assert ace_config("ace-adaptive").router_prompt == "paper"
    assert ace_config("ace-adaptive-fewshot").mode == "adaptive"


def test_each_method_names_its_report_package(monkeypatch):
    assert spec("hirag").report == "" and report("hirag") is None  # baselines have none
    assert {spec(n).report for n in ("ace-full", "ace-fixed:depth@graphrag", "ace>gap+depth")} == {
        "ace_lab.ace.report"
    }
    assert spec("arcrag:r1p1@openie").report == "ace_lab.arc.report"
    assert spec("mosaic>narrow").report == "ace_lab.mosaic.report"
    for name in ("ace-full", "arcrag", "mosaic"):
        module = report(name)  # imported lazily; None until the method has a report package
        assert module is None or module.__name__ == spec(name).report
    hirag = REGISTRY["hirag"]
    monkeypatch.setitem(REGISTRY, "x", replace(hirag, name="x", report="ace_lab.steps"))
    assert report("x").__name__ == "ace_lab.steps"
    monkeypatch.setitem(REGISTRY, "y", replace(hirag, name="y", report="ace_lab.no_such_report"))
    assert report("y") is None


def test_ace_backbones_come_from_the_one_backbone_map():
    from ace_lab.ace.backbone import BACKBONE_CONFIGS, BACKBONES

    assert set(BACKBONE_CONFIGS) == set(BACKBONES) == {"hirag", "graphrag"}
    for backbone, kind in BACKBONE_CONFIGS.items():
        assert isinstance(spec(f"ace-adaptive@{backbone}").configs[-1], kind)
    with pytest.raises(KeyError, match="use @hirag or @graphrag"):
        spec("ace-adaptive@naive")
