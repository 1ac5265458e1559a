"""LightRAG's dual-level retrieval as a context builder: ``local``, ``global`` and ``hybrid``.

LightRAG (Guo et al., 2024) asks an LLM for two keyword sets per query: low-level keywords
(the entities the query names), matched against the entity vector store, and high-level
keywords (its themes), matched against the relation vector store. Here the query itself is
used for both searches by default, so the method stays a pure context builder whose only LLM
call per query is the answer — the same call budget as NaiveRAG, HiRAG and GraphRAG, which keeps
the comparison about context construction. The hybrid seed indexes (dense + BM25) already match
both the names and the wording of the query. Pass ``keywords`` (query -> ``(low, high)``) to
reproduce LightRAG's keyword extraction; an empty string skips that side, as LightRAG does.

- ``local``: the top base entities for the low-level keywords, their incident relations
  (fact edges only: structural edges carry no statement), ranked as LightRAG does by the
  edge's degree then weight, and the passages that mention the most top entities.
- ``global``: the top relations for the high-level keywords, their endpoint entities in order
  of appearance, and the passages those relations were extracted from.
- ``hybrid``: both, merged section by section and de-duplicated by evidence id.

Only base-level entities take part (level 0; no ``Summary`` or ``Community`` nodes): LightRAG
has a flat graph, so on the hierarchical family it sees the layer it would have built itself.
The context keeps LightRAG's layout (entities, relations, sources) and is trimmed to one token
budget with ``fit_budget``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property

from ace_lab.bounded import Bounded, bounded
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Evidence, fit_budget
from ace_lab.graph.seeds import STRUCTURAL_EDGE_TYPES
from ace_lab.retrieval import EdgeInfo, RetrievalGraph

LIGHTRAG_MODES = ("hybrid", "local", "global")

#: ``query -> (low-level keywords, high-level keywords)``, e.g. LightRAG's keyword prompt.
Keywords = Callable[[str], tuple[str, str]]

_NOT_ENTITIES = ("Chunk", "Summary", "Community")


@dataclass(frozen=True)
class LightRAGConfig(Bounded):
    """How much each side retrieves; ``budget_tokens`` caps one retrieval call (None: no cap).

    The defaults match HiRAG's local context so the baselines answer from contexts of one size.
    """

    top_entities: int = bounded(8, lo=0, hi=200, help="low-level (entity) seeds")
    top_relations: int = bounded(8, lo=0, hi=200, help="high-level (relation) seeds")
    top_passages: int = bounded(4, lo=0, hi=200, help="source passages of the seeds")
    budget_tokens: int | None = bounded(
        CONTEXT_BUDGET_TOKENS,
        lo=0,
        hi=100_000,
        help="token cap of one retrieval call (None: no cap)",
    )


@dataclass(frozen=True)
class Sections:
    """One side's context in LightRAG's three sections."""

    entities: tuple[Evidence, ...] = ()
    relations: tuple[Evidence, ...] = ()
    passages: tuple[Evidence, ...] = ()

    def items(self) -> list[Evidence]:
        return [*self.entities, *self.relations, *self.passages]


def merge_sections(parts: Iterable[Sections]) -> list[Evidence]:
    """Entities of every part, then relations, then passages; the first copy of an id wins."""
    parts = list(parts)
    seen: set[str] = set()
    out: list[Evidence] = []
    for section in ("entities", "relations", "passages"):
        for part in parts:
            for item in getattr(part, section):
                if item.id not in seen:
                    seen.add(item.id)
                    out.append(item)
    return out


def _rank_by_count(hits: dict[str, list[int]]) -> list[tuple[str, int]]:
    """``(id, count)`` by how many seeds hit the id, then by the best seed's rank, then id."""
    return [
        (i, len(ranks))
        for i, ranks in sorted(hits.items(), key=lambda kv: (-len(kv[1]), min(kv[1]), kv[0]))
    ]


