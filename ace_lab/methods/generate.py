"""Final generation: one LLM call on the original query and the generation-ready context.

Five prompts share this path: ``answer_qa`` (the paper's multi-hop QA synthesis prompt: bridge
entity, brief reasoning, ``[FINAL_ANSWER] … [/FINAL_ANSWER]``), ``answer_qa_json`` (the same
rules and reasoning, with the reasoning and the answer as one JSON object whose schema goes to the
server as ``response_format``), ``answer_qfs`` (open-ended synthesis over multi-resolution
evidence), ``answer_open`` (task ``open``: an answer in full sentences, sized to the question —
GraphRAG-Bench's gold answers are sentences and paragraphs, and its Answer Correctness compares
statements, which a one-span answer cannot supply) and ``answer_generic`` (a plain RAG prompt,
for the "without task-specific prompt" ablation). Every QA method in ace_lab answers through
``answer_qa`` unless configured otherwise, so methods differ only in the context they build;
inside :func:`~ace_lab.methods.reader.reading` every QA answer call (but the generic ablation's)
uses the reader it names instead, the short grammar-bound one included
(:mod:`ace_lab.methods.reader`).

The JSON style is one call at temperature 0 like the others (no resampled retry, which would
answer a different question than the paper prompt's single greedy call): the schema comes from
:func:`ace_lab.llm.structured.schema_format`, the reply is validated with
:func:`~ace_lab.llm.structured.parse_output`, and a reply that does not validate (cut off by the
token cap, say) is read by :func:`~ace_lab.methods.final_answer.extract_final_answer`, which
also reads the ``answer`` of a JSON reply, so a stored raw reply rescores the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from ace_lab.evidence import current_step
from ace_lab.llm import LLM
from ace_lab.llm.structured import JsonOutputError, parse_output, schema_format
from ace_lab.methods.final_answer import extract_final_answer
from ace_lab.methods.reader import active_reader, read_short
from ace_lab.prompts import load_prompt

Task = Literal["qa", "qfs", "open"]
#: ``task``: the paper's task prompt; ``generic``: a plain RAG prompt; ``json``: the QA prompt
#: with a JSON-schema answer (QA only).
PromptStyle = Literal["task", "generic", "json"]
PROMPT_STYLES: tuple[str, ...] = ("task", "generic", "json")

#: Generated-token caps: a QA answer is a short reasoning line plus a span; an open answer is
#: a few sentences or, for a writing task, under 200 words.
MAX_TOKENS = {"qa": 256, "qfs": 768, "open": 384}
#: Extra tokens the JSON style may spend on its syntax (keys, quotes, braces).
JSON_EXTRA_TOKENS = 32


class QAJsonAnswer(BaseModel):
    """The JSON answer prompt's reply: the paper's brief reasoning, then the exact answer."""

    reasoning: str
    answer: str


@dataclass(frozen=True)
class Generation:
    raw: str
    answer: str


#: Set inside :func:`evidence_only`: the final answer call is not made (see there).
_EVIDENCE_ONLY: ContextVar[bool] = ContextVar("ace_lab_evidence_only", default=False)
#: The step note that says a final answer was not generated.
EVIDENCE_ONLY_NOTE = "evidence only: the final answer call was not made"


@contextmanager
def evidence_only(active: bool = True) -> Iterator[None]:
    """Within the block, every method runs up to its final context and stops before the answer
    call: :func:`generate` with ``final=True`` returns an empty :class:`Generation` without
    calling the model. A method's own planning, routing, analyzer, agent and judge calls are
    made (and cached, and counted) as usual, so the context is the one an answered run would
    read; a call the method itself needs to go on (ArcRAG's answer of a pass before its last,
    which the sufficiency judge reads) passes ``final=False`` and is made."""
    token = _EVIDENCE_ONLY.set(active)
    try:
        yield
    finally:
        _EVIDENCE_ONLY.reset(token)


def is_evidence_only() -> bool:
    """Whether the current block stops before the final answer call (:func:`evidence_only`)."""
    return _EVIDENCE_ONLY.get()


def prompt_name(task: Task, style: PromptStyle = "task") -> str:
    if style == "generic":
        return "answer_generic"
    if style == "json":
        if task != "qa":
            raise ValueError("the JSON answer prompt is for QA; use style 'task' for QFS")
        return "answer_qa_json"
    return {"qa": "answer_qa", "qfs": "answer_qfs", "open": "answer_open"}[task]


def answer_call(
    task: Task,
    style: PromptStyle,
    query: str,
    context: str,
    response_type: str = "Multiple paragraphs",
) -> tuple[list[dict[str, str]], str, int]:
    """The answer call :func:`generate` sends for a prompt ``style`` (not the short reader):
    its messages, ledger tag and generated-token bound."""
    name = prompt_name(task, style)
    variables: dict[str, str] = {"query": query, "context": context or "(no context retrieved)"}
    if name == "answer_qfs":
        variables["response_type"] = response_type
    json_style = style == "json"
    tag = f"generate.{task}.json" if json_style else f"generate.{task}"
    bound = MAX_TOKENS[task] + (JSON_EXTRA_TOKENS if json_style else 0)
    return load_prompt(name).messages(**variables), tag, bound


def generate(
    llm: LLM,
    query: str,
    context: str,
    task: Task = "qa",
    style: PromptStyle = "task",
    response_type: str = "Multiple paragraphs",
    *,
    final: bool = True,
) -> Generation:
    """Answer ``query`` from ``context``; a QA answer is the extracted final-answer span.
    ``final``: the method's answer (not a pass's draft), skipped by :func:`evidence_only`."""
    if final and is_evidence_only():
        _note(EVIDENCE_ONLY_NOTE)
        return Generation("", "")
    reader = active_reader() if task == "qa" and style != "generic" else None
    if reader == "short":
        raw, answer = read_short(llm, query, context or "(no context retrieved)")
        return Generation(raw, answer)
    if reader is not None:  # the tagged or JSON reader, whatever the method's own style
        style = "json" if reader == "json" else "task"
    messages, tag, max_tokens = answer_call(task, style, query, context, response_type)
    json_style = style == "json"
    completion = llm.chat(
        messages,
        tag=tag,
        temperature=0.0,
        max_tokens=max_tokens,
        response_format=schema_format(QAJsonAnswer) if json_style else None,
    )
    text = completion.text.strip()
    if task != "qa":
        return Generation(text, text)
    if json_style:
        try:
            parse_output(text, QAJsonAnswer)
        except JsonOutputError as exc:
            _note(f"JSON answer did not validate ({str(exc)[:120]}); read as text")
    return Generation(text, extract_final_answer(text))


def _note(message: str) -> None:
    step = current_step()
    if step is not None:
        step.notes.append(message)
