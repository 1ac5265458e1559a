"""MOSAIC's structured path scoring: every hop scored by named components, all kept.

A path starts at a seed and grows one fact edge per depth. Each hop ``(edge, new node)`` gets
six rewards and three penalties in [0, 1] (paper §5, "Policy-conditioned traversal"; the exact
formulas and weights are ours):

- ``relevance``   cosine of the question with the edge's relation text and the new node
- ``target``      cosine of the new node with the path's target (per-target), else the best
                  target, else the question
- ``specificity`` how few passages mention the new node (generic nodes are everywhere)
- ``anchor``      the root seed's score, halved unless the question names it (BM25 hit)
- ``transition``  cosine of this edge's relation with the previous one's (first hop: with the
                  question)
- ``coherence``   cosine of the new node with the path's root
- ``hub``         penalty: the new node's fact degree on a log scale
- ``repetition``  penalty: the new node was already reached by a kept path (1), or the edge
                  repeats a predicate of the path (0.5)
- ``question_label`` penalty: the node's label reads like a question or a sentence (an
                  extraction artefact that matches questions well and answers nothing)

Anchored queries use adaptive weights (:data:`ANCHORED_WEIGHTS`): more anchor and target, less
free-floating relevance. A hop's total is Σ reward·w − Σ penalty·w; a path's score is the mean
of its hop totals, so deeper paths are not favoured merely for being long.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.seeds import QUESTION, Seed
from ace_lab.mosaic.steps import ScoredPath
from ace_lab.mosaic.view import GraphView, cosine
from ace_lab.retrieval import EdgeInfo

REWARDS = ("relevance", "target", "specificity", "anchor", "transition", "coherence")
PENALTIES = ("hub", "repetition", "question_label")
WEIGHTS: dict[str, float] = {
    "relevance": 0.35,
    "target": 0.15,
    "specificity": 0.10,
    "anchor": 0.10,
    "transition": 0.15,
    "coherence": 0.15,
    "hub": 0.15,
    "repetition": 0.20,
    "question_label": 0.30,
}
ANCHORED_WEIGHTS: dict[str, float] = {
    **WEIGHTS,
    "relevance": 0.25,
    "target": 0.20,
    "anchor": 0.20,
    "transition": 0.125,
    "coherence": 0.125,
}
_QUESTION_LABEL = re.compile(r"^(who|what|when|where|which|why|how|is|are|does|did)\b", re.I)


@dataclass(frozen=True)
class Path:
    """A walk from a seed: nodes, the fact edges between them, and how it scored."""

    nodes: tuple[str, ...]
    edges: tuple[str, ...]
    region: str  # the target (per-target mode) or the seed it grew from
    score: float
    hops: tuple[float, ...] = ()  # every hop's total
    components: Mapping[str, float] = field(default_factory=dict)  # of the last hop
    view: str = "standard"  # "standard" | "connector"
    joins: tuple[str, ...] = ()  # the regions a connector path joins

    @property
    def depth(self) -> int:
        return len(self.edges)

    @property
    def last(self) -> str:
        return self.nodes[-1]

    def line(self, view: GraphView) -> str:
        """One readable line: the walk, its score and the last hop's components."""
        short = {
            "relevance": "rel",
            "target": "tgt",
            "specificity": "spec",
            "anchor": "anc",
            "transition": "trans",
            "coherence": "coh",
            "hub": "-hub",
            "repetition": "-rep",
            "question_label": "-qlabel",
        }
        parts = " ".join(
            f"{a} {self.components[k]:.2f}" for k, a in short.items() if k in self.components
        )
        walk = " → ".join(view.name(n) for n in self.nodes)
        tag = f" [connector {'/'.join(self.joins)}]" if self.view == "connector" else ""
        return f"{self.score:.3f} {walk}{tag} ({parts})"

    def payload(self, view: GraphView | None = None) -> ScoredPath:
        """This path as recorded in a ``traverse`` step (``view`` adds the node names)."""
        return ScoredPath(
            nodes=tuple(self.nodes),
            score=round(self.score, 4),
            names=tuple(view.name(n) for n in self.nodes) if view is not None else (),
            edges=tuple(self.edges),
            region=self.region,
            view=self.view,
            components={k: round(v, 4) for k, v in self.components.items()},
            joins=tuple(self.joins),
        )


