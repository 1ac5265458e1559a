"""The toy method: the top ``k`` passages of the hybrid passage index, then the shared answer."""

from __future__ import annotations

from ace_lab.evidence import Answer, Context, Trace, tag
from ace_lab.llm import LLM
from ace_lab.methods.answer_step import answer_from
from ace_lab.methods.generate import Task
from ace_lab.retrieval import RetrievalGraph
from tests.support.toy_method.steps import ToyPick


class ToyPickMethod:
    def __init__(self, graph: RetrievalGraph, llm: LLM, k: int = 2, *, name: str = "toy-pick"):
        self.graph, self.llm, self.k, self.name = graph, llm, k, name

    def answer(self, query: str, task: Task = "qa") -> Answer:
        trace = Trace()
        with trace.activate():
            with trace.step("retrieve:pick", query=query) as step:
                hits = self.graph.search("passages", query, self.k)
                items = tag([self.graph.passage_evidence(i, s) for i, s in hits], "base", 0)
                step.add(items)
                step.record(ToyPick(query, tuple(e.id for e in items)))
            context = Context(items)
            return answer_from(
                trace, self.llm, query, context, task, "task", method=self.name, retrieval_calls=1
            )
