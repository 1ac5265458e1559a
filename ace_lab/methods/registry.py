"""Methods by name: the baselines and every ACE configuration, built over one loaded graph.

``make_method(name, graph, llm)`` is what ``ace-lab ask``, ``ace-lab run`` and the notebooks
call. Baselines (one retrieval, one answering call):

==========================  ===============================================================
``naive``                   NaiveRAG: top passages of the hybrid passage index
``hirag``                   HiRAG ``hi`` (``hirag-local``, ``hirag-global``)
``graphrag``                GraphRAG local+global over the Leiden community reports
``lightrag``                LightRAG hybrid (``lightrag-local``, ``lightrag-global``)
``hipporag``                HippoRAG PPR over the OpenIE graph (``METHOD_FAMILY``)
==========================  ===============================================================

ACE names:

==========================  ===============================================================
``ace-full``                Full-ACE (gap, Depth+Breadth, pruning) on the HiRAG backbone
``ace-adaptive``            Adaptive-ACE: router → topology policy (paper Table 12)
``ace-wo-breadth`` …        Full-ACE without Breadth / Depth / Gap / Pruning
``ace-generic-prompt``      Full-ACE answering with the generic prompt
``ace-fixed:<label>``       one fixed policy for every query, e.g. ``ace-fixed:gap+depth``
``ace-fixed-multires``      three retrievals with the original query, no planner, one LLM call
``<ace name>@graphrag``     the same on the GraphRAG local+global backbone (transfer)
==========================  ===============================================================
"""

from __future__ import annotations

from collections.abc import Callable

from ace_lab.ace.backbone import graphrag_backbone, hirag_backbone
from ace_lab.ace.method import AceConfig, AceGraphRAG
from ace_lab.ace.policy import ContextPolicy, full_policy, parse_policy
from ace_lab.llm import LLM
from ace_lab.methods.base import Method, RetrieveThenGenerate
from ace_lab.methods.graphrag import GraphRAGRetriever
from ace_lab.methods.hipporag import HippoRetriever
from ace_lab.methods.hirag import HiRetriever
from ace_lab.methods.lightrag import LightRAGRetriever
from ace_lab.methods.naive import NaiveRetriever
from ace_lab.methods.retrieval_graph import RetrievalGraph

_ABLATIONS = {
    "ace-wo-breadth": "breadth",
    "ace-wo-depth": "depth",
    "ace-wo-gap": "gap",
    "ace-wo-pruning": "pruning",
}


def ace_config(name: str) -> AceConfig:
    """The ``AceConfig`` an ACE method name stands for (backbone suffix removed)."""
    if name == "ace-full":
        return AceConfig(mode="full")
    if name == "ace-adaptive":
        return AceConfig(mode="adaptive")
    if name in _ABLATIONS:
        return AceConfig(mode="fixed", policy=full_policy().without(_ABLATIONS[name]))
    if name == "ace-generic-prompt":
        return AceConfig(mode="full", prompt_style="generic")
    if name == "ace-fixed-multires":
        policy = ContextPolicy(gap=False, branches=("depth", "breadth"), pruning=False)
        return AceConfig(mode="fixed", policy=policy, rewrite=False)
    if name.startswith("ace-fixed:"):
        return AceConfig(mode="fixed", policy=parse_policy(name.split(":", 1)[1]))
    raise KeyError(f"unknown ACE method {name!r}")


_BASELINES: dict[str, Callable[[RetrievalGraph, LLM], Method]] = {
    "hirag": lambda g, llm: RetrieveThenGenerate("hirag", HiRetriever(g), "hi", llm),
    "hirag-local": lambda g, llm: RetrieveThenGenerate(
        "hirag-local", HiRetriever(g), "hi_local", llm
    ),
    "hirag-global": lambda g, llm: RetrieveThenGenerate(
        "hirag-global", HiRetriever(g), "hi_global", llm
    ),
    "graphrag": lambda g, llm: RetrieveThenGenerate(
        "graphrag", GraphRAGRetriever(g), "local+global", llm
    ),
    "naive": lambda g, llm: RetrieveThenGenerate("naive", NaiveRetriever(g), "passages", llm),
    "lightrag": lambda g, llm: RetrieveThenGenerate(
        "lightrag", LightRAGRetriever(g), "hybrid", llm
    ),
    "lightrag-local": lambda g, llm: RetrieveThenGenerate(
        "lightrag-local", LightRAGRetriever(g), "local", llm
    ),
    "lightrag-global": lambda g, llm: RetrieveThenGenerate(
        "lightrag-global", LightRAGRetriever(g), "global", llm
    ),
    "hipporag": lambda g, llm: RetrieveThenGenerate("hipporag", HippoRetriever(g), "ppr", llm),
}

METHODS = (
    *_BASELINES,
    "ace-full",
    "ace-adaptive",
    *_ABLATIONS,
    "ace-generic-prompt",
    "ace-fixed-multires",
    "ace-full@graphrag",
)


def make_method(name: str, graph: RetrievalGraph, llm: LLM) -> Method:
    """The method called ``name`` over ``graph`` (see the table above)."""
    if name in _BASELINES:
        return _BASELINES[name](graph, llm)
    ace_name, _, backbone = name.partition("@")
    if not ace_name.startswith("ace-"):
        raise KeyError(f"unknown method {name!r}; known: {', '.join(METHODS)}, ace-fixed:<policy>")
    backbones = {"": hirag_backbone, "hirag": hirag_backbone, "graphrag": graphrag_backbone}
    if backbone not in backbones:
        raise KeyError(f"unknown backbone {backbone!r} in {name!r}; use @hirag or @graphrag")
    return AceGraphRAG(
        backbones[backbone](graph), llm, ace_config(ace_name), name=name, embedder=graph.embedder
    )


#: The graph family a method reads; every other method runs on the hierarchical graph.
METHOD_FAMILY: dict[str, str] = {"hipporag": "openie"}


def graph_family(name: str) -> str:
    return METHOD_FAMILY.get(name, "hierarchical")


def fixed_policy_runs(label: str) -> tuple[str, ...]:
    """Every method name that runs the fixed policy ``label``: the ablation of Full-ACE that
    equals it (``ace-wo-breadth`` is ``gap+depth+prune``, the POINT policy) and
    ``ace-fixed:<label>``. Tables accept either run, so a policy is never run twice."""
    aliases = [n for n, part in _ABLATIONS.items() if full_policy().without(part).label == label]
    return (*aliases, f"ace-fixed:{label}")
