"""MOSAIC's policy-conditioned traversal: beam expansion with connector exploration.

Depth 0 holds one root path per seed. At each depth every kept path grows by one fact edge
(no node twice on a path); with connector exploration on, paths that reach a node another
region already holds become *connector* paths joining the two regions, and two-hop bridges
``last → c → m`` through one weakly related node ``c`` into another region's nodes are added
(paper: connector exploration joins regions initialised by distinct targets). Standard and
connector candidates go into one pool, scored by the same :class:`PathScorer`, de-duplicated by
node sequence and pruned to the best ``W_q`` paths — a hard cap; no path is ever longer than
``D_q``. After each depth the :class:`StopRule` decides whether to go deeper.

Every depth's kept and pruned paths, with their score components, are kept in
:class:`DepthRecord` for the trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.mosaic.scoring import Path, PathScorer, region_of
from ace_lab.mosaic.seeds import Seed
from ace_lab.mosaic.stopping import StopRule, completeness, novelty_gain, requirement_units
from ace_lab.mosaic.view import GraphView

#: Connector candidates per depth, as a multiple of the beam (bounds the bridge search; ours).
CONNECTOR_FACTOR = 2
#: Floor of an item's relevance mass in the novelty gain (a hop of zero relevance still counts).
MIN_MASS = 0.05


@dataclass
class DepthRecord:
    depth: int
    candidates: int
    kept: list[Path]
    pruned: list[Path]
    gain: float = 0.0
    completeness: float = 0.0
    new_items: list[str] = field(default_factory=list)


@dataclass
class Exploration:
    roots: list[Path]
    depths: list[DepthRecord]
    stop_reason: str
    curve: list[dict[str, float]]

    @property
    def paths_evaluated(self) -> int:
        return sum(d.candidates for d in self.depths)

    @property
    def depth_reached(self) -> int:
        return max((d.depth for d in self.depths if d.kept), default=0)

    @property
    def kept(self) -> list[Path]:
        """Every path kept at any depth (roots first)."""
        return self.roots + [p for d in self.depths for p in d.kept]

    @property
    def connectors_used(self) -> int:
        return sum(p.view == "connector" for d in self.depths for p in d.kept)


def path_items(path: Path) -> list[str]:
    """The evidence ids a path contributes: its relations and its nodes."""
    return [*path.edges, *path.nodes]


def _texts(view: GraphView, ids: list[str]) -> list[str]:
    g = view.graph
    out = []
    for i in ids:
        if i in g.edges:
            e = g.edges[i]
            out.append(f"{view.name(e.source)} {e.predicate} {e.description} {view.name(e.target)}")
        elif i in g.nodes:
            out.append(f"{g.nodes[i].name} {g.nodes[i].description}")
    return out


class Explorer:
    """One query's beam search, advanced one depth at a time so that each depth's work runs
    inside its own trace step; :func:`explore` runs it to the end."""

    def __init__(
        self,
        view: GraphView,
        scorer: PathScorer,
        seeds: list[Seed],
        policy: ExplorationPolicy,
        query: str,
    ) -> None:
        self.view, self.scorer, self.policy = view, scorer, policy
        self.roots = [scorer.root(s, region_of(s, policy)) for s in seeds]
        self.rule = StopRule.of(policy)
        self.units = requirement_units(query, policy.targets)
        self.mass = {s.node: max(scorer.node_relevance(s.node), MIN_MASS) for s in seeds}
        self.regions: dict[str, set[str]] = {}
        for p in self.roots:
            self.regions.setdefault(p.region, set()).add(p.last)
        self.frontier = self.roots
        self.seen: set[str] = set()  # nodes kept paths reached by a hop (repetition penalty)
        self.records: list[DepthRecord] = []
        self.reason: str | None = None if self.roots else "exhausted"

    @property
    def done(self) -> bool:
        return self.reason is not None

    @property
    def growable(self) -> list[Path]:
        """Frontier paths under the depth cap (a two-hop bridge may already be at ``D_q``)."""
        return [p for p in self.frontier if p.depth < self.policy.max_depth]

    def advance(self) -> DepthRecord:
        """Score every extension of the frontier, keep the best ``W_q``, apply the stop rule."""
        if self.done:
            raise RuntimeError(f"exploration already stopped: {self.reason}")
        policy, depth = self.policy, len(self.records) + 1
        grow = self.growable
        pool = _expand(
            self.view, self.scorer, grow, self.seen, self.regions if policy.connectors else {}
        )
        if policy.connectors:
            pool += _bridges(self.view, self.scorer, grow, self.seen, self.regions, policy)
        best: dict[tuple[str, ...], Path] = {}
        for p in pool:  # a walk and its reverse (seed to seed) are one path
            key = p.nodes if p.nodes[0] <= p.nodes[-1] else p.nodes[::-1]
            if key not in best or p.score > best[key].score:
                best[key] = p
        ranked = sorted(best.values(), key=lambda p: (-p.score, p.nodes))
        kept, pruned = ranked[: policy.beam_width], ranked[policy.beam_width :]
        record = DepthRecord(depth, len(pool), kept, pruned)
        self.records.append(record)
        if not kept:
            self.reason = "exhausted"
            self.rule.curve.append({"depth": depth, "gain": 0.0, "completeness": 0.0})
            return record
        new: dict[str, float] = {}
        for p in kept:
            for item in path_items(p):
                new[item] = max(new.get(item, 0.0), p.components.get("relevance", 0.0), MIN_MASS)
            self.regions.setdefault(p.region, set()).update(p.nodes)
            self.seen.update(p.nodes[1:])
        record.gain = novelty_gain(new, self.mass)
        record.new_items = [i for i in new if i not in self.mass]
        self.mass.update({i: m for i, m in new.items() if i not in self.mass})
        record.completeness = completeness(self.units, _texts(self.view, list(self.mass)))
        self.reason = self.rule.observe(depth, record.gain, record.completeness)
        self.frontier = kept
        if self.reason is None and not self.growable:
            self.reason = "depth_cap"  # every kept path is a bridge that reached D_q
        return record

    def result(self) -> Exploration:
        return Exploration(self.roots, self.records, self.reason or "depth_cap", self.rule.curve)


def explore(
    view: GraphView,
    scorer: PathScorer,
    seeds: list[Seed],
    policy: ExplorationPolicy,
    query: str,
) -> Exploration:
    """Beam search from ``seeds`` under ``policy`` to its stop (see module doc)."""
    explorer = Explorer(view, scorer, seeds, policy, query)
    while not explorer.done:
        explorer.advance()
    return explorer.result()


def _expand(
    view: GraphView,
    scorer: PathScorer,
    frontier: list[Path],
    seen: set[str],
    regions: dict[str, set[str]],
) -> list[Path]:
    """Every one-hop extension; one that reaches another region's node is a connector."""
    out = []
    for path in frontier:
        for edge, node in view.facts(path.last):
            if node in path.nodes:
                continue
            other = [r for r, nodes in regions.items() if r != path.region and node in nodes]
            # Reaching another region is what a connector is for: no repetition penalty.
            grown = scorer.extend(path, edge, node, seen - {node} if other else seen)
            if other and path.view == "standard":
                grown = replace(grown, view="connector", joins=(path.region, other[0]))
            out.append(grown)
    return out


def _bridges(
    view: GraphView,
    scorer: PathScorer,
    frontier: list[Path],
    seen: set[str],
    regions: dict[str, set[str]],
    policy: ExplorationPolicy,
) -> list[Path]:
    """Two-hop connector candidates ``last → c → m`` with ``m`` in another region."""
    if len(regions) < 2:
        return []
    cap = CONNECTOR_FACTOR * policy.beam_width
    owner = {n: r for r, nodes in regions.items() for n in nodes}
    out: list[Path] = []
    for path in frontier:
        if path.depth + 2 > policy.max_depth:
            continue
        for edge, mid in view.facts(path.last):
            if mid in path.nodes or mid in owner:
                continue
            for edge2, far in view.facts(mid):
                region = owner.get(far)
                if region is None or region == path.region or far in path.nodes:
                    continue
                step = scorer.extend(path, edge, mid, seen)
                bridged = scorer.extend(step, edge2, far, seen - {far})
                out.append(replace(bridged, view="connector", joins=(path.region, region)))
                if len(out) >= cap:
                    return out
    return out
