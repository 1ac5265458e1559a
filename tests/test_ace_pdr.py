"""ace_lab.ace.pdr: Parallel Differential Retrieval runs the branches concurrently and tags
each branch's evidence with its branch, round and goal."""

from __future__ import annotations

import time

from ace_lab.ace.backbone import Backbone
from ace_lab.ace.pdr import parallel_differential_retrieval
from ace_lab.ace.planner import BranchQuery
from ace_lab.evidence import Evidence, Trace


class SlowRetriever:
    modes = ("base", "local", "global")

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    def retrieve(self, query: str, mode: str) -> list[Evidence]:
        time.sleep(self.delay_s)
        return [Evidence(f"{mode}:{query}", "passage", f"{mode} text for {query}")]


def test_branches_run_concurrently():
    backbone = Backbone("slow", SlowRetriever(0.5), "base", "local", "global")
    queries = [
        BranchQuery("depth", "d", "hi_local", "empowerment"),
        BranchQuery("breadth", "b", "hi_global", "diversity"),
    ]
    trace = Trace()
    start = time.perf_counter()
    with trace.activate():
        increments = parallel_differential_retrieval(backbone, queries, trace)
    wall = time.perf_counter() - start
    assert wall < 0.85, f"branches ran one after the other ({wall:.2f}s for 2 x 0.5s)"
    assert increments["depth"][0].branch == "depth" and increments["depth"][0].round == 1
    assert increments["breadth"][0].meta["goal"] == "diversity"
    steps = {s.name: s for s in trace.steps}
    assert steps["retrieve:depth"].queries == ["d"] and steps["retrieve:breadth"].queries == ["b"]
