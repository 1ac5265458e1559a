"""The committed HotpotQA typed graph as a ``RetrievalGraph`` (hash embeddings: no model), for
the tests of ArcRAG's schema constraint and index-served template."""

from __future__ import annotations

from ace_lab.graph.seeds import build_seed_indexes
from ace_lab.graph.tables import GraphTables
from ace_lab.retrieval import RetrievalGraph
from bench.synthetic_graph import HashEmbedder
from tests.support.paths import REPO

COMMITTED = REPO / "data/graphs/hotpotqa_dev_sample200-n20-s0/typed/qwen1.5b/tables"
#: A Person of the committed graph born in Copenhagen (one BORN_IN edge).
ANCHOR = "ent:carsten erik olsen"


def committed_graph(name: str) -> RetrievalGraph:
    """The committed typed graph, loaded into a fresh embedded store named ``name``."""
    tables = GraphTables.load(COMMITTED)
    embedder = HashEmbedder()
    indexes = build_seed_indexes(tables, embedder, progress=False, cache=False)
    return RetrievalGraph(tables, indexes, name=name, embedder=embedder)
