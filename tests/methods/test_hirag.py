"""ace_lab.methods.hirag: the HiRAG context builders (local, global) return evidence of their
kinds without answering; an unknown mode is refused."""

from __future__ import annotations

import pytest

from ace_lab.methods.hirag import HiRetriever


def test_hirag_modes_return_evidence_without_answering(toy_graph):
    retriever = HiRetriever(toy_graph)
    local = retriever.retrieve("tidal lantern", "hi_local")
    glob = retriever.retrieve("tidal lantern", "hi_global")
    assert {e.kind for e in local} <= {"entity", "relation", "passage"}
    assert {e.kind for e in glob} <= {"summary", "report"} and glob
    with pytest.raises(ValueError, match="unknown HiRAG mode"):
        retriever.retrieve("q", "hi_sideways")
