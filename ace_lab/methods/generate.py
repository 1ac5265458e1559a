"""Final generation: one LLM call on the original query and the generation-ready context.

Three prompts share this path: ``answer_qa`` (the multi-hop QA synthesis prompt: bridge entity,
brief reasoning, ``[FINAL_ANSWER] … [/FINAL_ANSWER]``), ``answer_qfs`` (open-ended synthesis over
multi-resolution evidence) and ``answer_generic`` (a plain RAG prompt, for the "without
task-specific prompt" ablation). Every QA method in ace_lab answers through ``answer_qa``, so
methods differ only in the context they build.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ace_lab.llm import LLM
from ace_lab.methods.final_answer import extract_final_answer
from ace_lab.prompts import load_prompt

Task = Literal["qa", "qfs"]
PromptStyle = Literal["task", "generic"]

#: Generated-token caps: a QA answer is a short reasoning line plus a span.
MAX_TOKENS = {"qa": 256, "qfs": 768}


@dataclass(frozen=True)
class Generation:
    raw: str
    answer: str


def prompt_name(task: Task, style: PromptStyle = "task") -> str:
    if style == "generic":
        return "answer_generic"
    return {"qa": "answer_qa", "qfs": "answer_qfs"}[task]


def generate(
    llm: LLM,
    query: str,
    context: str,
    task: Task = "qa",
    style: PromptStyle = "task",
    response_type: str = "Multiple paragraphs",
) -> Generation:
    """Answer ``query`` from ``context``; a QA answer is the extracted final-answer span."""
    name = prompt_name(task, style)
    variables: dict[str, str] = {"query": query, "context": context or "(no context retrieved)"}
    if name == "answer_qfs":
        variables["response_type"] = response_type
    completion = llm.chat(
        load_prompt(name).messages(**variables),
        tag=f"generate.{task}",
        temperature=0.0,
        max_tokens=MAX_TOKENS[task],
    )
    text = completion.text.strip()
    return Generation(text, extract_final_answer(text) if task == "qa" else text)
