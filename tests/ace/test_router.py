"""ace_lab.ace.router: the topology label parsed from a JSON reply, the raw label the model
wrote, the OVERVIEW fallback, and the choice between the paper's and the few-shot prompt."""

from __future__ import annotations

import json

import pytest

from ace_lab.ace.policy import TOPOLOGY_NAMES
from ace_lab.ace.router import ROUTER_PROMPTS, normalise_label, route, router_messages
from ace_lab.data import load_dataset
from ace_lab.evidence import Trace
from ace_lab.llm import LLM
from ace_lab.prompts import load_prompt
from tests.support.datasets import need_dataset
from tests.support.scripted import ScriptedClient


def test_router_parses_and_records_label(settings):
    llm = LLM(settings, client=ScriptedClient(['{"topology": "CHAIN"}']))
    trace = Trace()
    with trace.step("route") as step:
        decision = route(llm, "Who is the spouse of the director of X?")
    assert (decision.topology, decision.fallback, decision.attempts) == ("CHAIN", False, 1)
    assert step.payload == decision and step.payload.topology == "CHAIN"
    request = llm._client.requests[0]
    assert request["temperature"] == 0.0 and "json_schema" in json.dumps(request["response_format"])


def test_router_falls_back_to_overview_after_three_attempts(settings):
    llm = LLM(settings, client=ScriptedClient(["not json", '{"topology": "STAR"}', "{}"]))
    trace = Trace()
    with trace.step("route") as step:
        decision = route(llm, "q")
    assert (decision.topology, decision.fallback, decision.attempts) == ("OVERVIEW", True, 3)
    assert step.payload.fallback is True and any("OVERVIEW" in n for n in step.notes)
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
    assert step.payload.raw_label is None and step.payload.prompt == "paper"


def test_the_fewshot_prompt_is_a_choice_and_other_prompts_are_refused(settings):
    client = ScriptedClient(['{"topology": "CHAIN"}'] * 2)
    llm = LLM(settings, client=client)
    query = "Who is the spouse of the director of X?"
    route(llm, query, prompt="fewshot")
    route(llm, query, prompt="paper")
    fewshot, paper = (r["messages"] for r in client.requests)
    assert paper == load_prompt("ace_router").messages(query=query)  # the paper's, unchanged
    assert fewshot == router_messages(load_prompt(ROUTER_PROMPTS["fewshot"]), query)
    assert fewshot[-1] == paper[-1] == {"role": "user", "content": f'Query: "{query}"'}
    with pytest.raises(ValueError, match="unknown router prompt"):
        route(llm, "q", prompt="zero-shot")  # type: ignore[arg-type]


def test_fewshot_examples_are_sent_as_earlier_turns():
    prompt = load_prompt("ace_router_fewshot")
    messages = router_messages(prompt, "Q?")
    system, turns, last = messages[0], messages[1:-1], messages[-1]
    assert system["role"] == "system" and "### EXAMPLES" not in system["content"]
    assert (
        "Strategic Router" in system["content"] and "Output ONLY a JSON object" in system["content"]
    )
    assert 'Query: "' not in system["content"]  # every example left the system message
    assert [t["role"] for t in turns] == ["user", "assistant"] * (len(turns) // 2)
    replies = [json.loads(t["content"])["topology"] for t in turns[1::2]]
    for label, name in TOPOLOGY_NAMES.items():
        assert f"'{label}' ({name})" in system["content"]
        assert replies.count(label) >= 2, label
    assert all(t["content"].startswith('Query: "') for t in turns[::2])
    assert last == {"role": "user", "content": 'Query: "Q?"'}
    assert router_messages(load_prompt("ace_router"), "Q?") == load_prompt("ace_router").messages(
        query="Q?"
    )


def test_fewshot_examples_are_not_questions_of_the_evaluation_slices():
    """The worked examples are made up: none is a question of a committed slice's data set."""
    turns = router_messages(load_prompt("ace_router_fewshot"), "Q?")[1:-1:2]
    examples = {t["content"][len('Query: "') : -1] for t in turns}
    assert len(examples) >= 12
    for name in ("hotpotqa_dev_sample200", "2wikimultihopqa_hipporag1000"):
        need_dataset(name)
        asked = {q.question for q in load_dataset(name).questions}
        assert not examples & asked, name
