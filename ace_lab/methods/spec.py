"""``MethodSpec``: one runnable method — its name, graph family, configurations and report."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ace_lab.bounded import Bounded
from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.retrieval import RetrievalGraph

Factory = Callable[[RetrievalGraph, LLM], Method]
#: ``(name, tokens)`` → the same method with a ``tokens``-token final context, called ``name``.
Rebudget = Callable[[str, int], "MethodSpec"]
C = TypeVar("C", bound=Bounded)


@dataclass(frozen=True)
class MethodSpec:
    """One runnable method: its name, the graph family it reads, how to build it."""

    name: str
    family: str  # "hierarchical" | "openie" | "typed"
    factory: Factory
    needs_store: bool = False  # reads the graph through Cypher (starts the graph store)
    description: str = ""
    #: The bounded configuration objects the method runs with (shown by ``describe_method``).
    configs: tuple[Bounded, ...] = ()
    #: Module path of the method's report package ("" for a baseline).
    report: str = ""
    #: How the method runs at another context budget (the name grammar's ``b<N>`` variant
    #: token, :mod:`ace_lab.registry.budget`); None: the method takes no budget token.
    rebudget: Rebudget | None = None

    def make(self, graph: RetrievalGraph, llm: LLM) -> Method:
        return self.factory(graph, llm)

    def config(self, kind: type[C]) -> C:
        """The configuration of type ``kind`` this method runs with."""
        for config in self.configs:
            if isinstance(config, kind):
                return config
        raise KeyError(f"{self.name} has no {kind.__name__} configuration")
