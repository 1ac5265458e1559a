"""ACE's names: every named configuration, ``ace-fixed:<policy label>``, ``:b<N>``, ``@<backbone>``.

``ace-full``, ``ace-adaptive``, the ablations and the prompt variants are named
:data:`ACE_CONFIGS`; ``ace-fixed:<label>`` runs one fixed policy (``ace>label`` is another
spelling of it); ``@graphrag`` (or the default ``@hirag``) picks the backbone (paper Table 6a).

**Adaptation budget.** ACE's adaptation admits evidence up to 2,400 tokens
(``AdaptConfig.budget_tokens``), the baselines' context budget is 1,500
(``ace_lab.evidence.CONTEXT_BUDGET_TOKENS``). The variant token ``b<N>`` runs any ACE name at an
``N``-token budget: ``ace-full:b1500``, ``ace-adaptive:b1500``, ``ace-wo-gap:b1500``,
``ace-full:b1500@graphrag``, ``mosaic>ace-full:b1500``. In ``ace-fixed`` it is the last
``+``-joined token after the policy label: ``ace-fixed:gap+depth+b1500`` (``ace>gap+depth+b1500``).
No policy token is ``b`` followed by digits, so a variant parses one way. A name without the
token keeps its configuration and config hash (2,400 tokens); ``ace-full:b2400`` names that
budget explicitly.

**Pruning, split.** The policy's pruning switch also decides whether the QA profile drops
community reports (``ContextPolicy.drop_reports``, by default the pruning switch). Table 3's
ablations of it: ``ace-wo-pruning`` (as always: semantic pruning off *and* reports kept — two
changes), ``ace-wo-semantic-pruning`` (semantic pruning off, reports still dropped; policy
``gap+depth+breadth+dropreports``) and ``ace-wo-report-drop`` (semantic pruning on, reports
kept; ``gap+depth+breadth+prune+keepreports``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ace_lab.ace.backbone import BACKBONE_CONFIGS, BACKBONES
from ace_lab.ace.method import AceConfig, AceGraphRAG
from ace_lab.ace.policy import ContextPolicy, full_policy, parse_policy
from ace_lab.bounded import Bounded, ConfigError
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS
from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.methods.names import MethodName, parse
from ace_lab.methods.spec import Factory, MethodSpec
from ace_lab.retrieval import RetrievalGraph

#: ACE's report package (tables, figures, stepper views, liveness, claims).
REPORT = "ace_lab.ace.report"
#: The head of one fixed policy for every query: ``ace-fixed:<ContextPolicy.label>``.
ACE_FIXED = "ace-fixed"
#: The head that takes a ``>policy`` (``ace>gap+depth`` is ``ace-fixed:gap+depth``).
ACE_POLICY_HEAD = "ace"
DEFAULT_BACKBONE = "hirag"
#: A variant token setting the adaptation's token budget: ``b<N>`` (no leading zero).
BUDGET_TOKEN = re.compile(r"b([1-9][0-9]*)")
#: The variant token of the baselines' shared context budget: ``b1500``.
SHARED_BUDGET = f"b{CONTEXT_BUDGET_TOKENS}"

#: Full-ACE without one component (paper Table 3): name → the part removed
#: (:meth:`~ace_lab.ace.policy.ContextPolicy.without`). ``pruning`` removes both halves of the
#: paper's switch (semantic pruning and report dropping); the last two remove one half each.
ACE_ABLATIONS = {
    "ace-wo-breadth": "breadth",
    "ace-wo-depth": "depth",
    "ace-wo-gap": "gap",
    "ace-wo-pruning": "pruning",
    "ace-wo-semantic-pruning": "semantic-pruning",
    "ace-wo-report-drop": "report-drop",
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


def split_variant(variant: str) -> tuple[str, int | None]:
    """An ACE variant's policy label and adaptation budget: ``gap+depth+b1500`` →
    (``gap+depth``, 1500); ``b1500`` → ("", 1500); no ``b<N>`` token → budget None."""
    tokens = variant.split("+") if variant else []
    if not tokens or BUDGET_TOKEN.fullmatch(tokens[-1]) is None:
        budgets = [t for t in tokens if re.fullmatch(r"b[0-9]+", t)]
        if budgets:
            raise KeyError(f"variant {variant!r}: a budget is b<N> (no leading 0), written last")
        return variant, None
    return "+".join(tokens[:-1]), int(tokens[-1][1:])


def with_budget(config: AceConfig, tokens: int) -> AceConfig:
    """``config`` with its adaptation's token budget set to ``tokens``."""
    try:
        return replace(config, adapt=replace(config.adapt, budget_tokens=tokens))
    except ConfigError as exc:
        raise KeyError(f"budget b{tokens}: {exc}") from None


def at_budget(name: str, tokens: int) -> str:
    """ACE name ``name`` with a ``tokens``-token adaptation budget: ``ace-full`` →
    ``ace-full:b1500``, ``ace-fixed:gap+depth@graphrag`` → ``ace-fixed:gap+depth+b1500@graphrag``,
    ``mosaic>ace-full`` → ``mosaic>ace-full:b1500`` (a budget already named is replaced)."""
    parts = parse(name)
    if parts.policy and "-" in parts.policy and is_ace(parse(parts.policy).head):
        return str(replace(parts, policy=at_budget(parts.policy, tokens)))  # a composition
    parts = canonical(parts)
    label, _ = split_variant(parts.variant)
    return str(replace(parts, variant="+".join(t for t in (label, f"b{tokens}") if t)))


def ace_config(name: str) -> AceConfig:
    """The ``AceConfig`` an ACE method name stands for (any backbone)."""
    parts = canonical(parse(name))
    label, budget = split_variant(parts.variant)
    if parts.head in ACE_CONFIGS and not label:
        config = ACE_CONFIGS[parts.head][0]
    elif parts.head == ACE_FIXED and label:
        config = AceConfig(mode="fixed", policy=parse_policy(label))
    elif parts.head == ACE_FIXED:
        raise KeyError(f"{name!r}: name the policy, e.g. {ACE_FIXED}:gap+depth")
    elif parts.head in ACE_CONFIGS:
        raise KeyError(f"{name!r}: {parts.head} takes only a budget, e.g. {parts.head}:b1500")
    else:
        raise KeyError(f"unknown ACE method {name!r}")
    return config if budget is None else with_budget(config, budget)


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
    return MethodSpec(name, "hierarchical", factory, False, about, configs, REPORT)


def resolve(parts: MethodName) -> MethodSpec:
    """The spec of an ACE name: a registered configuration, a fixed policy, a backbone suffix."""
    parts = canonical(parts)
    registered = next((s for s in ACE_SPECS if s.name == str(parts)), None)
    if registered is not None:
        return registered
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

#: Their names, in table order.
REGISTERED: tuple[str, ...] = tuple(s.name for s in ACE_SPECS)


def fixed_policy_runs(label: str) -> tuple[str, ...]:
    """Every method name that runs the fixed policy ``label``: the ablation of Full-ACE that
    equals it (``ace-wo-breadth`` is ``gap+depth+prune``, the POINT policy) and
    ``ace-fixed:<label>``. Tables accept either run, so a policy is never run twice."""
    aliases = [n for n, part in ACE_ABLATIONS.items() if full_policy().without(part).label == label]
    return (*aliases, str(MethodName(ACE_FIXED, label)))
