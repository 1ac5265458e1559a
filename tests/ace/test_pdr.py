"""ace_lab.ace.pdr: Parallel Differential Retrieval runs the branches concurrently and tags
each branch's evidence with its branch, round and goal."""

from __future__ import annotations

import threading

from ace_lab.ace.backbone import Backbone
from ace_lab.ace.pdr import parallel_differential_retrieval
from ace_lab.ace.planner import BranchQuery
from ace_lab.evidence import Evidence, Trace
from ace_lab.steps.ace import BranchRetrieval


class MeetingRetriever:
    """Each retrieval waits until ``parties`` retrievals are running at once: branches run one
    after the other break the barrier instead of merely running slower."""

    modes = ("base", "local", "global")

    def __init__(self, parties: int) -> None:
        self.all_in_flight = threading.Barrier(parties, timeout=10)

    def retrieve(self, query: str, mode: str) -> list[Evidence]:
        self.all_in_flight.wait()
        return [Evidence(f"{mode}:{query}", "passage", f"{mode} text for {query}")]


def test_branches_run_concurrently():
    backbone = Backbone("meeting", MeetingRetriever(2), "base", "local", "global")
    queries = [
        BranchQuery("depth", "d", "hi_local", "empowerment"),
        BranchQuery("breadth", "b", "hi_global", "diversity"),
    ]
    trace = Trace()
    with trace.activate():
        increments = parallel_differential_retrieval(backbone, queries, trace)
    assert increments["depth"][0].branch == "depth" and increments["depth"][0].round == 1
    assert increments["breadth"][0].meta["goal"] == "diversity"
    steps = {s.name: s for s in trace.steps}
    assert steps["retrieve:depth"].queries == ["d"] and steps["retrieve:breadth"].queries == ["b"]
    depth = steps["retrieve:depth"].payload
    assert isinstance(depth, BranchRetrieval) and (depth.branch, depth.mode) == ("depth", "local")
    assert depth.evidence_ids == tuple(e.id for e in increments["depth"])
