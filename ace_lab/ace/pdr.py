"""Parallel Differential Retrieval: the policy's branches retrieve concurrently.

Each branch asks its evidence source (:class:`~ace_lab.ace.source.EvidenceSource`) for the
differential retrieval of its own rewritten query in a worker thread (with the caller's trace
context), and its evidence increment ΔC_b is tagged with the branch, the round, the branch
goal, the retrieval mode and the query that produced it.

A source with a pipeline of its own (MOSAIC's exploration at a branch policy, ArcRAG's
retrieval stage) records that pipeline's stages in a trace of the branch's own, in its worker,
so two branches' stages never interleave; after the join each branch's stages join the caller's
trace in branch order, as branch steps (``depth/seed``, ``depth/traverse:1``, …:
:meth:`~ace_lab.trace.Trace.adopt`), after the ``retrieve:<branch>`` steps. A retriever
backbone records none.
"""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor

from ace_lab.ace.planner import BranchQuery
from ace_lab.ace.source import EvidenceSource
from ace_lab.ace.steps import BranchRetrieval
from ace_lab.evidence import Evidence, Trace, tag


def retrieve_branch(
    source: EvidenceSource,
    planned: BranchQuery,
    trace: Trace,
    round_: int = 1,
    stages: Trace | None = None,
) -> list[Evidence]:
    """ΔC of ``planned``'s branch, recorded as the ``retrieve:<branch>`` step of ``trace``.
    The source's own stages go to ``stages`` for the caller to adopt after a join; without
    it (one branch, in the caller's thread) ``trace`` adopts them right after the step."""
    own = stages if stages is not None else Trace()
    with trace.step(f"retrieve:{planned.branch}", query=planned.query) as step:
        step.queries.append(planned.query)
        mode, items = source.differential(planned.query, planned.branch, own)
        step.inputs["mode"] = mode
        items = tag(
            items, planned.branch, round_, goal=planned.goal, mode=mode, query=planned.query
        )
        step.add(items)
        ids = tuple(e.id for e in items)
        step.record(BranchRetrieval(planned.branch, planned.query, mode, ids))
    if stages is None:
        trace.adopt(own.steps, planned.branch)
    return items


def parallel_differential_retrieval(
    source: EvidenceSource, queries: list[BranchQuery], trace: Trace, round_: int = 1
) -> dict[str, list[Evidence]]:
    """ΔC per branch; with two branches both retrievals run at the same time. The source's
    stages of each branch are adopted by ``trace`` after the join (module docstring)."""
    stages = {q.branch: Trace() for q in queries}
    if len(queries) <= 1:
        increments = {
            q.branch: retrieve_branch(source, q, trace, round_, stages[q.branch]) for q in queries
        }
    else:
        with ThreadPoolExecutor(max_workers=len(queries), thread_name_prefix="ace-pdr") as pool:
            futures = {
                q.branch: pool.submit(
                    contextvars.copy_context().run,
                    retrieve_branch,
                    source,
                    q,
                    trace,
                    round_,
                    stages[q.branch],
                )
                for q in queries
            }
            increments = {branch: future.result() for branch, future in futures.items()}
    for branch, recorded in stages.items():
        trace.adopt(recorded.steps, branch)
    return increments
