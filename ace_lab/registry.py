"""Every method by name: one ``MethodSpec`` table for the baselines and every ACE configuration.

``make_method(name, graph, llm)`` is what ``ace-lab ask``, ``ace-lab run`` and the notebooks
call; ``ace-lab methods`` prints :func:`method_table`. A method is configuration here, not a
copied code path: each spec names the graph family it reads, whether it needs the Cypher store,
and a factory over the shared ``RetrievalGraph`` and ``LLM``.

Parametric names are resolved by :func:`spec`:

- ``ace-fixed:<label>`` — one fixed ACE policy for every query, e.g. ``ace-fixed:gap+depth``;
- ``<ace name>@graphrag`` (or ``@hirag``) — the same ACE configuration on another backbone
  (the paper's transfer experiment, Table 6a).
- ``mosaic-budget-matched:<budget>x<depth>`` and ``<mosaic name>@openie`` — MOSAIC's fixed
  policy matched to a measured budget and depth, and any MOSAIC method on the OpenIE graph.
- ``<arc head>[:r<R>p<P>][@typed|@openie]`` — ArcRAG configurations (``arcrag``,
  ``arcrag-explorer``, ``arcrag-generator``, ``direct-cypher``) with a retries × passes budget
  and a graph family (:func:`ace_lab.arc.names.parse_name`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from ace_lab.ace.backbone import graphrag_backbone, hirag_backbone
from ace_lab.ace.method import AceConfig, AceGraphRAG
from ace_lab.ace.policy import ContextPolicy, full_policy, parse_policy
from ace_lab.arc.method import ArcConfig, ArcRAG
from ace_lab.arc.names import ARC_HEADS, ARC_METHODS, head_of
from ace_lab.arc.names import parse_name as parse_arc_name
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
from ace_lab.mosaic.method import MOSAIC_HEADS, MOSAIC_METHODS, Mosaic, MosaicConfig
from ace_lab.mosaic.method import parse_name as parse_mosaic_name
from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.retrieval import RetrievalGraph

Factory = Callable[[RetrievalGraph, LLM], Method]


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

    def make(self, graph: RetrievalGraph, llm: LLM) -> Method:
        return self.factory(graph, llm)


def _baseline(
    name: str,
    retriever: Callable[[RetrievalGraph], Retriever],
    mode: str,
    prompt_style: PromptStyle = "task",
) -> Factory:
    return lambda graph, llm: RetrieveThenGenerate(
        name, retriever(graph), mode, llm, prompt_style=prompt_style
    )


def _ace(name: str, config: AceConfig, backbone: str = "hirag") -> Factory:
    backbones = {"hirag": hirag_backbone, "graphrag": graphrag_backbone}

    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        return AceGraphRAG(
            backbones[backbone](graph), llm, config, name=name, embedder=graph.embedder
        )

    return factory


def _ace_configs(config: AceConfig, backbone: Bounded | None = None) -> tuple[Bounded, ...]:
    policy = (config.policy,) if config.policy is not None else ()
    return (config, *policy, config.adapt, backbone or HiConfig())


def _mosaic(name: str) -> MethodSpec:
    """A MOSAIC method: the analyzer's per-query policy (``mosaic``) or one fixed policy, on
    the hierarchical or OpenIE graph (:func:`ace_lab.mosaic.method.parse_name`)."""
    policy, family, about = parse_mosaic_name(name)
    config = MosaicConfig()

    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        return Mosaic(graph, llm, policy=policy, config=config, name=name)

    return MethodSpec(name, family, factory, False, about, (config, policy or ExplorationPolicy()))


def _arc(name: str) -> MethodSpec:
    """An ArcRAG configuration with its budget on the typed or OpenIE graph (Cypher store)."""
    components, budget, family, about = parse_arc_name(name)
    config = ArcConfig(components=components)

    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        return ArcRAG(graph, llm, config, budget, name=name)

    return MethodSpec(name, family, factory, True, about, (config, budget))


#: Full-ACE without one component (paper Table 3): name → the part removed.
ACE_ABLATIONS = {
    "ace-wo-breadth": "breadth",
    "ace-wo-depth": "depth",
    "ace-wo-gap": "gap",
    "ace-wo-pruning": "pruning",
}

_MULTIRES = ContextPolicy(gap=False, branches=("depth", "breadth"), pruning=False)

#: Every named ACE configuration on the default (HiRAG) backbone, with its description.
ACE_CONFIGS: dict[str, tuple[AceConfig, str]] = {
    "ace-full": (
        AceConfig(mode="full"),
        "Full-ACE: gap diagnosis, Depth + Breadth, pruning (HiRAG backbone)",
    ),
    "ace-adaptive": (
        AceConfig(mode="adaptive"),
        "Adaptive-ACE: router → topology policy (paper Table 12)",
    ),
    **{
        name: (
            AceConfig(mode="fixed", policy=full_policy().without(part)),
            f"Full-ACE without {part} (ablation, paper Table 3)",
        )
        for name, part in ACE_ABLATIONS.items()
    },
    "ace-adaptive-fewshot": (
        AceConfig(mode="adaptive", router_prompt="fewshot"),
        "Adaptive-ACE with the few-shot router prompt (Table 1 definitions + examples)",
    ),
    "ace-generic-prompt": (
        AceConfig(mode="full", prompt_style="generic"),
        "Full-ACE answering with the generic prompt (paper Table 4)",
    ),
    "ace-fixed-multires": (
        AceConfig(mode="fixed", policy=_MULTIRES, rewrite=False),
        "Fixed multi-resolution: three retrievals with q, no planner, one LLM call",
    ),
}

_SPECS: tuple[MethodSpec, ...] = (
    MethodSpec("hirag", "hierarchical", _baseline("hirag", HiRetriever, "hi"),
               description="HiRAG: local entities + global summaries + bridge paths",
               configs=(HiConfig(),)),
    MethodSpec("hirag-local", "hierarchical", _baseline("hirag-local", HiRetriever, "hi_local"),
               description="HiRAG local mode: entities, relations and their passages",
               configs=(HiConfig(),)),
    MethodSpec("hirag-global", "hierarchical",
               _baseline("hirag-global", HiRetriever, "hi_global"),
               description="HiRAG global mode: summary entities and community reports",
               configs=(HiConfig(),)),
    MethodSpec("hirag-json", "hierarchical",
               _baseline("hirag-json", HiRetriever, "hi", prompt_style="json"),
               description="HiRAG context answered with the JSON answer prompt (answer_qa_json)",
               configs=(HiConfig(),)),
    MethodSpec("graphrag", "hierarchical",
               _baseline("graphrag", GraphRAGRetriever, "local+global"),
               description="GraphRAG local + global over the Leiden community reports",
               configs=(GraphRAGConfig(),)),
    MethodSpec("naive", "hierarchical", _baseline("naive", NaiveRetriever, "passages"),
               description="NaiveRAG: top passages of the hybrid passage index",
               configs=(NaiveConfig(),)),
    MethodSpec("lightrag", "hierarchical", _baseline("lightrag", LightRAGRetriever, "hybrid"),
               description="LightRAG-style hybrid: low-level entities + high-level relations",
               configs=(LightRAGConfig(),)),
    MethodSpec("lightrag-local", "hierarchical",
               _baseline("lightrag-local", LightRAGRetriever, "local"),
               description="LightRAG-style local (entity) retrieval",
               configs=(LightRAGConfig(),)),
    MethodSpec("lightrag-global", "hierarchical",
               _baseline("lightrag-global", LightRAGRetriever, "global"),
               description="LightRAG-style global (relation) retrieval",
               configs=(LightRAGConfig(),)),
    MethodSpec("hipporag", "openie", _baseline("hipporag", HippoRetriever, "ppr"),
               description="HippoRAG-style personalised PageRank over the OpenIE graph",
               configs=(HippoConfig(),)),
    # The same walk over the hierarchical base layer: HippoRAG on the graph the other
    # hierarchical methods read (the GraphRAG-Bench slices are built in that family only).
    MethodSpec("hipporag@hierarchical", "hierarchical",
               _baseline("hipporag@hierarchical", HippoRetriever, "ppr"),
               description="HippoRAG PPR over the hierarchical graph's base entities and passages",
               configs=(HippoConfig(),)),
    *(
        MethodSpec(name, "hierarchical", _ace(name, config), description=about,
                   configs=_ace_configs(config))
        for name, (config, about) in ACE_CONFIGS.items()
    ),
    MethodSpec("ace-full@graphrag", "hierarchical",
               _ace("ace-full@graphrag", AceConfig(mode="full"), "graphrag"),
               description="Full-ACE on the GraphRAG local+global backbone (Table 6a)",
               configs=_ace_configs(AceConfig(mode="full"), GraphRAGConfig())),
    *(_mosaic(name) for name in MOSAIC_METHODS),
    *(_arc(name) for name in ARC_METHODS),
)  # fmt: skip

REGISTRY: dict[str, MethodSpec] = {s.name: s for s in _SPECS}
#: Registered names in table order (tables list methods in this order).
METHODS: tuple[str, ...] = tuple(REGISTRY)


def ace_config(name: str) -> AceConfig:
    """The ``AceConfig`` an ACE method name stands for (backbone suffix removed)."""
    if name in ACE_CONFIGS:
        return ACE_CONFIGS[name][0]
    if name.startswith("ace-fixed:"):
        return AceConfig(mode="fixed", policy=parse_policy(name.split(":", 1)[1]))
    raise KeyError(f"unknown ACE method {name!r}")


def spec(name: str) -> MethodSpec:
    """The spec of ``name``: a registered method, ``ace-fixed:<label>`` or ``<ace>@<backbone>``."""
    if name in REGISTRY:
        return REGISTRY[name]
    if name.partition("@")[0].partition(":")[0] in MOSAIC_HEADS:
        return _mosaic(name)
    if head_of(name) in ARC_HEADS:
        return _arc(name)
    ace_name, _, backbone = name.partition("@")
    if not ace_name.startswith("ace-"):
        raise KeyError(f"unknown method {name!r}; known: {', '.join(METHODS)}, ace-fixed:<policy>")
    if backbone not in ("", "hirag", "graphrag"):
        raise KeyError(f"unknown backbone {backbone!r} in {name!r}; use @hirag or @graphrag")
    config = ace_config(ace_name)
    about = f"{ace_name} on the {backbone or 'hirag'} backbone"
    backbone_config = GraphRAGConfig() if backbone == "graphrag" else HiConfig()
    factory = _ace(name, config, backbone or "hirag")
    return MethodSpec(
        name, "hierarchical", factory, False, about, _ace_configs(config, backbone_config)
    )


def make_method(name: str, graph: RetrievalGraph, llm: LLM) -> Method:
    """The method called ``name`` over ``graph`` (see :func:`spec`)."""
    return spec(name).make(graph, llm)


def graph_family(name: str) -> str:
    """The graph family method ``name`` reads."""
    return spec(name).family


def method_table() -> pd.DataFrame:
    """Every registered method with its graph family, store use and one-line description."""
    return pd.DataFrame(
        [
            {
                "method": s.name,
                "family": s.family,
                "cypher store": s.needs_store,
                "description": s.description,
            }
            for s in _SPECS
        ]
    )


def describe_method(name: str) -> pd.DataFrame:
    """Every setting ``name`` runs with: one row per field of each of its configurations,
    with value, default, accepted values and help text."""
    rows = [
        {"config": type(config).__name__, **row}
        for config in spec(name).configs
        for row in type(config).describe(config)
    ]
    return pd.DataFrame(rows, columns=["config", "field", "value", "default", "accepts", "help"])


def fixed_policy_runs(label: str) -> tuple[str, ...]:
    """Every method name that runs the fixed policy ``label``: the ablation of Full-ACE that
    equals it (``ace-wo-breadth`` is ``gap+depth+prune``, the POINT policy) and
    ``ace-fixed:<label>``. Tables accept either run, so a policy is never run twice."""
    aliases = [n for n, part in ACE_ABLATIONS.items() if full_policy().without(part).label == label]
    return (*aliases, f"ace-fixed:{label}")
