"""MOSAIC's seed selection: entity- and relation-index scores combined, per target if asked.

For every *view* of the question — the whole question, and in per-target mode each target —
the entity index and the relation index are searched (the same hybrid seed indexes LightRAG's
local and global modes use). Each index's fused scores are normalised by its best hit; a
relation hit lends its score to both of its endpoint entities, and a node's combined score is
``ENTITY_WEIGHT · entity + RELATION_WEIGHT · relation`` (weights ours). A node is *lexical* when
BM25 found it for the view (the question names it): the anchor signal of path scoring.

Per-target mode (paper): each target's candidates are kept before de-duplication and
truncation, so a comparison cannot spend every seed on its most salient entity. Targets take
turns placing their best ``seed_count // (targets + 1)`` candidates (at least one each), then
the whole-question view, then the targets' remaining candidates, until the seed count is
reached (the shares are ours).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.steps import SeedPick
from ace_lab.mosaic.view import GraphView

ENTITY_WEIGHT = 0.6
RELATION_WEIGHT = 0.4
#: The whole question's view (a target view is named by its target).
QUESTION = "question"


@dataclass(frozen=True)
class Seed:
    node: str
    score: float
    entity_score: float
    relation_score: float
    lexical: bool
    view: str  # QUESTION or the target whose candidates it came from
    views: tuple[str, ...] = ()  # every view that found it

    def payload(self) -> SeedPick:
        """This seed as recorded in the ``seed`` step."""
        return SeedPick(
            node=self.node,
            score=round(self.score, 4),
            entity=round(self.entity_score, 4),
            relation=round(self.relation_score, 4),
            lexical=self.lexical,
            view=self.view,
            views=tuple(self.views),
        )


@dataclass
class ChosenSeeds:
    seeds: list[Seed]
    candidates: dict[str, list[Seed]] = field(default_factory=dict)  # per view, best first
    dropped: list[Seed] = field(default_factory=list)


def view_candidates(view: GraphView, text: str, name: str, k: int) -> list[Seed]:
    """Candidates of one view: entity and relation hits combined, best first."""
    g = view.graph
    ent: dict[str, float] = {}
    lexical: set[str] = set()
    rel: dict[str, float] = {}
    entities = g.indexes.get("entities")
    if entities is not None and text.strip():
        hits = [h for h in entities.search(text, k=3 * k + 8) if view.is_entity(h.id)]
        top = max((h.score for h in hits), default=0.0) or 1.0
        for h in hits:
            ent[h.id] = h.score / top
            if h.sparse_rank is not None:
                lexical.add(h.id)
    relations = g.indexes.get("relations")
    if relations is not None and text.strip():
        hits = [h for h in relations.search(text, k=2 * k + 8) if h.id in g.edges]
        hits = [h for h in hits if view.is_fact(g.edges[h.id])]
        top = max((h.score for h in hits), default=0.0) or 1.0
        for h in hits:
            edge = g.edges[h.id]
            for node in (edge.source, edge.target):
                rel[node] = max(rel.get(node, 0.0), h.score / top)
    out = [
        Seed(
            n,
            ENTITY_WEIGHT * ent.get(n, 0.0) + RELATION_WEIGHT * rel.get(n, 0.0),
            ent.get(n, 0.0),
            rel.get(n, 0.0),
            n in lexical,
            name,
            (name,),
        )
        for n in set(ent) | set(rel)
    ]
    return sorted(out, key=lambda s: (-s.score, s.node))


def select_seeds(view: GraphView, query: str, policy: ExplorationPolicy) -> ChosenSeeds:
    """The policy's ``seed_count`` seeds for ``query`` (see module doc)."""
    k = policy.seed_count
    per_target = policy.per_target and bool(policy.targets)
    targets = list(policy.targets) if per_target else []
    candidates = {t: view_candidates(view, t, t, k) for t in targets}
    candidates[QUESTION] = view_candidates(view, query, QUESTION, k)

    found: dict[str, list[str]] = {}
    for name, seeds in candidates.items():
        for s in seeds:
            found.setdefault(s.node, []).append(name)
    # Each target's best ``quota`` first (targets take turns), then the whole question, then
    # the targets' remaining candidates: no target is crowded out, nor is the question.
    quota = max(1, k // (len(targets) + 1))
    order = _turns([candidates[t][:quota] for t in targets]) + candidates[QUESTION]
    order += _turns([candidates[t][quota:] for t in targets])

    lexical = {s.node for s in order if s.lexical}
    chosen: dict[str, Seed] = {}
    dropped: list[Seed] = []
    seen: set[str] = set()
    for s in order:
        if s.node in seen:
            continue  # de-duplicated: the first view (a target's, in turn) keeps it
        seen.add(s.node)
        seed = Seed(
            s.node,
            s.score,
            s.entity_score,
            s.relation_score,
            s.node in lexical,
            s.view,
            tuple(found[s.node]),
        )
        if len(chosen) < k:
            chosen[s.node] = seed
        else:
            dropped.append(seed)
    return ChosenSeeds(list(chosen.values()), candidates, dropped)


def _turns(lists: list[list[Seed]]) -> list[Seed]:
    """The lists interleaved: every list's first item, then every list's second, ..."""
    longest = max((len(c) for c in lists), default=0)
    return [c[rank] for rank in range(longest) for c in lists if rank < len(c)]
