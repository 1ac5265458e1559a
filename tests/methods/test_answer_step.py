"""ace_lab.methods.answer_step: the one answer step every method ends with — the request the
model receives (the shared prompt over the rendered context), the recorded step (name, kind,
inputs, call tag, payload, evidence) and the Answer; ArcRAG's per-pass form (its name, inputs,
payload subclass and the draft a judge reads) and the evidence-only rule."""

from __future__ import annotations

from functools import partial

from ace_lab.arc.steps import ArcGeneration
from ace_lab.evidence import Context, Evidence, Trace
from ace_lab.llm import LLM
from ace_lab.methods.answer_step import answer_from, answer_step
from ace_lab.methods.generate import EVIDENCE_ONLY_NOTE, evidence_only
from ace_lab.prompts import load_prompt
from ace_lab.steps import Generation
from tests.support.replies import QA_REPLY
from tests.support.scripted import ScriptedClient

QUERY = "Where is the tidal lantern kept?"
ITEMS = [Evidence("p1", "passage", "The tidal lantern is kept in Brinemouth.")]


def _llm(settings, replies: list[str]) -> tuple[LLM, ScriptedClient]:
    client = ScriptedClient(replies)
    return LLM(settings, client=client), client


def test_the_answer_step_sends_the_shared_prompt_and_records_a_generation(settings):
    llm, client = _llm(settings, [QA_REPLY])
    trace = Trace()
    generation = answer_step(trace, llm, QUERY, Context(ITEMS), "qa", "task")
    (request,) = client.requests
    rendered = Context(ITEMS).render()
    assert request["messages"] == load_prompt("answer_qa").messages(query=QUERY, context=rendered)
    (step,) = trace.steps
    assert (step.name, step.kind, step.inputs) == (
        "generate",
        "generate",
        {"prompt_style": "task", "task": "qa"},
    )
    assert [c.tag for c in step.llm_calls] == ["generate.qa"] and not step.added
    assert type(step.payload) is Generation
    assert step.payload == Generation("y", QA_REPLY, "task", "qa") and generation.answer == "y"


def test_answer_from_is_the_step_and_the_answer(settings):
    llm, _ = _llm(settings, ["A paragraph."])
    trace = Trace()
    answer = answer_from(
        trace, llm, QUERY, Context(ITEMS), "qfs", "task", method="m", retrieval_calls=3
    )
    assert (answer.text, answer.raw, answer.method) == ("A paragraph.", "A paragraph.", "m")
    assert answer.retrieval_calls == 3 and answer.details is None and answer.trace is trace
    assert [e.id for e in answer.context] == ["p1"]
    assert [s.name for s in trace.steps] == ["generate"]
    assert trace.steps[0].llm_calls[0].tag == "generate.qfs"


def test_a_pass_answer_keeps_its_name_inputs_evidence_and_payload_subclass(settings):
    llm, client = _llm(settings, [QA_REPLY, QA_REPLY])
    trace = Trace()
    with evidence_only():
        # a pass before the last: its draft is what the judge reads, so it is made
        answer_step(
            trace,
            llm,
            QUERY,
            Context(ITEMS),
            "qa",
            "task",
            name="generate:p1",
            final=False,
            inputs={"task": "qa"},
            added=ITEMS,
            payload=partial(
                ArcGeneration, pass_index=1, context_ids=("p1",), fallback=True, sources=("x",)
            ),
        )
        # the method's own answer is not made in an evidence-only run
        skipped = answer_step(trace, llm, QUERY, Context(ITEMS), "qa", "task", name="generate:p2")
    assert len(client.requests) == 1 and skipped.answer == "" and skipped.raw == ""
    draft, last = trace.steps
    assert (draft.name, draft.kind, draft.inputs) == ("generate:p1", "generate", {"task": "qa"})
    assert [e.id for e in draft.added] == ["p1"]
    assert draft.payload == ArcGeneration(
        "y", QA_REPLY, "task", "qa", 1, ("p1",), True, sources=("x",)
    )
    assert last.notes == [EVIDENCE_ONLY_NOTE] and last.payload == Generation("", "", "task", "qa")
