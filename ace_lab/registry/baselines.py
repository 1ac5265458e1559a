"""The baselines: one retriever mode answered by the shared generator (no parametric names)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ace_lab.bounded import Bounded
from ace_lab.evidence import Retriever
from ace_lab.llm import LLM
from ace_lab.methods.base import Method, RetrieveThenGenerate
from ace_lab.methods.generate import PromptStyle
from ace_lab.methods.graphrag import GraphRAGConfig, GraphRAGRetriever
from ace_lab.methods.hipporag import HippoConfig, HippoRetriever
from ace_lab.methods.hirag import HiConfig, HiRetriever
from ace_lab.methods.lightrag import LightRAGConfig, LightRAGRetriever
from ace_lab.methods.naive import NaiveConfig, NaiveRetriever
from ace_lab.methods.spec import MethodSpec
from ace_lab.retrieval import RetrievalGraph


def _baseline(
    name: str,
    retriever: Callable[[RetrievalGraph, Bounded], Retriever],
    mode: str,
    config: Bounded,
    description: str,
    *,
    family: str = "hierarchical",
    prompt_style: PromptStyle = "task",
) -> MethodSpec:
    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        built = retriever(graph, config)
        return RetrieveThenGenerate(name, built, mode, llm, prompt_style=prompt_style)

    def rebudget(budgeted_name: str, tokens: int) -> MethodSpec:
        about = f"{description} (context budget {tokens} tokens)"
        capped = replace(config, budget_tokens=tokens)  # type: ignore[type-var]
        return _baseline(
            budgeted_name, retriever, mode, capped, about, family=family, prompt_style=prompt_style
        )

    return MethodSpec(
        name, family, factory, description=description, configs=(config,), rebudget=rebudget
    )


#: name, retriever, mode, configuration, description (then the family or prompt if not default).
BASELINE_SPECS: tuple[MethodSpec, ...] = (
    _baseline(
        "hirag",
        HiRetriever,
        "hi",
        HiConfig(),
        "HiRAG: local entities + global summaries + bridge paths",
    ),
    _baseline(
        "hirag-local",
        HiRetriever,
        "hi_local",
        HiConfig(),
        "HiRAG local mode: entities, relations and their passages",
    ),
    _baseline(
        "hirag-global",
        HiRetriever,
        "hi_global",
        HiConfig(),
        "HiRAG global mode: summary entities and community reports",
    ),
    _baseline(
        "hirag-json",
        HiRetriever,
        "hi",
        HiConfig(),
        "HiRAG context answered with the JSON answer prompt (answer_qa_json)",
        prompt_style="json",
    ),
    _baseline(
        "graphrag",
        GraphRAGRetriever,
        "local+global",
        GraphRAGConfig(),
        "GraphRAG local + global over the Leiden community reports",
    ),
    _baseline(
        "naive",
        NaiveRetriever,
        "passages",
        NaiveConfig(),
        "NaiveRAG: top passages of the hybrid passage index",
    ),
    _baseline(
        "lightrag",
        LightRAGRetriever,
        "hybrid",
        LightRAGConfig(),
        "LightRAG-style hybrid: low-level entities + high-level relations",
    ),
    _baseline(
        "lightrag-local",
        LightRAGRetriever,
        "local",
        LightRAGConfig(),
        "LightRAG-style local (entity) retrieval",
    ),
    _baseline(
        "lightrag-global",
        LightRAGRetriever,
        "global",
        LightRAGConfig(),
        "LightRAG-style global (relation) retrieval",
    ),
    _baseline(
        "hipporag",
        HippoRetriever,
        "ppr",
        HippoConfig(),
        "HippoRAG-style personalised PageRank over the OpenIE graph",
        family="openie",
    ),
    # The same walk over the hierarchical base layer: HippoRAG on the graph the other
    # hierarchical methods read (the GraphRAG-Bench slices are built in that family only).
    _baseline(
        "hipporag@hierarchical",
        HippoRetriever,
        "ppr",
        HippoConfig(),
        "HippoRAG PPR over the hierarchical graph's base entities and passages",
    ),
)
