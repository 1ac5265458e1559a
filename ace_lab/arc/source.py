"""ArcRAG as an evidence source for a context policy (``arcrag>ace-full``, ``arcrag>ace-adaptive``).

C_base is ArcRAG's composed witness context: the whole retrieve–answer loop runs as ArcRAG's own
steps, and the context of its last pass is C_base. Its per-pass answers are part of the loop
(the sufficiency check judges them and forms the follow-up question), so a composition pays for
them; ArcRAG's own final answer is not thrown away silently: its last ``generate:p<k>`` step
stays in the composed trace with its :class:`~ace_lab.arc.steps.ArcGeneration` (the answer and
the raw reply, read from the same context C_base starts from), before ACE's own ``generate``
step, whose answer is the composition's.

The differential retrieval of a branch is ArcRAG's own retrieval stage (hybrid search of its
text store, anchors by Cypher, the hit passages as a fallback witness) with the branch's query
as the one search phrase, so it makes no LLM call; it is recorded as a ``retrieve`` step of the
branch's trace (its :class:`~ace_lab.arc.steps.ArcRetrieval` at pass 0: outside the loop, and
the Cypher it ran), which a composed trace shows as ``depth/retrieve``, ``breadth/retrieve``:

- ``depth``: the paper's per-phrase depth (:data:`~ace_lab.arc.retrieve.TOP_K` hits);
- ``breadth``: a larger budget, :data:`BREADTH_K` hits.

On a graph without passages, a branch returns the triples its hits name (as relations).
It satisfies :class:`ace_lab.methods.plugin.EvidenceSource` (no import of ACE).
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
#: The pass a branch retrieval records: it runs outside ArcRAG's loop (passes count from 1).
BRANCH_PASS = 0


class ArcSource:
    """ArcRAG's witness context as C_base, its retrieval at other depths as ΔC."""

    base_mode = "arcrag"

    def __init__(self, method: ArcRAG) -> None:
        self.name = method.name
        self.graph = method.graph
        self.budget = method.budget
        self.method = method

    def base(self, query: str, task: str, trace: Trace) -> list[Evidence]:
        """ArcRAG's final context, every pass recorded as steps of ``trace`` (its answers
        included: module docstring)."""
        with query_log() as log:
            answer = self.method.run(query, task, trace, log)  # type: ignore[arg-type]
        return list(answer.context.evidence)

    def differential(self, query: str, branch: str, trace: Trace) -> tuple[str, list[Evidence]]:
        """ArcRAG's retrieval stage for ``query`` at ``branch``'s depth (no LLM call), recorded
        as the ``retrieve`` step of ``trace`` (the branch's trace)."""
        mode, k = BRANCH_HITS[branch]
        with trace.step("retrieve", query=query, mode=mode) as step:
            schema, _ = schema_for(self.graph)
            found = retrieve(self.graph, schema, [query], self.budget, k=k)
            if found.chunk_ids:
                items = compose(self.graph, schema, Witness(), found.chunk_ids, None)
            else:
                items = [
                    Evidence(f"arc-hint:{h}", "relation", h, branch=BRANCH) for h in found.hints
                ]
            step.add(items)
            # the branch query is the one search phrase by design, not a phrases fallback
            step.record(found.recorded(BRANCH_PASS, query, False))
            step.notes.append(
                f"{mode}: {len(found.anchors)} anchors, {len(items)} items "
                f"({'passages' if found.chunk_ids else 'triple hints'})"
            )
        return mode, items
