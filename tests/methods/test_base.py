"""ace_lab.methods.base: RetrieveThenGenerate records one retrieve step (what it added is the
context) and one generate step, refuses a mode its retriever lacks; every baseline answers
through it on both graph families."""

from __future__ import annotations

import pytest

from ace_lab.evidence import Evidence
from ace_lab.llm import LLM
from ace_lab.methods.base import RetrieveThenGenerate
from ace_lab.prompts import load_prompt
from ace_lab.registry import METHODS, graph_family, make_method
from ace_lab.steps import Generation, Retrieval
from tests.support.replies import QA_REPLY
from tests.support.scripted import ScriptedClient

NEW_METHODS = ("naive", "lightrag", "lightrag-local", "lightrag-global", "hipporag")


class FixedRetriever:
    """Two passages whatever the query; records what it was asked."""

    modes = ("only", "other")

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def retrieve(self, query: str, mode: str) -> list[Evidence]:
        self.calls.append((query, mode))
        return [
            Evidence("p1", "passage", "The lantern museum is in Brinemouth.", score=0.9),
            Evidence("p2", "passage", "Brinemouth lies on the coast.", score=0.5),
        ]


def test_retrieve_then_generate_records_a_retrieve_and_a_generate_step(settings):
    client = ScriptedClient(lambda kw: QA_REPLY)
    retriever = FixedRetriever()
    method = RetrieveThenGenerate("fixed", retriever, "only", LLM(settings, client=client))
    answer = method.answer("Where is the lantern museum?")

    assert retriever.calls == [("Where is the lantern museum?", "only")]
    steps = answer.trace.steps
    assert [(s.name, s.kind) for s in steps] == [
        ("retrieve:base", "retrieve"),
        ("generate", "generate"),
    ]
    retrieve, gen = steps
    assert retrieve.added == answer.context.evidence and [e.id for e in retrieve.added] == [
        "p1",
        "p2",
    ]
    assert all((e.branch, e.round, e.meta["mode"]) == ("base", 0, "only") for e in retrieve.added)
    assert retrieve.queries == ["Where is the lantern museum?"] and not retrieve.removed
    assert retrieve.payload == Retrieval("Where is the lantern museum?", "only", ("p1", "p2"))
    assert not retrieve.repairs
    assert answer.trace.first_retrieval() == answer.context.evidence
    assert answer.trace.working_set() == answer.context.evidence and not answer.trace.refined

    assert not retrieve.llm_calls and [c.tag for c in gen.llm_calls] == ["generate.qa"]
    assert gen.inputs == {"prompt_style": "task", "task": "qa"}
    assert gen.payload == Generation("y", QA_REPLY, "task", "qa") and not gen.added
    # The model saw exactly the recorded context, under the QA answer prompt.
    (request,) = client.requests
    assert request["messages"][0]["content"] == load_prompt("answer_qa").system
    assert answer.context.render() in request["messages"][-1]["content"]

    assert answer.text == "y"
    assert (answer.method, answer.retrieval_calls, answer.raw) == ("fixed", 1, QA_REPLY)
    assert answer.details is None


def test_retrieve_then_generate_passes_task_and_prompt_style(settings):
    client = ScriptedClient(lambda kw: "An open-ended summary.")
    llm = LLM(settings, client=client)
    method = RetrieveThenGenerate("g", FixedRetriever(), "other", llm, prompt_style="generic")
    answer = method.answer("Summarise the corpus.", task="qfs")
    assert answer.text == "An open-ended summary."  # QFS keeps the raw text
    assert answer.trace.find("generate").inputs == {"prompt_style": "generic", "task": "qfs"}
    assert answer.trace.find("retrieve:base").inputs == {
        "query": "Summarise the corpus.",
        "mode": "other",
    }
    assert client.requests[0]["messages"][0]["content"] == load_prompt("answer_generic").system


def test_retrieve_then_generate_rejects_a_mode_the_retriever_lacks(settings):
    llm = LLM(settings, client=ScriptedClient([]))
    with pytest.raises(ValueError, match=r"bad: mode 'sideways' not in \('only', 'other'\)"):
        RetrieveThenGenerate("bad", FixedRetriever(), "sideways", llm)
    assert not llm._client.requests


def test_new_baselines_are_registered(settings, toy_graph, openie_graph):
    assert set(NEW_METHODS) <= set(METHODS)
    assert graph_family("hipporag") == "openie" and graph_family("lightrag") == "hierarchical"
    for graph in (toy_graph, openie_graph):
        for name in NEW_METHODS:
            llm = LLM(settings, client=ScriptedClient(lambda kw: QA_REPLY))
            answer = make_method(name, graph, llm).answer("Who founded the lantern works?")
            assert answer.text == "y", name
            assert answer.context.evidence, (name, graph.name)
            assert answer.method == name and answer.trace.summary()["llm_calls"] == 1
