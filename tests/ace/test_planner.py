"""ace_lab.ace.planner: branch assignment by goal, the rewrite prompt, the fallback plan."""

from __future__ import annotations

import json

from ace_lab.ace.planner import plan
from ace_lab.ace.steps import GapPlan
from ace_lab.evidence import Trace
from ace_lab.llm import LLM
from tests.support.scripted import ScriptedClient


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
    assert made.payload() == GapPlan("", {"depth": "original q"}, True)
    assert made.payload().summary() == {
        "analysis": "",
        "queries": {"depth": "original q"},
        "fallback": True,
    }
