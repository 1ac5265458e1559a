"""ACE's names: every named configuration, ``ace-fixed:<policy label>``, ``@<backbone>``.

``ace-full``, ``ace-adaptive``, the ablations and the prompt variants are named
:data:`ACE_CONFIGS`; ``ace-fixed:<label>`` runs one fixed policy (``ace>label`` is another
spelling of it); ``@graphrag`` (or the default ``@hirag``) picks the backbone (paper Table 6a).
"""

from __future__ import annotations

from ace_lab.ace.backbone import BACKBONE_CONFIGS, BACKBONES
from ace_lab.ace.method import AceConfig, AceGraphRAG
from ace_lab.ace.policy import ContextPolicy, full_policy, parse_policy
from ace_lab.bounded import Bounded
from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.registry.method_spec import ACE_REPORT, Factory, MethodSpec
from ace_lab.registry.names import MethodName, parse
from ace_lab.retrieval import RetrievalGraph

#: The head of one fixed policy for every query: ``ace-fixed:<ContextPolicy.label>``.
ACE_FIXED = "ace-fixed"
#: The head that takes a ``>policy`` (``ace>gap+depth`` is ``ace-fixed:gap+depth``).
ACE_POLICY_HEAD = "ace"
DEFAULT_BACKBONE = "hirag"

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


def is_ace(head: str) -> bool:
    """Whether ACE owns the name head ``head`` (``ace`` and every ``ace-…`` head)."""
    return head == ACE_POLICY_HEAD or head.startswith(f"{ACE_POLICY_HEAD}-")


def canonical(parts: MethodName) -> MethodName:
    """``ace>label[@b]`` written the canonical way, ``ace-fixed:label[@b]``; others unchanged."""
    if not parts.policy:
        return parts
    if parts.head != ACE_POLICY_HEAD or parts.variant:
        raise KeyError(f"{parts}: only the head ace takes a >policy (ace>gap+depth)")
    return MethodName(ACE_FIXED, parts.policy, parts.family)


def ace_config(name: str) -> AceConfig:
    """The ``AceConfig`` an ACE method name stands for (any backbone)."""
    parts = canonical(parse(name))
    if parts.head in ACE_CONFIGS and not parts.variant:
        return ACE_CONFIGS[parts.head][0]
    if parts.head == ACE_FIXED and parts.variant:
        return AceConfig(mode="fixed", policy=parse_policy(parts.variant))
    if parts.head == ACE_FIXED:
        raise KeyError(f"{name!r}: name the policy, e.g. {ACE_FIXED}:gap+depth")
    raise KeyError(f"unknown ACE method {name!r}")


def _factory(name: str, config: AceConfig, backbone: str, retrieval: Bounded) -> Factory:
    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        built = BACKBONES[backbone](graph, retrieval)
        return AceGraphRAG(built, llm, config, name=name, embedder=graph.embedder)

    return factory


def ace_spec(
    name: str, config: AceConfig, about: str, backbone: str = DEFAULT_BACKBONE
) -> MethodSpec:
    """The spec of ACE configuration ``config`` on ``backbone``, called ``name``."""
    retrieval = BACKBONE_CONFIGS[backbone]()
    policy = (config.policy,) if config.policy is not None else ()
    configs = (config, *policy, config.adapt, retrieval)
    factory = _factory(name, config, backbone, retrieval)
    return MethodSpec(name, "hierarchical", factory, False, about, configs, ACE_REPORT)


def resolve(parts: MethodName) -> MethodSpec:
    """The spec of an ACE name that is not registered (a fixed policy, a backbone suffix)."""
    parts = canonical(parts)
    backbone = parts.family or DEFAULT_BACKBONE
    if backbone not in BACKBONES:
        use = " or ".join(f"@{b}" for b in BACKBONES)
        raise KeyError(f"unknown backbone {backbone!r} in {str(parts)!r}; use {use}")
    config = ace_config(str(MethodName(parts.head, parts.variant)))
    about = f"{MethodName(parts.head, parts.variant)} on the {backbone} backbone"
    return ace_spec(str(parts), config, about, backbone)


#: The registered ACE methods: every named configuration, and Full-ACE on GraphRAG.
ACE_SPECS: tuple[MethodSpec, ...] = (
    *(ace_spec(name, config, about) for name, (config, about) in ACE_CONFIGS.items()),
    ace_spec(
        "ace-full@graphrag",
        AceConfig(mode="full"),
        "Full-ACE on the GraphRAG local+global backbone (Table 6a)",
        "graphrag",
    ),
)


def fixed_policy_runs(label: str) -> tuple[str, ...]:
    """Every method name that runs the fixed policy ``label``: the ablation of Full-ACE that
    equals it (``ace-wo-breadth`` is ``gap+depth+prune``, the POINT policy) and
    ``ace-fixed:<label>``. Tables accept either run, so a policy is never run twice."""
    aliases = [n for n, part in ACE_ABLATIONS.items() if full_policy().without(part).label == label]
    return (*aliases, str(MethodName(ACE_FIXED, label)))
