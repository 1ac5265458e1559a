"""MOSAIC as an evidence source for a context policy (``mosaic>ace-full``, ``mosaic>ace-adaptive``).

C_base is MOSAIC's selected context: the analyzer's (or the name's fixed) policy runs every
stage before the answer, recorded as MOSAIC's own steps (:meth:`Mosaic.gather`). The
differential retrieval of a branch is MOSAIC's exploration at another policy, with the branch's
query, and makes no LLM call (a fixed policy needs no analyzer); its stages (policy, seed,
traverse, stop, select) are recorded in the trace the caller gives for the branch, so a
composed trace shows them (as ``depth/seed``, ``depth/traverse:1``, …):

- ``depth``: :data:`DEPTH_POLICY` — few seeds, a narrow beam, one to two hops further and the
  deep stopping threshold (more local detail around the question's own entities);
- ``breadth``: Fixed Wide — more seeds, a wide beam, connectors between regions.

It satisfies :class:`ace_lab.methods.plugin.EvidenceSource` (no import of ACE).
"""

from __future__ import annotations

from ace_lab.evidence import Evidence, Trace
from ace_lab.mosaic.method import Mosaic
from ace_lab.mosaic.policy import FIXED_POLICIES, ExplorationPolicy

#: The Depth branch's policy (ours): deeper and narrower than Fixed Medium.
DEPTH_POLICY = ExplorationPolicy(
    seed_count=5, max_depth=4, min_depth=2, beam_width=8, stop_threshold="deep"
)
#: Each branch's policy and the mode its retrieval step records.
BRANCH_POLICIES: dict[str, tuple[str, ExplorationPolicy]] = {
    "depth": ("mosaic:deep", DEPTH_POLICY),
    "breadth": ("mosaic:wide", FIXED_POLICIES["wide"]),
}


class MosaicSource:
    """MOSAIC's context as C_base, MOSAIC at the branch policies as ΔC (module docstring)."""

    base_mode = "mosaic"

    def __init__(self, method: Mosaic) -> None:
        self.name = method.name
        self.method = method
        # the same method at each branch's fixed policy: one graph view (and its fact cache)
        # and one configuration for all, no analyzer call
        self.branches = {
            branch: (mode, method.at_policy(chosen))
            for branch, (mode, chosen) in BRANCH_POLICIES.items()
        }

    def base(self, query: str, task: str, trace: Trace) -> list[Evidence]:
        """MOSAIC's selected context, its stages recorded as steps of ``trace``."""
        final, _ = self.method.gather(query, trace)
        return final

    def differential(self, query: str, branch: str, trace: Trace) -> tuple[str, list[Evidence]]:
        """MOSAIC at ``branch``'s policy with ``query``, its stages recorded as steps of
        ``trace`` (the branch's trace)."""
        mode, method = self.branches[branch]
        final, _ = method.gather(query, trace)
        return mode, final
