"""Parallel Differential Retrieval: the policy's branches retrieve concurrently.

Each branch asks its evidence source (:class:`~ace_lab.ace.source.EvidenceSource`) for the
differential retrieval of its own rewritten query in a worker thread (with the caller's trace
context), and its evidence increment ΔC_b is tagged with the branch, the round, the branch
goal, the retrieval mode and the query that produced it.
"""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor

from ace_lab.ace.planner import BranchQuery
from ace_lab.ace.source import EvidenceSource
from ace_lab.ace.steps import BranchRetrieval
from ace_lab.evidence import Evidence, Trace, tag


def retrieve_branch(
    source: EvidenceSource, planned: BranchQuery, trace: Trace, round_: int = 1
) -> list[Evidence]:
    with trace.step(f"retrieve:{planned.branch}", query=planned.query) as step:
        step.queries.append(planned.query)
        mode, items = source.differential(planned.query, planned.branch)
        step.inputs["mode"] = mode
        items = tag(
            items, planned.branch, round_, goal=planned.goal, mode=mode, query=planned.query
        )
        step.add(items)
        ids = tuple(e.id for e in items)
        step.record(BranchRetrieval(planned.branch, planned.query, mode, ids))
    return items


def parallel_differential_retrieval(
    source: EvidenceSource, queries: list[BranchQuery], trace: Trace, round_: int = 1
) -> dict[str, list[Evidence]]:
    """ΔC per branch; with two branches both retrievals run at the same time."""
    if len(queries) <= 1:
        return {q.branch: retrieve_branch(source, q, trace, round_) for q in queries}
    with ThreadPoolExecutor(max_workers=len(queries), thread_name_prefix="ace-pdr") as pool:
        futures = {
            q.branch: pool.submit(
                contextvars.copy_context().run, retrieve_branch, source, q, trace, round_
            )
            for q in queries
        }
        return {branch: future.result() for branch, future in futures.items()}
