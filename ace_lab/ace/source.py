"""Where ACE's evidence comes from: an ``EvidenceSource`` serves C_base and each branch's ΔC.

ACE is a policy over evidence (paper §3): it needs a base context C_base for the query and, per
retrieval branch, a *differential* retrieval — the same source searched at another setting with
the branch's rewritten query. A source is anything with:

- ``name`` (the record's ``backbone``) and ``base_mode`` (the ``retrieve:base`` step's mode);
- ``base(query, task, trace) -> list[Evidence]``: C_base; a source whose evidence comes from a
  pipeline of its own (MOSAIC's exploration, ArcRAG's passes) records its steps in ``trace``,
  so the composed trace shows the source's steps, then ACE's;
- ``differential(query, branch) -> (mode, items)``: ΔC_b for ``branch`` (``depth``: more local
  detail, ``breadth``: more global context), recording nothing (ACE records the branch step).

:class:`~ace_lab.ace.backbone.Backbone` (one retriever's modes, or one retriever per branch) is
the source of ACE on HiRAG and GraphRAG and of every retrieve-then-generate baseline; MOSAIC and
ArcRAG expose adapters in their own packages (``ace_lab.mosaic.source``, ``ace_lab.arc.source``).
The registry builds the source and injects it (``source>policy`` names, e.g.
``mosaic>ace-full``); ACE never imports another method package.
"""

from __future__ import annotations

from typing import Protocol

from ace_lab.evidence import Evidence, Trace

#: The meta key naming the part of a composition that produced an evidence item.
PART = "part"


class EvidenceSource(Protocol):
    """C_base and the differential retrieval of each branch (see the module docstring)."""

    name: str
    base_mode: str

    def base(self, query: str, task: str, trace: Trace) -> list[Evidence]: ...

    def differential(self, query: str, branch: str) -> tuple[str, list[Evidence]]: ...
