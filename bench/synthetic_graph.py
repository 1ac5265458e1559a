"""Synthetic graphs with the shape of the committed ones, at any size, and a hash embedder.

The shares of node labels and edge types follow the committed hotpotqa_dev_sample200 builds
(data/graphs/hotpotqa_dev_sample200-n20-s0/{hierarchical,typed,openie}/qwen1.5b/tables):

- hierarchical: 15 % chunks, 72 % entities, 8 % summaries (levels 1 and 2), 5 % communities;
  per entity ~0.85 RELATED, ~1.2 MENTIONED_IN, one MEMBER_OF, ~0.8 IN_COMMUNITY.
- typed: 18 % chunks, the rest entities over eight schema labels; per entity ~1.21
  typed relations and ~1.3 MENTIONED_IN.
- openie: 8 % chunks, 92 % entities; per entity ~0.68 RELATION (with a predicate), ~1.2
  MENTIONED_IN and ~0.28 SYNONYM.

Relation ends are drawn with a Zipf-like skew, so a few hubs have many edges and most nodes
have one or two, as in the extracted graphs. No LLM and no model: names are made of words from
a fixed vocabulary, and :class:`HashEmbedder` turns text into vectors by hashing.
"""

from __future__ import annotations

import zlib

import numpy as np

from ace_lab.graph.tables import GraphTables

WORDS = (
    "amber",
    "harbour",
    "lantern",
    "river",
    "museum",
    "tower",
    "valley",
    "orchard",
    "granite",
    "beacon",
    "festival",
    "archive",
    "bridge",
    "castle",
    "garden",
    "island",
    "meadow",
    "summit",
    "canyon",
    "forest",
    "glacier",
    "harvest",
    "kingdom",
    "library",
)
TYPED_LABELS = ("Person", "Location", "Organization", "Movie", "Song", "Album", "Biography")
TYPED_RELATIONS = ("ACTED_IN", "BORN_IN", "DIRECTED_BY", "IS_A", "IS_PART_OF", "LOCATED_IN")


class HashEmbedder:
    """Deterministic pseudo-random unit vectors from a CRC of each text (no model, fast)."""

    model_id = "bench:hash"
    dim = 32

    def __init__(self) -> None:
        self._mix = np.random.default_rng(0).integers(1, 2**31, size=self.dim, dtype=np.uint64)

    def encode(self, texts: list[str]) -> np.ndarray:
        seeds = np.fromiter((zlib.crc32(t.encode()) for t in texts), np.uint64, len(texts))
        raw = (seeds[:, None] * self._mix[None, :]) % np.uint64(2**31 - 1)
        rows = raw.astype(np.float32) / np.float32(2**30) - 1.0
        rows /= np.linalg.norm(rows, axis=1, keepdims=True) + 1e-9
        return rows


def _name(rng: np.random.Generator, i: int) -> str:
    a, b = rng.integers(0, len(WORDS), 2)
    return f"{WORDS[a].title()} {WORDS[b].title()} {i}"


