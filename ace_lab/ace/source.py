"""Where ACE's evidence comes from: an ``EvidenceSource`` serves C_base and each branch's ΔC.

ACE is a policy over evidence (paper §3): it needs a base context C_base for the query and, per
retrieval branch, a *differential* retrieval — the same source searched at another setting with
the branch's rewritten query. A source is anything with (the plugin contract's
:class:`~ace_lab.methods.plugin.EvidenceSource`, which every method package serves through):

- ``name`` (the record's ``backbone``) and ``base_mode`` (the ``retrieve:base`` step's mode);
- ``base(query, task, trace) -> list[Evidence]``: C_base; a source whose evidence comes from a
  pipeline of its own (MOSAIC's exploration, ArcRAG's passes) records its steps in ``trace``,
  so the composed trace shows the source's steps, then ACE's;
- ``differential(query, branch, trace) -> (mode, items)``: ΔC_b for ``branch`` (``depth``: more
  local detail, ``breadth``: more global context); a source with a pipeline of its own records
  its stages in ``trace`` (the branch's own: :mod:`ace_lab.ace.pdr` adopts them into ACE's trace
  as ``<branch>/<stage>`` steps after the join), a retriever records nothing (ACE records the
  ``retrieve:<branch>`` step either way).

:class:`~ace_lab.ace.backbone.Backbone` (one retriever's modes, or one retriever per branch) is
the source of ACE on HiRAG and GraphRAG and of every retrieve-then-generate baseline; MOSAIC and
ArcRAG expose adapters in their own packages (``ace_lab.mosaic.source``, ``ace_lab.arc.source``).
The registry builds the source and injects it (``source>policy`` names, e.g.
``mosaic>ace-full``); ACE never imports another method package.
"""

from __future__ import annotations

from ace_lab.methods.plugin import EvidenceSource

__all__ = ["PART", "EvidenceSource"]

#: The meta key naming the part of a composition that produced an evidence item.
PART = "part"
