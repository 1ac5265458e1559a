"""What a method is, and the one-shot retrieve-then-generate method most baselines are.

A method is anything with ``name`` and ``answer(query, task) -> Answer``; the runner, the CLI
and the notebooks need nothing else. ``RetrieveThenGenerate`` runs one context builder with the
query and answers with the shared prompt (``ace_lab.methods.generate``): HiRAG (``hi``),
GraphRAG local+global and the other baselines differ only in the builder.
"""

from __future__ import annotations

from typing import Protocol

from ace_lab.evidence import Answer, Context, Retriever, Trace, tag
from ace_lab.llm import LLM
from ace_lab.methods.generate import PromptStyle, Task, generate
from ace_lab.steps import Generation, Retrieval


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
            context = Context(items)
            with trace.step("generate", prompt_style=self.prompt_style, task=task) as step:
                generation = generate(self.llm, query, context.render(), task, self.prompt_style)
                step.record(Generation(generation.answer, generation.raw, self.prompt_style, task))
        return Answer(
            generation.answer,
            context,
            trace,
            method=self.name,
            raw=generation.raw,
            retrieval_calls=1,
        )
