"""ace_lab.ace.router: the topology label parsed from a JSON reply, the raw label the model
wrote, the OVERVIEW fallback, and the choice between the paper's and the few-shot prompt."""

from __future__ import annotations

import json

import pytest

from ace_lab.ace.policy import TOPOLOGY_NAMES
from ace_lab.ace.router import ROUTER_PROMPTS, normalise_label, route
from ace_lab.evidence import Trace
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt
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


def test_router_keeps_the_raw_label_and_reads_other_spellings(settings):
    llm = LLM(settings, client=ScriptedClient(['{"topology": "Edge"}']))
    decision = route(llm, "Who is older, A or B?")
    assert (decision.topology, decision.raw_label, decision.fallback) == ("CONTRAST", "Edge", False)
    assert decision.to_meta() == {
        "prompt": "paper",
        "label": "CONTRAST",
        "raw_label": "Edge",
        "attempts": 1,
        "fallback": False,
        "errors": [],
    }


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("contrast", "CONTRAST"),
        (" 'chain' ", "CHAIN"),
        ("Node", "POINT"),
        ("Fact_Lookup", "POINT"),
        ("Subgraph", "OVERVIEW"),
        ("Sequential Dependency", "CHAIN"),
        ("STAR", "STAR"),  # unknown: left as written, and then invalid
    ],
)
def test_normalise_label(raw, label):
    assert normalise_label(raw) == label


def test_a_fallback_has_no_raw_label_and_keeps_the_errors(settings):
    llm = LLM(settings, client=ScriptedClient(['{"topology": "STAR"}'] * 3))
    trace = Trace()
    with trace.step("route") as step:
        decision = route(llm, "q")
    meta = decision.to_meta()
    assert meta["fallback"] is True and meta["raw_label"] is None and meta["attempts"] == 3
    assert len(meta["errors"]) == 3 and "STAR" in meta["errors"][0]
    assert step.outputs["raw_label"] is None and step.outputs["prompt"] == "paper"


def test_the_fewshot_prompt_is_a_choice_and_other_prompts_are_refused(settings):
    client = ScriptedClient(['{"topology": "CHAIN"}'] * 2)
    llm = LLM(settings, client=client)
    route(llm, "Who is the spouse of the director of X?", prompt="fewshot")
    route(llm, "Who is the spouse of the director of X?", prompt="paper")
    fewshot, paper = (r["messages"] for r in client.requests)
    assert fewshot == load_prompt(ROUTER_PROMPTS["fewshot"]).messages(
        query="Who is the spouse of the director of X?"
    )
    assert fewshot[0]["content"] != paper[0]["content"] and fewshot[1] == paper[1]
    assert paper[0]["content"] == load_prompt("ace_router").system
    with pytest.raises(ValueError, match="unknown router prompt"):
        route(llm, "q", prompt="zero-shot")  # type: ignore[arg-type]


def test_the_fewshot_prompt_defines_every_topology_with_examples():
    system = load_prompt("ace_router_fewshot").system
    for label, name in TOPOLOGY_NAMES.items():
        assert f"'{label}' ({name})" in system
        assert system.count(f'-> {{"topology": "{label}"}}') >= 2, label
