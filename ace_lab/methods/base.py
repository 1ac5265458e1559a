"""What a method is, and the one-shot retrieve-then-generate method most baselines are.

A method is anything with ``name`` and ``answer(query, task) -> Answer``; the runner, the CLI
and the notebooks need nothing else. ``RetrieveThenGenerate`` runs one context builder with the
query and answers with the shared answer step (``ace_lab.methods.answer_step``): HiRAG (``hi``),
GraphRAG local+global and the other baselines differ only in the builder.
"""

from __future__ import annotations

from typing import Protocol

from ace_lab.evidence import Answer, Context, Retriever, Trace, tag
from ace_lab.llm import LLM
from ace_lab.methods.answer_step import answer_from
from ace_lab.methods.generate import PromptStyle, Task
from ace_lab.steps import Retrieval


class Method(Protocol):
    name: str

    def answer(self, query: str, task: Task = "qa") -> Answer: ...


class RetrieveThenGenerate:
    """One retrieval call with the query, one generation call on its context."""

    def __init__(
        self,
        name: str,
        retriever: Retriever,
        mode: str,
        llm: LLM,
        *,
        prompt_style: PromptStyle = "task",
    ) -> None:
        if mode not in retriever.modes:
            raise ValueError(f"{name}: mode {mode!r} not in {retriever.modes}")
        self.name = name
        self.retriever = retriever
        self.mode = mode
        self.llm = llm
        self.prompt_style = prompt_style

    def answer(self, query: str, task: Task = "qa") -> Answer:
        trace = Trace()
        with trace.activate():
            with trace.step("retrieve:base", query=query, mode=self.mode) as step:
                step.queries.append(query)
                items = tag(self.retriever.retrieve(query, self.mode), "base", 0, mode=self.mode)
                step.add(items)
                step.record(Retrieval(query, self.mode, tuple(e.id for e in items)))
            return answer_from(
                trace,
                self.llm,
                query,
                Context(items),
                task,
                self.prompt_style,
                method=self.name,
                retrieval_calls=1,
            )
