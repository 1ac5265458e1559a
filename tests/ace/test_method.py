"""ace_lab.ace.method: Full, Adaptive and fixed-policy ACE end to end on the toy graph, every
stage recorded in the trace (scripted LLM for control flow; the smoke model for integration)."""

from __future__ import annotations

import json

import pytest

from ace_lab.ace.method import AceConfig
from ace_lab.ace.steps import AceDetails, PolicyDecision
from ace_lab.bounded import ConfigError
from ace_lab.data import load_dataset
from ace_lab.llm import LLM
from ace_lab.registry import make_method
from ace_lab.steps import from_record, to_record
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient

STAGES = ["retrieve:base", "policy", "plan", "retrieve:depth", "retrieve:breadth", "merge", "adapt"]


def test_full_and_adaptive_trace_every_stage(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    query = load_dataset("toy").questions[0].question
    full = make_method("ace-full", toy_graph, llm).answer(query)
    assert full.text == "Brinemouth"
    assert [s.name for s in full.trace.steps] == [*STAGES, "generate"]
    assert full.retrieval_calls == 3 and full.method == "ace-full"
    assert full.details.columns()["policy"]["label"] == "gap+depth+breadth+prune"
    assert isinstance(full.trace.find("policy").payload, PolicyDecision)
    assert full.trace.find("merge").payload.n == len(full.trace.find("merge").added)
    assert full.trace.summary()["llm_calls"] == 2  # planner + generation
    merged = full.trace.find("merge").added
    assert {e.branch for e in merged} >= {"base"} and all(e.meta["provenance"] for e in merged)
    assert full.trace.refined and full.trace.first_retrieval() == full.trace.steps[0].added

    adaptive = make_method("ace-adaptive", toy_graph, llm).answer(query)
    names = [s.name for s in adaptive.trace.steps]
    assert names[:2] == ["retrieve:base", "route"] and "retrieve:breadth" not in names
    assert adaptive.details.columns()["topology"] == "POINT" and adaptive.retrieval_calls == 2
    assert adaptive.trace.summary()["llm_calls"] == 3


def test_fixed_multires_makes_one_llm_call_and_three_retrievals(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    answer = make_method("ace-fixed-multires", toy_graph, llm).answer("tidal lantern museum")
    assert answer.trace.summary()["llm_calls"] == 1 and answer.retrieval_calls == 3
    assert answer.details.columns()["plan"]["queries"] == {
        "depth": "tidal lantern museum",
        "breadth": "tidal lantern museum",
    }


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
            assert steps["generate"].llm_calls and answer.raw
            assert answer.context.evidence
            if name == "ace-adaptive":
                assert steps["route"].payload.topology in (
                    "POINT",
                    "CONTRAST",
                    "CHAIN",
                    "OVERVIEW",
                )
    finally:
        server.stop(settings)


def test_adaptive_records_the_routers_attempts_raw_label_and_fallback(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    query = load_dataset("toy").questions[0].question
    adaptive = make_method("ace-adaptive", toy_graph, llm).answer(query)
    assert adaptive.details.columns()["router"] == {
        "prompt": "paper",
        "label": "POINT",
        "raw_label": "POINT",
        "attempts": 1,
        "fallback": False,
        "errors": [],
    }
    route_step = adaptive.trace.find("route")
    assert route_step.inputs["prompt"] == "paper" and route_step.payload.raw_label == "POINT"
    full = make_method("ace-full", toy_graph, llm).answer(query)
    columns = full.details.columns()
    assert columns["router"] is None and columns["topology"] is None


def test_the_router_prompt_is_a_bounded_choice(settings, toy_graph):
    client = ScriptedClient(ace_reply)
    llm = LLM(settings, client=client)
    answer = make_method("ace-adaptive-fewshot", toy_graph, llm).answer("tidal lantern museum")
    assert answer.details.columns()["router"]["prompt"] == "fewshot"
    router_request = next(
        r for r in client.requests if "Strategic Router" in r["messages"][0]["content"]
    )
    assert [m["role"] for m in router_request["messages"][1:3]] == ["user", "assistant"]
    assert AceConfig().router_prompt == "paper"
    with pytest.raises(ConfigError, match="router_prompt"):
        AceConfig(mode="adaptive", router_prompt="zero-shot")  # type: ignore[arg-type]


def test_every_stage_records_a_typed_payload_and_the_details_round_trip(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    query = load_dataset("toy").questions[0].question
    answer = make_method("ace-adaptive", toy_graph, llm).answer(query)
    kinds = {s.name: type(s.payload).__name__ for s in answer.trace.steps}
    assert kinds == {
        "retrieve:base": "Retrieval",
        "route": "RouterDecision",
        "policy": "PolicyDecision",
        "plan": "GapPlan",
        "retrieve:depth": "BranchRetrieval",
        "merge": "Consolidation",
        "adapt": "Selection",
        "generate": "Generation",
    }
    restored = from_record(json.loads(json.dumps(to_record(answer.details))))
    assert isinstance(restored, AceDetails) and restored.columns() == answer.details.columns()
    assert set(answer.details.columns()) == {"policy", "topology", "router", "plan"}


class _WideSource:
    """An evidence source with far more relevant evidence than any budget admits."""

    name, base_mode = "wide", "hi"

    def base(self, query: str, task: str, trace: object) -> list:
        return self._passages("base", 30)

    def differential(self, query: str, branch: str, trace: object) -> tuple[str, list]:
        return f"hi_{branch}", self._passages(branch, 10)

    @staticmethod
    def _passages(prefix: str, n: int) -> list:
        from ace_lab.evidence import Evidence

        text = "The Tidal Lantern Museum in Brinemouth keeps the old harbour lantern. " * 5
        return [Evidence(f"{prefix}{i}", "passage", f"{i}: {text}") for i in range(n)]


def test_the_shared_budget_variant_keeps_the_context_within_1500_tokens(settings, embedder):
    from ace_lab.ace.method import AceGraphRAG
    from ace_lab.ace.specs import ace_config
    from ace_lab.evidence import CONTEXT_BUDGET_TOKENS

    llm = LLM(settings, client=ScriptedClient(ace_reply))
    tokens = {}
    for name in ("ace-full", "ace-full:b1500", "ace-adaptive:b1500", "ace-fixed:depth+b1500"):
        ace = AceGraphRAG(_WideSource(), llm, ace_config(name), name=name, embedder=embedder)
        answer = ace.answer("Where is the tidal lantern museum?")
        assert answer.text == "Brinemouth"
        tokens[name] = answer.context.tokens
        dropped = answer.trace.find("adapt").payload.dropped
        assert any("token budget" in why for _, why in dropped), name
    assert CONTEXT_BUDGET_TOKENS < tokens["ace-full"] <= 2400  # today's budget admits more
    assert all(tokens[n] <= CONTEXT_BUDGET_TOKENS for n in tokens if n.endswith("b1500"))
