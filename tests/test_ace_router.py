"""ace_lab.ace.router: the topology label parsed from a JSON reply, and the OVERVIEW fallback."""

from __future__ import annotations

import json

from ace_lab.ace.router import route
from ace_lab.evidence import Trace
from ace_lab.llm import LLM
from tests.conftest import ScriptedClient


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
