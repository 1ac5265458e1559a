"""ACE-GraphRAG: policy table, router and planner fallbacks, PDR concurrency, merge, adaptation,
and Full/Adaptive end to end on the toy graph (scripted LLM for control flow; smoke model for
the integration run)."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest

from ace_lab.ace.adapt import AdaptConfig, adapt
from ace_lab.ace.backbone import Backbone, hirag_backbone
from ace_lab.ace.merge import merge
from ace_lab.ace.pdr import parallel_differential_retrieval
from ace_lab.ace.planner import BranchQuery, plan
from ace_lab.ace.policy import (
    ContextPolicy,
    fixed_policies,
    full_policy,
    parse_policy,
    topology_policy,
)
from ace_lab.ace.router import route
from ace_lab.data import load_dataset
from ace_lab.embed import get_embedder
from ace_lab.evidence import Evidence, Trace
from ace_lab.llm import LLM
from ace_lab.methods.registry import METHODS, make_method
from tests.conftest import ScriptedClient, ace_reply


# ------------------------------------------------------------------------------------ policy
@pytest.mark.parametrize(
    ("label", "gap", "branches", "pruning"),
    [
        ("POINT", True, ("depth",), True),
        ("CONTRAST", True, ("breadth",), True),
        ("CHAIN", True, ("depth", "breadth"), False),
        ("OVERVIEW", False, ("depth", "breadth"), True),
    ],
)
def test_topology_policy_table(label, gap, branches, pruning):
    policy = topology_policy(label, "qa")
    assert (policy.gap, policy.branches, policy.pruning) == (gap, branches, pruning)


def test_full_policy_and_validation():
    full = full_policy("qfs")
    assert (full.gap, full.branches, full.pruning, full.profile) == (
        True,
        ("depth", "breadth"),
        True,
        "qfs",
    )
    assert ContextPolicy(branches=("breadth", "depth")).branches == ("depth", "breadth")
    with pytest.raises(ValueError, match="at least one"):
        full.without("depth", "breadth")
    with pytest.raises(ValueError, match="unknown branches"):
        ContextPolicy(branches=("sideways",))
    with pytest.raises(ValueError, match="profile"):
        ContextPolicy(profile="chat")
    with pytest.raises(ValueError, match="topology"):
        topology_policy("STAR")
    assert full_policy().without("gap").label == "depth+breadth+prune"
    assert len(fixed_policies()) == 12
    assert all(parse_policy(k) == p for k, p in fixed_policies().items())


# ------------------------------------------------------------------------------------ router
def test_router_parses_and_records_label(settings):
    llm = LLM(settings, client=ScriptedClient(['{"topology": "CHAIN"}']))
    trace = Trace()
    with trace.step("route") as step:
        decision = route(llm, "Who is the spouse of the director of X?")
    assert (decision.topology, decision.fallback, decision.attempts) == ("CHAIN", False, 1)
    assert step.outputs["topology"] == "CHAIN"
    request = llm._client.requests[0]
    assert request["temperature"] == 0.0 and "json_schema" in json.dumps(request["response_format"])


def test_router_falls_back_to_overview_after_three_attempts(settings):
    llm = LLM(settings, client=ScriptedClient(["not json", '{"topology": "STAR"}', "{}"]))
    trace = Trace()
    with trace.step("route") as step:
        decision = route(llm, "q")
    assert (decision.topology, decision.fallback, decision.attempts) == ("OVERVIEW", True, 3)
    assert step.outputs["fallback"] is True and any("OVERVIEW" in n for n in step.notes)
    assert len(llm._client.requests) == 3


# ----------------------------------------------------------------------------------- planner
def test_planner_assigns_branches_by_goal(settings):
    reply = {
        "analysis": "spouse of the director is missing",
        "queries": [
            {"query": "broad film history", "mode": "hi_global", "goal": "diversity"},
            {"query": "Fernando Cortes spouse", "mode": "hi_local", "goal": "empowerment"},
        ],
    }
    llm = LLM(settings, client=ScriptedClient([json.dumps(reply)]))
    made = plan(llm, "q", "context", gap=True)
    assert not made.fallback and made.analysis.startswith("spouse")
    assert made.queries["depth"].query == "Fernando Cortes spouse"
    assert made.queries["breadth"].query == "broad film history"
    assert "Retrieval Planner" in llm._client.requests[0]["messages"][0]["content"]


def test_planner_without_gap_uses_the_rewrite_prompt_and_drops_analysis(settings):
    reply = {"analysis": "ignored", "queries": [{"query": "a"}]}
    llm = LLM(settings, client=ScriptedClient([json.dumps(reply)]))
    made = plan(llm, "the query", "context", gap=False)
    assert made.analysis == "" and made.queries["depth"].query == "a"
    assert made.queries["breadth"].query == "the query"  # a missing branch keeps q
    assert "rewrite a query" in llm._client.requests[0]["messages"][0]["content"]


def test_planner_fallback_is_one_local_retrieval_with_the_original_query(settings):
    llm = LLM(settings, client=ScriptedClient(["sorry, no JSON"]))
    trace = Trace()
    with trace.step("plan") as step:
        made = plan(llm, "original q", "context", gap=True)
    assert made.fallback and list(made.queries) == ["depth"]
    assert made.queries["depth"].query == "original q"
    assert any("original query" in n for n in step.notes)


# ------------------------------------------------------------------------------- PDR, merge
class SlowRetriever:
    modes = ("base", "local", "global")

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    def retrieve(self, query: str, mode: str) -> list[Evidence]:
        time.sleep(self.delay_s)
        return [Evidence(f"{mode}:{query}", "passage", f"{mode} text for {query}")]


def test_branches_run_concurrently():
    backbone = Backbone("slow", SlowRetriever(0.5), "base", "local", "global")
    queries = [
        BranchQuery("depth", "d", "hi_local", "empowerment"),
        BranchQuery("breadth", "b", "hi_global", "diversity"),
    ]
    trace = Trace()
    start = time.perf_counter()
    with trace.activate():
        increments = parallel_differential_retrieval(backbone, queries, trace)
    wall = time.perf_counter() - start
    assert wall < 0.85, f"branches ran one after the other ({wall:.2f}s for 2 x 0.5s)"
    assert increments["depth"][0].branch == "depth" and increments["depth"][0].round == 1
    assert increments["breadth"][0].meta["goal"] == "diversity"
    steps = {s.name: s for s in trace.steps}
    assert steps["retrieve:depth"].queries == ["d"] and steps["retrieve:breadth"].queries == ["b"]


def test_merge_keeps_provenance_kind_and_level():
    shared = Evidence("e1", "summary", "A summary", level=2, source_ids=("c1",))
    base = [shared, Evidence("p1", "passage", "passage one")]
    depth = [replace(shared, branch="depth", round=1, score=0.9), Evidence("p2", "passage", "p")]
    depth[1] = replace(depth[1], branch="depth", round=1)
    merged = merge(base, {"depth": depth})
    assert [e.id for e in merged] == ["e1", "p1", "p2"]
    first = merged[0]
    assert first.meta["provenance"] == ["r0:base", "r1:depth"]
    assert (first.kind, first.level, first.source_ids, first.score) == ("summary", 2, ("c1",), 0.9)
    assert merged[2].meta["provenance"] == ["r1:depth"]


# ------------------------------------------------------------------------------- adaptation
@pytest.fixture(scope="module")
def embedder():
    return get_embedder()


def _bridge_items() -> list[Evidence]:
    path = Evidence(
        "path:a|b|c", "path", "Alpha --[x]-- Beta --[y]-- Gamma", meta={"nodes": ("a", "b", "c")}
    )
    return [
        Evidence("a", "entity", "zzz qqq unrelated words", meta={"nodes": ("a",)}),
        Evidence("r1", "relation", "kkk vvv", meta={"nodes": ("a", "c")}),
        Evidence("d", "entity", "completely unrelated noise", meta={"nodes": ("d",)}),
        Evidence("com:1", "report", "Lighthouse report", level=1),
        path,
    ]


def test_pruning_never_drops_bridge_evidence(embedder):
    items = _bridge_items()
    strict = AdaptConfig(prune_threshold=0.99)
    adapted = adapt(items, full_policy("qa"), ["lighthouse keeper"], embedder, strict)
    kept = {e.id for e in adapted.kept}
    assert {"a", "r1", "path:a|b|c"} <= kept
    reasons = dict((e.id, why) for e, why in adapted.dropped)
    assert reasons["d"].startswith("semantic pruning")
    assert reasons["com:1"].startswith("qa profile")


def test_qfs_profile_keeps_reports_and_no_pruning_keeps_everything(embedder):
    items = _bridge_items()
    qfs = adapt(items, full_policy("qfs").without("pruning"), ["q"], embedder)
    assert {e.id for e in qfs.kept} == {e.id for e in items} and not qfs.dropped
    assert qfs.kept[0].kind == "report"  # QFS puts the coarsest evidence first


def test_budget_drops_lowest_priority_first(embedder):
    items = [Evidence(f"p{i}", "passage", "word " * 60) for i in range(3)]
    items.append(Evidence("e", "entity", "Beta: an entity"))
    policy = full_policy().without("pruning")
    adapted = adapt(items, policy, ["q"], embedder, AdaptConfig(budget_tokens=150))
    kept = [e.id for e in adapted.kept]
    assert "e" in kept and len(kept) < len(items)
    assert all("token budget" in why for _, why in adapted.dropped)


# ------------------------------------------------------------------------------ end to end
STAGES = ["retrieve:base", "policy", "plan", "retrieve:depth", "retrieve:breadth", "merge", "adapt"]


def test_full_and_adaptive_trace_every_stage(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    query = load_dataset("toy").questions[0].question
    full = make_method("ace-full", toy_graph, llm).answer(query)
    assert full.text == "Brinemouth"
    assert [s.name for s in full.trace.steps] == [*STAGES, "generate"]
    assert full.meta["retrieval_calls"] == 3 and full.meta["policy"]["label"] == (
        "gap+depth+breadth+prune"
    )
    assert full.trace.summary()["llm_calls"] == 2  # planner + generation
    assert {e.branch for e in full.meta["stages"]["merged"]} >= {"base"}

    adaptive = make_method("ace-adaptive", toy_graph, llm).answer(query)
    names = [s.name for s in adaptive.trace.steps]
    assert names[:2] == ["retrieve:base", "route"] and "retrieve:breadth" not in names
    assert adaptive.meta["topology"] == "POINT" and adaptive.meta["retrieval_calls"] == 2
    assert adaptive.trace.summary()["llm_calls"] == 3


def test_fixed_multires_makes_one_llm_call_and_three_retrievals(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    answer = make_method("ace-fixed-multires", toy_graph, llm).answer("tidal lantern museum")
    assert answer.trace.summary()["llm_calls"] == 1 and answer.meta["retrieval_calls"] == 3
    assert answer.meta["plan"]["queries"] == {
        "depth": "tidal lantern museum",
        "breadth": "tidal lantern museum",
    }


def test_every_registered_method_answers(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    for name in [*METHODS, "ace-fixed:depth", "ace-adaptive@graphrag"]:
        answer = make_method(name, toy_graph, llm).answer("Who founded the observatory?")
        assert answer.text == "Brinemouth", name
        assert answer.context.evidence, name
    with pytest.raises(KeyError, match="unknown method"):
        make_method("bogus", toy_graph, llm)


def test_hirag_modes_return_evidence_without_answering(toy_graph):
    backbone = hirag_backbone(toy_graph)
    local = backbone.retriever.retrieve("tidal lantern", "hi_local")
    glob = backbone.retriever.retrieve("tidal lantern", "hi_global")
    assert {e.kind for e in local} <= {"entity", "relation", "passage"}
    assert {e.kind for e in glob} <= {"summary", "report"} and glob
    with pytest.raises(ValueError, match="unknown HiRAG mode"):
        backbone.retriever.retrieve("q", "hi_sideways")


@pytest.mark.integration
def test_full_and_adaptive_with_the_smoke_model(settings, toy_graph):
    from ace_lab.llm import server

    llm = LLM(settings)
    query = load_dataset("toy").questions[1].question
    try:
        for name in ("ace-full", "ace-adaptive"):
            answer = make_method(name, toy_graph, llm).answer(query)
            steps = {s.name: s for s in answer.trace.steps}
            assert {"retrieve:base", "policy", "plan", "merge", "adapt", "generate"} <= set(steps)
            assert steps["generate"].llm_calls and answer.meta["raw"]
            assert answer.context.evidence
            if name == "ace-adaptive":
                assert steps["route"].outputs["topology"] in (
                    "POINT",
                    "CONTRAST",
                    "CHAIN",
                    "OVERVIEW",
                )
    finally:
        server.stop(settings)


def test_trace_printout_and_stepper_stages(settings, toy_graph, tmp_path):
    from ace_lab import widgets
    from ace_lab.methods.ask import cost_line, format_trace

    llm = LLM(settings, client=ScriptedClient(ace_reply))
    answer = make_method("ace-adaptive", toy_graph, llm).answer("tidal lantern museum")
    printed = format_trace(answer.trace)
    assert all(f"== {s.name}" in printed for s in answer.trace.steps)
    assert "llm ace.router" in printed and "2 retrieval calls" in cost_line(answer)
    names = [s.name for s in widgets.stages(answer)]
    assert names == [
        "C_base",
        "policy",
        "gap analysis",
        "branch queries",
        "ΔC depth",
        "C* merged",
        "C̃ adapted",
        "answer",
    ]
    assert widgets.stages(answer)[1].summary.startswith("router label POINT")
    manual = widgets.ace_method(toy_graph, llm, "manual", gap=False, depth=False)
    assert manual.answer("q").meta["policy"]["label"] == "breadth+prune"
    html = widgets.evidence_subgraph(toy_graph, answer, "ev", tmp_path)
    assert html.is_file() and "vis-network" in html.read_text()
