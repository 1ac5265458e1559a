"""MOSAIC end to end: analyzer policy → seeds → traversal → stopping → selection → answer.

One shared pipeline executes whichever policy a query gets (paper §5): an analyzer's validated
per-query policy (``mosaic``: the paper's analyzer, whose reply is the policy;
``mosaic:signals``: six signals mapped to controls), one canonical fixed policy
for every query (``mosaic-fixed:narrow|medium|wide``) or a fixed policy matched to MOSAIC's
mean budget and depth (``mosaic-budget-matched[:<budget>x<depth>]``). The graph, indexes,
scoring, selection and the shared answer generator are the same for all of them; only the
policy changes.

Every stage is a trace step — ``policy``, ``seed``, ``traverse:<d>`` (one per depth, kept and
pruned paths with every score component), ``stop`` (reason, gain/completeness curve),
``select`` (roles, drops, floor restores, source windows) and ``generate``, each recording its
typed payload (:mod:`ace_lab.mosaic.steps`) — and ``answer.details`` (``MosaicDetails``)
carries the per-question numbers the evaluation records.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass

from ace_lab.bounded import Bounded, bounded
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Answer, Context, Evidence, Trace, fit_budget
from ace_lab.llm import LLM
from ace_lab.methods.answer_step import answer_from
from ace_lab.methods.generate import PROMPT_STYLES, PromptStyle, Task
from ace_lab.mosaic.analyzer import PolicyDecision, analyze
from ace_lab.mosaic.controls import PAPER_ANALYZER, ControlsAnalyzer, analyze_controls
from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.scoring import PathScorer
from ace_lab.mosaic.seeds import ChosenSeeds, select_seeds
from ace_lab.mosaic.select import select, source_windows
from ace_lab.mosaic.steps import (
    EvidenceSelection,
    ExplorationStop,
    MosaicDetails,
    SeedSelection,
    TraversalDepth,
)
from ace_lab.mosaic.traverse import DepthRecord, Explorer
from ace_lab.mosaic.view import GraphView
from ace_lab.retrieval import RetrievalGraph

#: Pruned paths listed per depth in the trace (all are counted; ours).
TRACE_PRUNED = 12
MOSAIC_FAMILIES = ("hierarchical", "openie")
#: The registered MOSAIC methods (``ace-lab methods`` lists them in this order).
MOSAIC_METHODS = (
    "mosaic",
    "mosaic:signals",
    "mosaic-fixed:narrow",
    "mosaic-fixed:medium",
    "mosaic-fixed:wide",
    "mosaic-budget-matched",
)
#: Name heads of MOSAIC methods (``ace_lab.registry`` parses and resolves the names).
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
    """MOSAIC over one ``RetrievalGraph``: ``policy=None`` runs an analyzer per query — the
    paper's (the reply is the policy, :mod:`ace_lab.mosaic.controls`; the default) or, with
    ``analyzer=None``, six signals mapped to controls (:mod:`ace_lab.mosaic.analyzer`)."""

    def __init__(
        self,
        graph: RetrievalGraph,
        llm: LLM,
        *,
        policy: ExplorationPolicy | None = None,
        config: MosaicConfig | None = None,
        name: str = "mosaic",
        analyzer: ControlsAnalyzer | None = PAPER_ANALYZER,
    ) -> None:
        self.view = GraphView(graph)
        self.llm = llm
        self.policy = policy
        self.config = config or MosaicConfig()
        self.name = name
        self.analyzer = analyzer

    def at_policy(self, policy: ExplorationPolicy) -> Mosaic:
        """This method at one fixed ``policy`` (no analyzer call), sharing its graph view (and
        the view's fact cache), LLM, settings and name."""
        fixed = copy.copy(self)
        fixed.policy, fixed.analyzer = policy, None
        return fixed

    def decide(self, query: str) -> PolicyDecision:
        if self.policy is not None:
            return PolicyDecision(self.policy, {}, {}, (), False, 0)
        attempts = self.config.analyzer_attempts
        if self.analyzer is not None:
            return analyze_controls(self.llm, query, attempts, self.analyzer)
        return analyze(self.llm, query, attempts)

    def answer(self, query: str, task: Task = "qa") -> Answer:
        trace, cfg = Trace(), self.config
        with trace.activate():
            final, details = self.gather(query, trace)
            return answer_from(
                trace,
                self.llm,
                query,
                Context(final),
                task,
                cfg.prompt_style,
                method=self.name,
                retrieval_calls=1,
                details=details,
            )

    def gather(self, query: str, trace: Trace) -> tuple[list[Evidence], MosaicDetails]:
        """MOSAIC's context for ``query`` and its details: every stage before the answer
        (policy → seed → traverse → stop → select), each recorded as a step of ``trace``."""
        view, cfg = self.view, self.config
        with trace.step("policy", mode="fixed" if self.policy else "analyzer") as step:
            decision = self.decide(query)
            policy = decision.policy
            step.record(decision.payload("fixed" if self.policy else "analyzer"))
            step.notes.append(f"policy {policy.label}")
            if decision.fallback and self.policy is None:
                step.notes.append("analyzer output unusable: default policy")
            step.notes += [f"adjusted {a}" for a in decision.adjustments]
        with trace.step("seed", seed_count=policy.seed_count) as step:
            step.queries.append(query)
            chosen = select_seeds(view, query, policy)
            step.add(view.graph.entity_evidence(s.node, round(s.score, 4)) for s in chosen.seeds)
            step.record(_seed_selection(chosen))
        scorer = PathScorer(view, query, policy, chosen.seeds)
        explorer = Explorer(view, scorer, chosen.seeds, policy, query)
        while not explorer.done:
            with trace.step(f"traverse:{len(explorer.records) + 1}", kind="traverse") as step:
                record = explorer.advance()
                step.add(_evidence(view, record.new_items))
                step.record(_traversal_depth(view, record))
                step.notes.append(
                    f"{record.candidates} paths scored, {len(record.kept)} kept, "
                    f"{len(record.pruned)} pruned; gain {record.gain:.2f}, "
                    f"completeness {record.completeness:.2f}"
                )
                step.notes += [f"kept {p.line(view)}" for p in record.kept]
        found = explorer.result()
        with trace.step("stop") as step:
            step.record(
                ExplorationStop(
                    reason=found.stop_reason,
                    rounds=found.depth_reached,
                    paths_evaluated=found.paths_evaluated,
                    curve=tuple(found.curve),
                )
            )
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
            step.record(
                EvidenceSelection(
                    kept=tuple(e.id for e in chosen_items.kept),
                    dropped=tuple((e.id, why) for e, why in chosen_items.dropped),
                    roles={e.id: str(e.meta.get("role")) for e in chosen_items.kept},
                    passages=tuple(e.id for e in windows),
                    restored=tuple(chosen_items.restored),
                    over_tokens=tuple(e.id for e in ordered if e.id not in keep),
                    budget=policy.evidence_budget,
                )
            )
        details = MosaicDetails(
            policy=policy.to_dict(),
            label=policy.label,
            paths_evaluated=found.paths_evaluated,
            evidence_retained=len(chosen_items.kept),
            passages_retained=len(windows),
            depth_reached=found.depth_reached,
            stop_reason=found.stop_reason,
            connectors_used=found.connectors_used,
            seeds=len(chosen.seeds),
            analyzer_fallback=decision.fallback and self.policy is None,
            adjustments=len(decision.adjustments),
        )
        return final, details


def _seed_selection(chosen: ChosenSeeds) -> SeedSelection:
    return SeedSelection(
        seeds=tuple(s.payload() for s in chosen.seeds),
        candidates={v: tuple(s.node for s in c) for v, c in chosen.candidates.items()},
        dropped=tuple(s.node for s in chosen.dropped),
    )


def _traversal_depth(view: GraphView, record: DepthRecord) -> TraversalDepth:
    return TraversalDepth(
        depth=record.depth,
        candidates=record.candidates,
        kept=tuple(p.payload(view) for p in record.kept),
        pruned=tuple(p.payload(view) for p in record.pruned[:TRACE_PRUNED]),
        pruned_count=len(record.pruned),
        connectors=sum(p.view == "connector" for p in record.kept),
        gain=round(record.gain, 4),
        completeness=round(record.completeness, 4),
    )


def _evidence(view: GraphView, ids: list[str]) -> list:
    g = view.graph
    return [
        g.relation_evidence(i) if i in g.edges else g.entity_evidence(i)
        for i in ids
        if i in g.edges or i in g.nodes
    ]


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
