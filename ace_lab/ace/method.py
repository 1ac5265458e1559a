"""ACE-GraphRAG inference (paper Algorithm 1) as one pipeline configured by ``AceConfig``.

    C_base ← R_base(q)                      step "retrieve:base"
    ρ ← ρ_full | ρ_{topology(q)} | fixed     steps "route" (Adaptive only), "policy"
    γ, {q_b} ← Plan(q, C_base, gap)          step "plan"   (no call when rewrite is off)
    ΔC_b ← R_b(q_b)  for b ∈ B, in parallel  steps "retrieve:depth", "retrieve:breadth"
    C* ← Merge(C_base, ΔC)                   step "merge"
    C̃ ← Adapt_y(C*; π)                       step "adapt"
    a ← LLM(P_y(q, C̃))                       step "generate" (always the original query)

Full-ACE, Adaptive-ACE, every ablation, the oracle's fixed policies, Fixed Multi-Resolution and
the GraphRAG transfer are configurations of this class (see ``ace_lab.methods.registry``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ace_lab.ace.adapt import AdaptConfig, adapt
from ace_lab.ace.backbone import Backbone
from ace_lab.ace.merge import merge
from ace_lab.ace.pdr import parallel_differential_retrieval, tag
from ace_lab.ace.planner import Plan, original_query_plan, plan
from ace_lab.ace.policy import ContextPolicy, full_policy, topology_policy
from ace_lab.ace.router import route
from ace_lab.embed import Embedder, get_embedder
from ace_lab.evidence import Answer, Context, Evidence, Trace
from ace_lab.llm import LLM
from ace_lab.methods.generate import PromptStyle, Task, generate

PolicyMode = Literal["full", "adaptive", "fixed"]


@dataclass(frozen=True)
class AceConfig:
    """How ACE chooses its policy and builds the context.

    ``mode``: ``full`` (ρ_full of the task), ``adaptive`` (router → topology policy) or ``fixed``
    (``policy`` for every query). ``rewrite=False`` skips the planner: every enabled branch
    retrieves with the original query (with gap off and both branches, that is Fixed
    Multi-Resolution: three retrieval calls and one LLM call). ``prompt_style="generic"`` is the
    "without task-specific prompt" ablation.
    """

    mode: PolicyMode = "full"
    policy: ContextPolicy | None = None
    rewrite: bool = True
    prompt_style: PromptStyle = "task"
    router_attempts: int = 3
    planner_attempts: int = 1
    adapt: AdaptConfig = field(default_factory=AdaptConfig)

    def __post_init__(self) -> None:
        if self.mode not in ("full", "adaptive", "fixed"):
            raise ValueError(f"unknown ACE mode {self.mode!r}")
        if self.mode == "fixed" and self.policy is None:
            raise ValueError("mode='fixed' needs a policy")


class AceGraphRAG:
    """ACE's context policy layer over a retrieval ``backbone``, answering with ``llm``."""

    def __init__(
        self,
        backbone: Backbone,
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
    ) -> tuple[ContextPolicy, str | None]:
        cfg = self.config
        topology = None
        if cfg.mode == "adaptive":
            with trace.step("route", query=query):
                topology = route(self.llm, query, attempts=cfg.router_attempts).topology
            policy = topology_policy(topology, task)
        elif cfg.mode == "fixed":
            assert cfg.policy is not None
            policy = ContextPolicy(cfg.policy.gap, cfg.policy.branches, cfg.policy.pruning, task)
        else:
            policy = full_policy(task)
        return policy, topology

    def answer(self, query: str, task: Task = "qa") -> Answer:
        cfg, trace = self.config, Trace()
        with trace.activate():
            with trace.step("retrieve:base", query=query, mode=self.backbone.base_mode) as step:
                step.queries.append(query)
                base = tag(
                    self.backbone.retriever.retrieve(query, self.backbone.base_mode),
                    "base",
                    0,
                    mode=self.backbone.base_mode,
                )
                step.outputs.update(evidence=[e.id for e in base], n=len(base))
            policy, topology = self.select_policy(query, task, trace)
            with trace.step("policy", mode=cfg.mode) as step:
                step.outputs.update(policy=policy.to_dict(), label=policy.label, topology=topology)

            with trace.step("plan", gap=policy.gap, rewrite=cfg.rewrite):
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
            branches = ("depth",) if made.fallback else policy.branches
            queries = [made.queries[b] for b in branches]
            increments = parallel_differential_retrieval(self.backbone, queries, trace)

            with trace.step("merge") as step:
                merged = merge(base, increments)
                step.outputs.update(
                    n=len(merged),
                    duplicates=sum(len(e.meta["provenance"]) > 1 for e in merged),
                )
            with trace.step("adapt", policy=policy.label) as step:
                adapted = adapt(
                    merged,
                    policy,
                    [query] + [q.query for q in queries],
                    self.embedder,
                    cfg.adapt,
                )
                step.outputs.update(
                    kept=[e.id for e in adapted.kept],
                    dropped=[(e.id, why) for e, why in adapted.dropped],
                )
            context = adapted.context
            with trace.step("generate", prompt_style=cfg.prompt_style, task=task) as step:
                generation = generate(self.llm, query, context.render(), task, cfg.prompt_style)
                step.outputs.update(answer=generation.answer, raw=generation.raw)
        meta: dict[str, Any] = {
            "method": self.name,
            "backbone": self.backbone.name,
            "policy": policy.to_dict() | {"label": policy.label},
            "topology": topology,
            "plan": _plan_summary(made),
            "retrieval_calls": 1 + len(queries),
            "raw": generation.raw,
            "stages": {
                "base": base,
                "increments": increments,
                "merged": merged,
                "adapted": adapted.kept,
                "dropped": adapted.dropped,
            },
        }
        return Answer(generation.answer, context, trace, meta)


def _plan_summary(made: Plan) -> dict[str, Any]:
    return {
        "analysis": made.analysis,
        "queries": {b: q.query for b, q in made.queries.items()},
        "fallback": made.fallback,
    }


def evidence_ids(items: list[Evidence]) -> list[str]:
    return [e.id for e in items]