def looks_like_question(label: str) -> bool:
    text = label.strip()
    return (
        text.endswith("?")
        or len(text.split()) > 10
        or (len(text.split()) > 3 and _QUESTION_LABEL.match(text) is not None)
    )


class PathScorer:
    """Scores hops of one query's exploration (question, targets and seeds fixed)."""

    def __init__(
        self, view: GraphView, query: str, policy: ExplorationPolicy, seeds: list[Seed]
    ) -> None:
        self.view = view
        self.policy = policy
        self.weights = ANCHORED_WEIGHTS if policy.anchored else WEIGHTS
        texts = [query, *policy.targets]
        vectors = view.encode(texts)
        self.qvec: np.ndarray = vectors[0]
        self.tvecs: dict[str, np.ndarray] = dict(zip(policy.targets, vectors[1:], strict=True))
        self.seeds = {s.node: s for s in seeds}

    def node_relevance(self, node: str) -> float:
        """Cosine of the question with a node (a seed's share of the novelty mass)."""
        return cosine(self.qvec, self.view.vector("entities", node))

    def root(self, seed: Seed, region: str) -> Path:
        return Path((seed.node,), (), region, seed.score, (), {"seed": seed.score})

    def _anchor(self, root: str) -> float:
        seed = self.seeds.get(root)
        if seed is None:
            return 0.0
        return seed.score * (1.0 if seed.lexical else 0.5)

    def components(self, path: Path, edge: EdgeInfo, node: str, seen: set[str]) -> dict[str, float]:
        v = self.view
        nvec, evec = v.vector("entities", node), v.vector("relations", edge.id)
        if path.region in self.tvecs:
            target = cosine(self.tvecs[path.region], nvec)
        elif self.tvecs:
            target = max(cosine(t, nvec) for t in self.tvecs.values())
        else:
            target = cosine(self.qvec, nvec)
        info = v.graph.nodes.get(node)
        mentions = len(info.source_ids) if info is not None else 0
        previous = v.vector("relations", path.edges[-1]) if path.edges else self.qvec
        predicates = {v.graph.edges[e].predicate.lower() for e in path.edges if e in v.graph.edges}
        repeated = (
            1.0
            if node in seen
            else (0.5 if edge.predicate.lower() in predicates and edge.predicate else 0.0)
        )
        return {
            "relevance": 0.5 * cosine(self.qvec, evec) + 0.5 * cosine(self.qvec, nvec),
            "target": target,
            "specificity": max(0.0, 1.0 - math.log1p(mentions) / v.max_log_mentions),
            "anchor": self._anchor(path.nodes[0]),
            "transition": cosine(previous, evec),
            "coherence": cosine(v.vector("entities", path.nodes[0]), nvec),
            "hub": math.log1p(v.degree(node)) / v.max_log_degree,
            "repetition": repeated,
            "question_label": 1.0 if looks_like_question(v.name(node)) else 0.0,
        }

    def total(self, components: Mapping[str, float]) -> float:
        w = self.weights
        reward = sum(w[k] * components[k] for k in REWARDS)
        return reward - sum(w[k] * components[k] for k in PENALTIES)

    def extend(self, path: Path, edge: EdgeInfo, node: str, seen: set[str]) -> Path:
        """``path`` one hop further along ``edge`` to ``node``, scored."""
        parts = self.components(path, edge, node, seen)
        hops = (*path.hops, self.total(parts))
        return Path(
            (*path.nodes, node),
            (*path.edges, edge.id),
            path.region,
            sum(hops) / len(hops),
            hops,
            {**parts, "hop": hops[-1]},
            path.view,
            path.joins,
        )


def region_of(seed: Seed, policy: ExplorationPolicy) -> str:
    """Per-target mode: the target whose view found the seed; otherwise the seed itself."""
    if policy.per_target and policy.targets and seed.view != QUESTION:
        return seed.view
    return seed.node