class LightRAGRetriever:
    """LightRAG's local, global and hybrid context builders over one ``RetrievalGraph``."""

    modes = LIGHTRAG_MODES

    def __init__(
        self,
        graph: RetrievalGraph,
        config: LightRAGConfig | None = None,
        *,
        keywords: Keywords | None = None,
    ) -> None:
        self.graph = graph
        self.config = config or LightRAGConfig()
        self.keywords = keywords

    # ----------------------------------------------------------------------- helpers
    def is_base_entity(self, node_id: str) -> bool:
        node = self.graph.nodes.get(node_id)
        return node is not None and node.level == 0 and node.label not in _NOT_ENTITIES

    def is_fact(self, edge: EdgeInfo) -> bool:
        """A relation LightRAG would have: a non-structural edge between two base entities."""
        return (
            edge.type not in STRUCTURAL_EDGE_TYPES
            and self.is_base_entity(edge.source)
            and self.is_base_entity(edge.target)
        )

    @cached_property
    def degree(self) -> Counter[str]:
        """Fact-edge degree of every base entity (LightRAG ranks an edge by its ends' degrees)."""
        degree: Counter[str] = Counter()
        for edge in self.graph.edges.values():
            if self.is_fact(edge):
                degree[edge.source] += 1
                degree[edge.target] += 1
        return degree

    def _chunks(self, ids: Iterable[str]) -> list[str]:
        nodes = self.graph.nodes
        return [i for i in ids if i in nodes and nodes[i].label == "Chunk"]

    # ----------------------------------------------------------------------- modes
    def retrieve(self, query: str, mode: str = "hybrid") -> list[Evidence]:
        if mode not in LIGHTRAG_MODES:
            raise ValueError(f"unknown LightRAG mode {mode!r}; use one of {LIGHTRAG_MODES}")
        low, high = self.keywords(query) if self.keywords is not None else (query, query)
        parts: list[Sections] = []
        if mode in ("hybrid", "local"):
            parts.append(self.local_sections(low))
        if mode in ("hybrid", "global"):
            parts.append(self.global_sections(high))
        return fit_budget(merge_sections(parts), self.config.budget_tokens)

    def local_sections(self, keywords: str) -> Sections:
        """Top entities, their incident relations and the passages mentioning most of them."""
        cfg, g = self.config, self.graph
        hits = g.search("entities", keywords, k=3 * cfg.top_entities + 8)
        seeds = [(i, s) for i, s in hits if self.is_base_entity(i)][: cfg.top_entities]
        entities = tuple(g.entity_evidence(i, s) for i, s in seeds)

        incident: dict[str, EdgeInfo] = {}
        mentions: dict[str, list[int]] = {}
        for rank, (node, _) in enumerate(seeds):
            for edge, _other in g.neighbours(node):
                if self.is_fact(edge):
                    incident.setdefault(edge.id, edge)
            for chunk in self._chunks(c for _, c in g.neighbours(node, "MENTIONED_IN")):
                mentions.setdefault(chunk, []).append(rank)
        ranked = sorted(
            incident.values(),
            key=lambda e: (-(self.degree[e.source] + self.degree[e.target]), -e.weight, e.id),
        )
        relations = tuple(g.relation_evidence(e.id, e.weight) for e in ranked[: cfg.top_relations])
        passages = tuple(
            g.passage_evidence(c, float(n)) for c, n in _rank_by_count(mentions)[: cfg.top_passages]
        )
        return Sections(entities, relations, passages)

    def global_sections(self, keywords: str) -> Sections:
        """Top relations, their endpoint entities and the passages they were extracted from."""
        cfg, g = self.config, self.graph
        hits = g.search("relations", keywords, k=3 * cfg.top_relations + 8)
        top = [(i, s) for i, s in hits if i in g.edges and self.is_fact(g.edges[i])]
        top = top[: cfg.top_relations]
        relations = tuple(g.relation_evidence(i, s) for i, s in top)

        ends: list[str] = []
        sources: dict[str, list[int]] = {}
        for rank, (edge_id, _) in enumerate(top):
            edge = g.edges[edge_id]
            ends += [edge.source, edge.target]
            for chunk in self._chunks(edge.source_ids):
                sources.setdefault(chunk, []).append(rank)
        entity_ids = list(dict.fromkeys(ends))[: cfg.top_entities]
        entities = tuple(g.entity_evidence(i) for i in entity_ids)
        passages = tuple(
            g.passage_evidence(c, float(n)) for c, n in _rank_by_count(sources)[: cfg.top_passages]
        )
        return Sections(entities, relations, passages)
