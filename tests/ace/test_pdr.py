"""ace_lab.ace.pdr: Parallel Differential Retrieval runs the branches concurrently, tags each
branch's evidence with its branch, round and goal, and adopts a source's own stages of each
branch as branch steps, in branch order, never interleaved."""

from __future__ import annotations

import threading

from ace_lab.ace.backbone import Backbone
from ace_lab.ace.pdr import parallel_differential_retrieval, retrieve_branch
from ace_lab.ace.planner import BranchQuery
from ace_lab.ace.steps import BranchRetrieval
from ace_lab.evidence import Evidence, Trace


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


class StagedSource:
    """A source with a pipeline of its own: each branch records three stages, the two branches
    taking turns (each stage waits for the other branch's), so a shared trace would interleave
    them."""

    name, base_mode = "staged", "base"

    def __init__(self, branches: int = 2) -> None:
        self.turn = threading.Barrier(branches, timeout=10)

    def base(self, query: str, task: str, trace: Trace) -> list[Evidence]:
        return []

    def differential(self, query: str, branch: str, trace: Trace) -> tuple[str, list[Evidence]]:
        for stage in ("seed", "traverse:1", "select"):
            self.turn.wait()
            with trace.step(stage) as step:
                step.add([Evidence(f"{branch}:{stage}", "entity", stage)])
        return f"staged:{branch}", [Evidence(f"{branch}:found", "passage", query)]


def test_a_source_s_branch_stages_join_the_trace_in_branch_order_after_the_join():
    queries = [
        BranchQuery("depth", "d", "hi_local", "empowerment"),
        BranchQuery("breadth", "b", "hi_global", "diversity"),
    ]
    trace = Trace()
    with trace.activate():
        increments = parallel_differential_retrieval(StagedSource(), queries, trace)
    names = [s.name for s in trace.steps]
    assert sorted(names[:2]) == ["retrieve:breadth", "retrieve:depth"]
    assert names[2:] == [
        f"{branch}/{stage}"
        for branch in ("depth", "breadth")
        for stage in ("seed", "traverse:1", "select")
    ]
    assert [s.kind for s in trace.steps[2:5]] == ["seed", "traverse", "select"]
    assert all(s.added[0].id.startswith(s.name.split("/")[0]) for s in trace.steps[2:])
    # the caller's evidence is what each branch returned, not its stages' working sets
    assert sorted(e.id for e in trace.working_set()) == ["breadth:found", "depth:found"]
    assert [e.id for e in increments["depth"]] == ["depth:found"]


def test_a_retriever_backbone_records_no_branch_steps():
    backbone = Backbone("meeting", MeetingRetriever(1), "base", "local", "global")
    trace = Trace()
    with trace.activate():
        parallel_differential_retrieval(backbone, [BranchQuery("depth", "d", "x", "y")], trace)
    assert [s.name for s in trace.steps] == ["retrieve:depth"]


def test_one_branch_retrieved_alone_adopts_its_stages_right_after_its_step():
    trace = Trace()
    with trace.activate():
        retrieve_branch(StagedSource(1), BranchQuery("breadth", "b", "x", "y"), trace)
        with trace.step("merge"):
            pass
    stages = ["breadth/seed", "breadth/traverse:1", "breadth/select"]
    assert [s.name for s in trace.steps] == ["retrieve:breadth", *stages, "merge"]
