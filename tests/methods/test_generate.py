"""ace_lab.methods.generate: the prompt chosen per task and style, the token cap per task, and
what comes back (the extracted span for QA, the raw text for QFS). Assertions are on the
request the model received, not only on the scripted reply."""

from __future__ import annotations

import pytest

from ace_lab.evidence import Trace
from ace_lab.llm import LLM
from ace_lab.methods.generate import (
    JSON_EXTRA_TOKENS,
    MAX_TOKENS,
    PROMPT_STYLES,
    Generation,
    generate,
    prompt_name,
)
from ace_lab.prompts import load_prompt
from tests.support.replies import QA_REPLY
from tests.support.scripted import ScriptedClient

QUERY = "Where is the tidal lantern kept?"
CONTEXT = "### round 0 · base · passage\n- The tidal lantern is kept in Brinemouth."


@pytest.mark.parametrize(
    ("task", "style", "name"),
    [
        ("qa", "task", "answer_qa"),
        ("qfs", "task", "answer_qfs"),
        ("open", "task", "answer_open"),
        ("qa", "generic", "answer_generic"),
        ("qfs", "generic", "answer_generic"),
    ],
)
def test_prompt_name_per_task_and_style(task, style, name):
    assert prompt_name(task, style) == name


def test_prompt_name_defaults_to_the_task_prompt():
    assert prompt_name("qa") == "answer_qa" and prompt_name("qfs") == "answer_qfs"


def _generate(settings, reply: str, **kw) -> tuple[Generation, dict, Trace]:
    client = ScriptedClient([reply])
    trace = Trace()
    with trace.step("generate"):
        generation = generate(LLM(settings, client=client), QUERY, **kw)
    (request,) = client.requests
    return generation, request, trace


def test_qa_sends_the_qa_prompt_and_returns_the_extracted_span(settings):
    reply = f"  {QA_REPLY}\n"
    generation, request, trace = _generate(settings, reply, context=CONTEXT)
    expected = load_prompt("answer_qa").messages(query=QUERY, context=CONTEXT)
    assert request["messages"] == expected
    assert request["max_tokens"] == MAX_TOKENS["qa"] == 256
    assert request["temperature"] == 0.0 and "response_format" not in request
    assert generation == Generation(raw=QA_REPLY, answer="y")  # raw is stripped
    assert [c.tag for c in trace.llm_calls] == ["generate.qa"]


def test_qfs_sends_the_response_type_and_keeps_the_raw_text(settings):
    reply = "Reasoning: none.\n[FINAL_ANSWER] not extracted [/FINAL_ANSWER]"
    generation, request, trace = _generate(
        settings, reply, context=CONTEXT, task="qfs", response_type="Single paragraph"
    )
    expected = load_prompt("answer_qfs").messages(
        query=QUERY, context=CONTEXT, response_type="Single paragraph"
    )
    assert request["messages"] == expected
    assert "Single paragraph" in request["messages"][-1]["content"]
    assert request["max_tokens"] == MAX_TOKENS["qfs"] == 768
    assert generation.answer == generation.raw == reply  # no extraction for QFS
    assert [c.tag for c in trace.llm_calls] == ["generate.qfs"]


def test_open_sends_the_open_prompt_and_keeps_the_whole_answer(settings):
    reply = "The tidal lantern is kept in Brinemouth. [FINAL_ANSWER] x [/FINAL_ANSWER]"
    generation, request, trace = _generate(settings, reply, context=CONTEXT, task="open")
    assert request["messages"] == load_prompt("answer_open").messages(query=QUERY, context=CONTEXT)
    assert request["max_tokens"] == MAX_TOKENS["open"] == 384
    assert generation.answer == generation.raw == reply  # sentences, no span extraction
    assert [c.tag for c in trace.llm_calls] == ["generate.open"]


def test_qfs_default_response_type(settings):
    _, request, _ = _generate(settings, "summary", context=CONTEXT, task="qfs")
    expected = load_prompt("answer_qfs").messages(
        query=QUERY, context=CONTEXT, response_type="Multiple paragraphs"
    )
    assert request["messages"] == expected


@pytest.mark.parametrize("task", ["qa", "qfs"])
def test_generic_style_sends_the_plain_rag_prompt(settings, task):
    generation, request, _ = _generate(
        settings, QA_REPLY, context=CONTEXT, task=task, style="generic"
    )
    assert request["messages"] == load_prompt("answer_generic").messages(
        query=QUERY, context=CONTEXT
    )
    assert request["max_tokens"] == MAX_TOKENS[task]  # the cap follows the task, not the style
    assert generation.answer == ("y" if task == "qa" else QA_REPLY)


def test_empty_context_is_named_in_the_prompt(settings):
    _, request, _ = _generate(settings, QA_REPLY, context="")
    user = request["messages"][-1]["content"]
    assert "(no context retrieved)" in user and QUERY in user


# ---------------------------------------------------------------- the JSON answer prompt
JSON_REPLY = '{"reasoning": "The lantern is kept in Brinemouth.", "answer": "Brinemouth"}'


def test_json_style_sends_the_json_prompt_and_the_answer_schema(settings):
    generation, request, trace = _generate(settings, JSON_REPLY, context=CONTEXT, style="json")
    assert prompt_name("qa", "json") == "answer_qa_json"
    assert request["messages"] == load_prompt("answer_qa_json").messages(
        query=QUERY, context=CONTEXT
    )
    assert request["max_tokens"] == MAX_TOKENS["qa"] + JSON_EXTRA_TOKENS
    assert request["temperature"] == 0.0
    schema = request["response_format"]["json_schema"]["schema"]
    assert request["response_format"]["type"] == "json_schema"
    assert list(schema["properties"]) == ["reasoning", "answer"]  # reasoning first
    assert schema["required"] == ["reasoning", "answer"]
    assert generation == Generation(raw=JSON_REPLY, answer="Brinemouth")
    assert [c.tag for c in trace.llm_calls] == ["generate.qa.json"]
    assert not trace.steps[0].notes


def test_json_reply_that_does_not_validate_is_read_as_text_with_a_note(settings):
    cut = '{"reasoning": "The lantern is kept in Brine'  # cut off by the token cap
    generation, _, trace = _generate(settings, cut, context=CONTEXT, style="json")
    assert generation == Generation(raw=cut, answer="")
    assert "did not validate" in trace.steps[0].notes[0]
    tagged = "Reasoning: x\nResult: [FINAL_ANSWER] Brinemouth [/FINAL_ANSWER]"
    generation, _, _ = _generate(settings, tagged, context=CONTEXT + ".", style="json")
    assert generation.answer == "Brinemouth"  # the paper's format is still read


def test_json_style_is_for_qa_only(settings):
    with pytest.raises(ValueError, match="for QA"):
        prompt_name("qfs", "json")
    assert set(PROMPT_STYLES) == {"task", "generic", "json"}


def test_the_json_prompt_keeps_the_papers_rules():
    paper, json_prompt = load_prompt("answer_qa"), load_prompt("answer_qa_json")
    rules = paper.system.split("---Output Format---")[0]
    assert json_prompt.system.startswith(rules)
    assert json_prompt.user == paper.user
    assert '"reasoning"' in json_prompt.system and '"answer"' in json_prompt.system
