"""MOSAIC end to end: analyzer policy → seeds → traversal → stopping → selection → answer.

One shared pipeline executes whichever policy a query gets (paper §5): the analyzer's
validated per-query policy (``mosaic``), one canonical fixed policy for every query
(``mosaic-fixed:narrow|medium|wide``) or a fixed policy matched to MOSAIC's mean budget and
depth (``mosaic-budget-matched[:<budget>x<depth>]``). The graph, indexes, scoring, selection
and the shared answer generator are the same for all of them; only the policy changes.

Every stage is a trace step — ``policy``, ``seed``, ``traverse:<d>`` (one per depth, kept and
pruned paths with every score component), ``stop`` (reason, gain/completeness curve),
``select`` (roles, drops, floor restores, source windows) and ``generate`` — and
``answer.meta["stats"]`` carries the per-question numbers the evaluation records.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ace_lab.bounded import Bounded, bounded
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Answer, Context, Trace, fit_budget
from ace_lab.llm import LLM
from ace_lab.methods.generate import PROMPT_STYLES, PromptStyle, Task, generate
from ace_lab.mosaic.analyzer import PolicyDecision, analyze
from ace_lab.mosaic.policy import (
    BUDGET_MATCHED_DEFAULT,
    FIXED_POLICIES,
    ExplorationPolicy,
    budget_matched,
)
from ace_lab.mosaic.scoring import PathScorer
from ace_lab.mosaic.seeds import select_seeds
from ace_lab.mosaic.select import select, source_windows
from ace_lab.mosaic.traverse import Explorer
from ace_lab.mosaic.view import GraphView
from ace_lab.retrieval import RetrievalGraph

#: Pruned paths listed per depth in the trace (all are counted; ours).
TRACE_PRUNED = 12
MOSAIC_FAMILIES = ("hierarchical", "openie")
#: The registered MOSAIC methods (``ace-lab methods`` lists them in this order).
MOSAIC_METHODS = (
    "mosaic", "mosaic-fixed:narrow", "mosaic-fixed:medium", "mosaic-fixed:wide",
    "mosaic-budget-matched",
)  # fmt: skip
#: Name heads :func:`parse_name` resolves (before ``:<arg>`` and ``@<family>``).
MOSAIC_HEADS = ("mosaic", "mosaic-fixed", "mosaic-budget-matched")


@dataclass(frozen=True)
class MosaicConfig(Bounded):
    """Settings shared by every MOSAIC policy (not chosen per query)."""

    source_passages: int = bounded(
        4, lo=0, hi=12, help="source chunks reranked into the context (before windows; ours)"
    )
    budget_tokens: int = bounded(
        CONTEXT_BUDGET_TOKENS, lo=100, hi=100_000, help="token cap of the final context"
    )
    analyzer_attempts: int = bounded(2, lo=1, hi=3, help="analyzer calls before the default")
    prompt_style: PromptStyle = bounded("task", choices=PROMPT_STYLES, help="answer prompt")


class Mosaic:
    """MOSAIC over one ``RetrievalGraph``: ``policy=None`` runs the analyzer per query."""

    def __init__(
        self,
        graph: RetrievalGraph,
        llm: LLM,
        *,
        policy: ExplorationPolicy | None = None,
        config: MosaicConfig | None = None,
        name: str = "mosaic",
    ) -> None:
        self.view = GraphView(graph)
        self.llm = llm
        self.policy = policy
        self.config = config or MosaicConfig()
        self.name = name

    def decide(self, query: str) -> PolicyDecision:
        if self.policy is not None:
            return PolicyDecision(self.policy, {}, {}, (), False, 0)
        return analyze(self.llm, query, self.config.analyzer_attempts)

    def answer(self, query: str, task: Task = "qa") -> Answer:
        trace, view, cfg = Trace(), self.view, self.config
        with trace.activate():
            with trace.step("policy", mode="fixed" if self.policy else "analyzer") as step:
                decision = self.decide(query)
                policy = decision.policy
                step.outputs.update(policy=policy.to_dict(), label=policy.label,
                                    **{k: v for k, v in decision.to_meta().items()
                                       if k != "policy"})  # fmt: skip
                step.notes.append(f"policy {policy.label}")
                if decision.fallback and self.policy is None:
                    step.notes.append("analyzer output unusable: default policy")
                step.notes += [f"adjusted {a}" for a in decision.adjustments]
            with trace.step("seed", seed_count=policy.seed_count) as step:
                step.queries.append(query)
                chosen = select_seeds(view, query, policy)
                step.add(view.graph.entity_evidence(s.node, round(s.score, 4))
                         for s in chosen.seeds)  # fmt: skip
                step.outputs.update(
                    seeds=[s.to_dict() for s in chosen.seeds],
                    candidates={v: [s.node for s in c] for v, c in chosen.candidates.items()},
                    dropped=[s.node for s in chosen.dropped],
                )
            scorer = PathScorer(view, query, policy, chosen.seeds)
            explorer = Explorer(view, scorer, chosen.seeds, policy, query)
            while not explorer.done:
                with trace.step(f"traverse:{len(explorer.records) + 1}", kind="traverse") as step:
                    record = explorer.advance()
                    step.add(_evidence(view, record.new_items))
                    step.outputs.update(
                        depth=record.depth, candidates=record.candidates,
                        kept=[p.to_dict(view) for p in record.kept],
                        pruned=[p.to_dict(view) for p in record.pruned[:TRACE_PRUNED]],
                        pruned_count=len(record.pruned),
                        connectors=sum(p.view == "connector" for p in record.kept),
                        gain=round(record.gain, 4), completeness=round(record.completeness, 4),
                    )  # fmt: skip
                    step.notes.append(
                        f"{record.candidates} paths scored, {len(record.kept)} kept, "
                        f"{len(record.pruned)} pruned; gain {record.gain:.2f}, "
                        f"completeness {record.completeness:.2f}"
                    )
                    step.notes += [f"kept {p.line(view)}" for p in record.kept]
            found = explorer.result()
            with trace.step("stop") as step:
                step.outputs.update(reason=found.stop_reason, curve=found.curve,
                                    depth_reached=found.depth_reached,
                                    paths_evaluated=found.paths_evaluated)  # fmt: skip
                step.notes.append(f"stopped: {found.stop_reason} at depth {found.depth_reached}")
            with trace.step("select", budget=policy.evidence_budget) as step:
                chosen_items = select(view, found, policy)
                windows = source_windows(
                    view, chosen_items.kept, scorer.qvec, policy, cfg.source_passages
                )
                chosen_items.passages = windows
                ordered = _order(chosen_items.kept, windows)
                final = fit_budget(ordered, cfg.budget_tokens)
                keep = {e.id for e in final}
                step.add(final)
                step.remove(_removed(trace, keep, chosen_items.dropped))
                roles = Counter(e.meta.get("role") for e in chosen_items.kept)
                step.notes.append(
                    f"{len(chosen_items.kept)} of budget {policy.evidence_budget} kept "
                    f"({', '.join(f'{n} {r}' for r, n in roles.items())}), "
                    f"{len(chosen_items.restored)} restored to the floor "
                    f"{policy.preservation_floor}, {len(windows)} source passages"
                )
                step.outputs.update(
                    kept=[(e.id, e.meta.get("role")) for e in chosen_items.kept],
                    passages=[e.id for e in windows],
                    restored=chosen_items.restored,
                    dropped=[(e.id, why) for e, why in chosen_items.dropped],
                    over_tokens=[e.id for e in ordered if e.id not in keep],
                )
            context = Context(final)
            with trace.step("generate", prompt_style=cfg.prompt_style, task=task) as step:
                generation = generate(self.llm, query, context.render(), task, cfg.prompt_style)
                step.outputs.update(answer=generation.answer, raw=generation.raw)
        stats = {
            "paths_evaluated": found.paths_evaluated,
            "evidence_retained": len(chosen_items.kept),
            "passages_retained": len(windows),
            "depth_reached": found.depth_reached,
            "stop_reason": found.stop_reason,
            "connectors_used": found.connectors_used,
            "seeds": len(chosen.seeds),
            "analyzer_fallback": decision.fallback and self.policy is None,
            "adjustments": len(decision.adjustments),
            "policy_label": policy.label,  # flat: counts distinct policy combinations
            "policy": policy.to_dict(),
        }
        meta: dict[str, Any] = {
            "method": self.name,
            "policy": policy.to_dict() | {"label": policy.label},
            "analyzer": decision.to_meta() if self.policy is None else None,
            "stats": stats,
            "retrieval_calls": 1,
            "raw": generation.raw,
        }
        return Answer(generation.answer, context, trace, meta)


def _evidence(view: GraphView, ids: list[str]) -> list:
    g = view.graph
    return [g.relation_evidence(i) if i in g.edges else g.entity_evidence(i) for i in ids
            if i in g.edges or i in g.nodes]  # fmt: skip


def _order(kept: list, passages: list) -> list:
    """Core and complementary items, then the source passages, then support items; relations
    before entities within each part (fewer block headers in the rendered context)."""
    kind = {"relation": 0, "entity": 1}

    def part(items: list) -> list:
        return sorted(items, key=lambda e: kind.get(e.kind, 2))  # stable: role, score order

    lead = part([e for e in kept if e.meta.get("role") != "support"])
    return lead + passages + part([e for e in kept if e.meta.get("role") == "support"])


def _removed(trace: Trace, keep: set[str], dropped: list) -> list:
    why = {e.id: r for e, r in dropped}
    return [(e, why.get(e.id, "not selected")) for e in trace.working_set() if e.id not in keep]


# ---------------------------------------------------------------------- registry names
_BUDGET = re.compile(r"^(\d+)x(\d+)$")


def parse_name(name: str) -> tuple[ExplorationPolicy | None, str, str]:
    """``(fixed policy or None, graph family, description)`` of a MOSAIC method name.

    ``mosaic``, ``mosaic-fixed:<narrow|medium|wide>``, ``mosaic-budget-matched`` (default
    budget × depth :data:`BUDGET_MATCHED_DEFAULT`) or ``mosaic-budget-matched:<b>x<d>``, each
    optionally ``@hierarchical`` (default) or ``@openie``."""
    base, _, family = name.partition("@")
    family = family or "hierarchical"
    if family not in MOSAIC_FAMILIES:
        raise KeyError(f"unknown graph family {family!r} in {name!r}; use {MOSAIC_FAMILIES}")
    head, _, arg = base.partition(":")
    if base == "mosaic":
        return None, family, f"MOSAIC: analyzer → per-query exploration policy ({family})"
    if head == "mosaic-fixed" and arg in FIXED_POLICIES:
        policy = FIXED_POLICIES[arg]
        return policy, family, f"MOSAIC pipeline, Fixed {arg.title()} ({policy.label})"
    if head == "mosaic-budget-matched":
        match = _BUDGET.match(arg) if arg else None
        if arg and match is None:
            raise KeyError(f"{name!r}: use mosaic-budget-matched:<budget>x<depth>, e.g. 12x3")
        budget, depth = (int(match[1]), int(match[2])) if match else BUDGET_MATCHED_DEFAULT
        policy = budget_matched(budget, depth)
        return policy, family, f"MOSAIC pipeline, fixed policy matched to budget/depth " \
            f"({policy.label})"  # fmt: skip
    raise KeyError(
        f"unknown MOSAIC method {name!r}; use mosaic, mosaic-fixed:<narrow|medium|"
        "wide>, mosaic-budget-matched[:<budget>x<depth>], optionally @openie"
    )
