"""ArcRAG as an evidence source for a context policy (``arcrag>ace-full``, ``arcrag>ace-adaptive``).

C_base is ArcRAG's composed witness context: the whole retrieve–answer loop runs as ArcRAG's own
steps (its per-pass answers are part of the loop: the sufficiency check judges them and forms
the follow-up question), and the context of its last pass is C_base. The differential retrieval
of a branch is ArcRAG's own retrieval stage (hybrid search of its text store, anchors by
Cypher, the hit passages as a fallback witness) with the branch's query as the one search
phrase, so it makes no LLM call:

- ``depth``: the paper's per-phrase depth (:data:`~ace_lab.arc.retrieve.TOP_K` hits);
- ``breadth``: a larger budget, :data:`BREADTH_K` hits.

On a graph without passages, a branch returns the triples its hits name (as relations).
It satisfies ``ace_lab.ace.source.EvidenceSource`` structurally (no import of ACE).
"""

from __future__ import annotations

from ace_lab.arc.answer import BRANCH, compose
from ace_lab.arc.execute import query_log
from ace_lab.arc.method import ArcRAG
from ace_lab.arc.retrieve import TOP_K, retrieve
from ace_lab.arc.schema import schema_for
from ace_lab.arc.witness import Witness
from ace_lab.evidence import Evidence, Trace

#: Index hits of the Breadth branch (three times ArcRAG's per-phrase depth).
BREADTH_K = 3 * TOP_K
#: Each branch's hits per phrase and the mode its retrieval step records.
BRANCH_HITS: dict[str, tuple[str, int]] = {
    "depth": (f"arc:k{TOP_K}", TOP_K),
    "breadth": (f"arc:k{BREADTH_K}", BREADTH_K),
}


class ArcSource:
    """ArcRAG's witness context as C_base, its retrieval at other depths as ΔC."""

    base_mode = "arcrag"

    def __init__(self, method: ArcRAG) -> None:
        self.name = method.name
        self.graph = method.graph
        self.budget = method.budget
        self.method = method

    def base(self, query: str, task: str, trace: Trace) -> list[Evidence]:
        """ArcRAG's final context, every pass recorded as steps of ``trace``."""
        with query_log() as log:
            answer = self.method.run(query, task, trace, log)  # type: ignore[arg-type]
        return list(answer.context.evidence)

    def differential(self, query: str, branch: str) -> tuple[str, list[Evidence]]:
        """ArcRAG's retrieval stage for ``query`` at ``branch``'s depth (no LLM call)."""
        mode, k = BRANCH_HITS[branch]
        schema, _ = schema_for(self.graph)
        found = retrieve(self.graph, schema, [query], self.budget, k=k)
        if found.chunk_ids:
            return mode, compose(self.graph, schema, Witness(), found.chunk_ids, None)
        hints = [Evidence(f"arc-hint:{h}", "relation", h, branch=BRANCH) for h in found.hints]
        return mode, hints
