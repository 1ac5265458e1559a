"""ACE-GraphRAG inference (paper Algorithm 1) as one pipeline configured by ``AceConfig``.

    C_base ← R_base(q)                      step "retrieve:base"
    ρ ← ρ_full | ρ_{topology(q)} | fixed     steps "route" (Adaptive only), "policy"
    γ, {q_b} ← Plan(q, C_base, gap)          step "plan"   (no call when rewrite is off)
    ΔC_b ← R_b(q_b)  for b ∈ B, in parallel  steps "retrieve:depth", "retrieve:breadth"
    C* ← Merge(C_base, ΔC)                   step "merge"
    C̃ ← Adapt_y(C*; π)                       step "adapt"
    a ← LLM(P_y(q, C̃))                       step "generate" (always the original query)

Each step records a typed payload (:mod:`ace_lab.ace.steps`; the base retrieval, the adaptation
and the answer use the generic ``Retrieval``, ``Selection`` and ``Generation``), and the answer
carries :class:`~ace_lab.ace.steps.AceDetails`, whose ``columns()`` are ACE's record columns.

Full-ACE, Adaptive-ACE, every ablation, the oracle's fixed policies, Fixed Multi-Resolution and
the GraphRAG transfer are configurations of this class (see ``ace_lab.registry``); so is every
composition ``<source>><ACE name>``, whose evidence source is another method
(:mod:`ace_lab.ace.compose`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from ace_lab.ace.adapt import AdaptConfig, adapt
from ace_lab.ace.pdr import parallel_differential_retrieval
from ace_lab.ace.planner import Plan, original_query_plan, plan
from ace_lab.ace.policy import ContextPolicy, full_policy, profile_for, topology_policy
from ace_lab.ace.router import ROUTER_PROMPTS, RouterPrompt, route
from ace_lab.ace.source import EvidenceSource
from ace_lab.ace.steps import AceDetails, Consolidation, PolicyDecision, RouterDecision
from ace_lab.bounded import Bounded, ConfigError, bounded
from ace_lab.embed import Embedder, get_embedder
from ace_lab.evidence import Answer, Context, Trace, merge, tag
from ace_lab.llm import LLM
from ace_lab.methods.answer_step import answer_from
from ace_lab.methods.generate import PromptStyle, Task
from ace_lab.steps import Retrieval, Selection

PolicyMode = Literal["full", "adaptive", "fixed"]


@dataclass(frozen=True)
class AceConfig(Bounded):
    """How ACE chooses its policy and builds the context.

    ``mode``: ``full`` (ρ_full of the task), ``adaptive`` (router → topology policy) or ``fixed``
    (``policy`` for every query). ``rewrite=False`` skips the planner: every enabled branch
    retrieves with the original query (with gap off and both branches, that is Fixed
    Multi-Resolution: three retrieval calls and one LLM call). ``prompt_style="generic"`` is the
    "without task-specific prompt" ablation. ``router_prompt`` chooses Adaptive-ACE's router
    prompt: ``paper`` (Appendix E.1) or ``fewshot`` (Table 1 definitions with worked examples).
    """

    mode: PolicyMode = bounded(
        "full",
        choices=("full", "adaptive", "fixed"),
        help="full: ρ_full of the task; adaptive: router → topology policy; fixed: `policy`",
    )
    policy: ContextPolicy | None = None
    rewrite: bool = bounded(True, help="plan and rewrite branch queries (off: Fixed Multi-Res.)")
    prompt_style: PromptStyle = bounded(
        "task", choices=("task", "generic"), help="answer prompt: task-specific or generic"
    )
    router_attempts: int = bounded(3, lo=1, hi=5, help="router calls before its fallback label")
    router_prompt: RouterPrompt = bounded(
        "paper",
        choices=tuple(ROUTER_PROMPTS),
        help="router prompt: the paper's (paper) or Table 1 definitions with examples (fewshot)",
    )
    planner_attempts: int = bounded(1, lo=1, hi=5, help="planner calls before its fallback")
    adapt: AdaptConfig = field(default_factory=AdaptConfig)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.mode == "fixed" and self.policy is None:
            raise ConfigError("mode='fixed' needs a policy")


class AceGraphRAG:
    """ACE's context policy layer over an evidence source, answering with ``llm``.

    ``backbone`` is any :class:`~ace_lab.ace.source.EvidenceSource`: a retrieval backbone
    (HiRAG, GraphRAG) or another method's evidence (a composition such as ``mosaic>ace-full``).
    """

    def __init__(
        self,
        backbone: EvidenceSource,
        llm: LLM,
        config: AceConfig | None = None,
        *,
        name: str = "ace",
        embedder: Embedder | None = None,
    ) -> None:
        self.backbone = backbone
        self.llm = llm
        self.config = config or AceConfig()
        self.name = name
        self.embedder = embedder if embedder is not None else get_embedder()

    def select_policy(
        self, query: str, task: Task, trace: Trace
    ) -> tuple[ContextPolicy, RouterDecision | None]:
        """The policy for ``query`` and, for Adaptive-ACE, the router's decision."""
        cfg = self.config
        decision = None
        if cfg.mode == "adaptive":
            with trace.step("route", query=query, prompt=cfg.router_prompt) as step:
                decision = route(
                    self.llm, query, attempts=cfg.router_attempts, prompt=cfg.router_prompt
                )
                step.notes.insert(0, f"router label {decision.topology}")
            policy = topology_policy(decision.topology, profile_for(task))
        elif cfg.mode == "fixed":
            assert cfg.policy is not None
            policy = replace(cfg.policy, profile=profile_for(task))
        else:
            policy = full_policy(profile_for(task))
        return policy, decision

    def answer(self, query: str, task: Task = "qa") -> Answer:
        """Run Algorithm 1, recording every stage's evidence in the trace (see module doc)."""
        cfg, trace, mode = self.config, Trace(), self.backbone.base_mode
        with trace.activate():
            with trace.step("retrieve:base", query=query, mode=mode) as step:
                step.queries.append(query)
                # a source with a pipeline of its own records its steps here, after this one
                base = tag(self.backbone.base(query, task, trace), "base", 0, mode=mode)
                step.add(base)
                step.record(Retrieval(query, mode, tuple(e.id for e in base)))
                step.notes.append(f"C_base: {len(base)} items ({Context(base).tokens} tokens)")
            policy, decision = self.select_policy(query, task, trace)
            topology = decision.topology if decision is not None else None
            with trace.step("policy", mode=cfg.mode) as step:
                chosen = policy_decision(policy, cfg.mode, topology)
                step.record(chosen)
                step.notes.append(f"policy {policy.label} ({cfg.mode})")

            with trace.step("plan", gap=policy.gap, rewrite=cfg.rewrite) as step:
                if cfg.rewrite:
                    made = plan(
                        self.llm,
                        query,
                        Context(base).render(),
                        gap=policy.gap,
                        attempts=cfg.planner_attempts,
                    )
                else:
                    made = original_query_plan(query, policy.branches)
                step.record(made.payload())
                step.notes[:0] = _plan_notes(made, policy)
            branches = ("depth",) if made.fallback else policy.branches
            queries = [made.queries[b] for b in branches]
            increments = parallel_differential_retrieval(self.backbone, queries, trace)

            with trace.step("merge") as step:
                merged = merge(base, increments)
                duplicates = sum(len(e.meta["provenance"]) > 1 for e in merged)
                step.add(merged)  # same ids, now carrying every provenance
                step.record(Consolidation(len(merged), duplicates))
                step.notes.append(f"C*: {len(merged)} items, {duplicates} found more than once")
            with trace.step("adapt", policy=policy.label) as step:
                adapted = adapt(
                    merged,
                    policy,
                    [query] + [q.query for q in queries],
                    self.embedder,
                    cfg.adapt,
                )
                kept = {e.id for e in adapted.kept}
                step.add(adapted.kept)  # the linearised order C̃ is rendered in
                step.remove((e, why) for e, why in adapted.dropped if e.id not in kept)
                step.record(
                    Selection(
                        tuple(e.id for e in adapted.kept),
                        tuple((e.id, why) for e, why in adapted.dropped),
                    )
                )
                step.notes.append(
                    f"C̃: {len(adapted.kept)} kept ({adapted.context.tokens} tokens), "
                    f"{len(adapted.dropped)} dropped"
                )
            return answer_from(
                trace,
                self.llm,
                query,
                adapted.context,
                task,
                cfg.prompt_style,
                method=self.name,
                retrieval_calls=1 + len(queries),
                details=AceDetails(self.backbone.name, chosen, made.payload(), decision),
            )


def policy_decision(policy: ContextPolicy, mode: str, topology: str | None) -> PolicyDecision:
    """What the ``policy`` step records of ``policy``, chosen in ``mode``."""
    return PolicyDecision(
        policy.gap, policy.branches, policy.pruning, policy.profile, policy.label, mode, topology
    )


def _plan_notes(made: Plan, policy: ContextPolicy) -> list[str]:
    analysis = made.analysis or ("(gap diagnosis off)" if not policy.gap else "(none)")
    queries = "; ".join(f"{b}: {q.query}" for b, q in made.queries.items())
    return [f"gap analysis: {analysis}", f"branch queries: {queries}"]