def _skewed(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``size`` indices in ``[0, n)``, a few hubs drawn often (Zipf-like degree)."""
    return np.minimum((rng.pareto(1.2, size) * n / 50).astype(np.int64), n - 1)


def _chunks(rng: np.random.Generator, count: int) -> list[dict]:
    out = []
    for i in range(count):
        words = " ".join(WORDS[j] for j in rng.integers(0, len(WORDS), 40))
        out.append(
            {
                "id": f"chunk{i}",
                "label": "Chunk",
                "name": f"Passage {i}",
                "description": f"Passage {i} tells of {words}.",
                "source_ids": [f"chunk{i}"],
            }
        )
    return out


def _mentions(rng: np.random.Generator, entity_ids: list[str], chunks: int, per: float) -> list:
    ends = rng.integers(0, len(entity_ids), int(len(entity_ids) * per))
    pairs = {(entity_ids[e], f"chunk{rng.integers(0, chunks)}") for e in ends}
    pairs |= {(e, f"chunk{k % chunks}") for k, e in enumerate(entity_ids)}  # one each at least
    return [
        {"id": f"men:{k}", "source": a, "target": b, "type": "MENTIONED_IN", "source_ids": [b]}
        for k, (a, b) in enumerate(sorted(pairs))
    ]


def _relations(
    rng: np.random.Generator, ids: list[str], per: float, kinds: tuple[str, ...], predicate: bool
) -> list[dict]:
    count = int(len(ids) * per)
    src, tgt = rng.integers(0, len(ids), count), _skewed(rng, len(ids), count)
    perm = rng.permutation(len(ids))  # hubs spread over the id range, not the first ids
    out, seen = [], set()
    for k, (a, b) in enumerate(zip(src, perm[tgt], strict=True)):
        if a == b or (a, b) in seen:
            continue
        seen.add((a, b))
        phrase = f"{WORDS[k % len(WORDS)]} of"
        out.append(
            {
                "id": f"rel:{k}",
                "source": ids[a],
                "target": ids[b],
                "type": kinds[k % len(kinds)],
                "predicate": phrase if predicate else "",
                "description": "" if predicate else f"{phrase} the other",
                "weight": 1.0 + k % 9,
                "source_ids": [f"chunk{k % max(1, len(ids) // 5)}"],
            }
        )
    return out


def _entities(rng: np.random.Generator, count: int, labels: tuple[str, ...], chunks: int) -> list:
    return [
        {
            "id": f"ent:{i}",
            "label": labels[i % len(labels)],
            "name": _name(rng, i),
            "type": "CONCEPT",
            "description": f"An entity of the {WORDS[i % len(WORDS)]}.",
            "source_ids": [f"chunk{i % chunks}"],
        }
        for i in range(count)
    ]


def hierarchical(n: int, seed: int = 0) -> GraphTables:
    rng = np.random.default_rng(seed)
    chunks, summaries, communities = int(n * 0.15), max(2, int(n * 0.08)), max(1, int(n * 0.05))
    entities = n - chunks - summaries - communities
    nodes = _chunks(rng, chunks) + _entities(rng, entities, ("Entity",), chunks)
    top = max(1, summaries // 10)
    for i in range(summaries):
        level = 2 if i < top else 1
        nodes.append(
            {
                "id": f"sum:{i}",
                "label": "Summary",
                "name": f"Theme {i}",
                "level": level,
                "description": f"A theme of {WORDS[i % len(WORDS)]}.",
            }
        )
    for i in range(communities):
        nodes.append(
            {
                "id": f"com:{i}",
                "label": "Community",
                "name": f"Community {i}",
                "level": 1,
                "description": f"Members around the {WORDS[i % len(WORDS)]} relate.",
            }
        )
    ids = [f"ent:{i}" for i in range(entities)]
    edges = _relations(rng, ids, 0.85, ("RELATED",), predicate=False)
    edges += _mentions(rng, ids, chunks, 1.2)
    edges += [
        {
            "id": f"mem:{i}",
            "source": e,
            "target": f"sum:{top + i % (summaries - top)}",
            "type": "MEMBER_OF",
            "level": 1,
        }
        for i, e in enumerate(ids)
    ]
    edges += [
        {
            "id": f"memt:{i}",
            "source": f"sum:{i}",
            "target": f"sum:{i % top}",
            "type": "MEMBER_OF",
            "level": 2,
        }
        for i in range(top, summaries)
    ]
    edges += [
        {
            "id": f"com:{i}",
            "source": e,
            "target": f"com:{i % communities}",
            "type": "IN_COMMUNITY",
            "level": 1,
        }
        for i, e in enumerate(ids[: int(len(ids) * 0.8)])
    ]
    return GraphTables.from_records(nodes, edges, {"family": "hierarchical", "synthetic": n})


def typed(n: int, seed: int = 0) -> GraphTables:
    rng = np.random.default_rng(seed)
    chunks = int(n * 0.18)
    entities = n - chunks
    nodes = _chunks(rng, chunks) + _entities(rng, entities, TYPED_LABELS, chunks)
    ids = [f"ent:{i}" for i in range(entities)]
    edges = _relations(rng, ids, 1.21, TYPED_RELATIONS, predicate=False)
    edges += _mentions(rng, ids, chunks, 1.3)
    return GraphTables.from_records(nodes, edges, {"family": "typed", "synthetic": n})


def openie(n: int, seed: int = 0) -> GraphTables:
    rng = np.random.default_rng(seed)
    chunks = max(1, int(n * 0.08))
    entities = n - chunks
    nodes = _chunks(rng, chunks) + _entities(rng, entities, ("Entity",), chunks)
    ids = [f"ent:{i}" for i in range(entities)]
    edges = _relations(rng, ids, 0.68, ("RELATION",), predicate=True)
    edges += _mentions(rng, ids, chunks, 1.2)
    syn = rng.integers(0, entities, (int(entities * 0.28), 2))
    edges += [
        {"id": f"syn:{k}", "source": ids[a], "target": ids[b], "type": "SYNONYM", "weight": 0.9}
        for k, (a, b) in enumerate(syn)
        if a != b
    ]
    return GraphTables.from_records(nodes, edges, {"family": "openie", "synthetic": n})


FAMILIES = {"hierarchical": hierarchical, "typed": typed, "openie": openie}
