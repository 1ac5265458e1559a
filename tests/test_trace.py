"""ace_lab.trace: steps, LLM calls from threads, the evidence each step added and removed."""

from __future__ import annotations

import contextvars
import threading

import pytest

from ace_lab.evidence import Evidence
from ace_lab.trace import (
    LLMCall,
    Trace,
    calls_sent,
    cold_seconds,
    current_step,
    current_trace,
    record_llm_call,
    step_branch,
    step_kind,
)


def _ev(i: int, branch: str = "base") -> Evidence:
    return Evidence(id=f"e{i}", kind="passage", text=f"passage {i}", branch=branch)


def test_trace_steps_time_and_collect_calls_from_worker_threads():
    trace = Trace()
    call = LLMCall("t", "m", 10, 2, 0.1, False)
    with trace.step("parallel", query="q") as step:
        assert current_step() is step
        ctx = contextvars.copy_context()
        worker = threading.Thread(target=ctx.run, args=(record_llm_call, call))
        worker.start()
        worker.join()
        record_llm_call(call)
    assert current_step() is None
    summary = trace.summary()
    assert summary["llm_calls"] == 2 and summary["prompt_tokens"] == 20
    assert trace.steps[0].inputs == {"query": "q"} and trace.steps[0].elapsed >= 0
    assert '"parallel"' in trace.to_json()


def test_calls_outside_any_trace_are_ignored():
    trace = Trace()
    assert current_trace() is None
    record_llm_call(LLMCall("t", "m", 1, 1, 0.0, False))
    assert trace.llm_calls == [] and trace.steps == []
    with trace.activate():  # inside an active trace but outside any step: kept, unattributed
        record_llm_call(LLMCall("t", "m", 1, 1, 0.0, False))
    assert [s.name for s in trace.steps] == ["(unattributed)"]


def test_calls_sent_counts_every_trace_and_only_the_calls_that_missed_the_cache():
    traces = [Trace(), Trace(), Trace()]
    for trace, hits in zip(traces, ([False, True], [True], []), strict=True):
        with trace.activate(), trace.step("answer"):
            for hit in hits:
                record_llm_call(LLMCall("t", "m", 1, 1, 0.0, hit))
    assert calls_sent(traces) == "3 LLM calls, 1 sent to the model"
    assert calls_sent([]) == "0 LLM calls, 0 sent to the model"


def test_step_kind_comes_from_the_name_or_is_given_and_is_checked():
    trace = Trace()
    with trace.step("retrieve:depth"):
        pass
    with trace.step("compile subplan 1", kind="cypher"):
        pass
    with trace.step("something else"):
        pass
    assert [s.kind for s in trace.steps] == ["retrieve", "cypher", "other"]
    with pytest.raises(ValueError, match="unknown step kind"), trace.step("x", kind="teleport"):
        pass


def test_adopted_branch_steps_are_named_for_their_branch_and_left_out_of_the_evidence_replay():
    trace = Trace()
    with trace.step("retrieve:base") as step:
        step.add([_ev(1), _ev(2)])
    branch = Trace()  # a source's own pipeline for the depth branch
    with branch.step("seed") as step:
        step.add([_ev(2, "seed"), _ev(3, "seed")])
    with branch.step("traverse:1", kind="traverse") as step:
        record_llm_call(LLMCall("t", "m", 4, 1, 0.0, False))
    with branch.step("select") as step:
        step.remove([(_ev(2), "not selected")])  # the branch's working set, not the caller's
    with trace.step("retrieve:depth") as step:
        step.add([_ev(3, "depth")])
    trace.adopt(branch.steps, "depth")
    names = [s.name for s in trace.steps]
    assert names[:2] == ["retrieve:base", "retrieve:depth"]
    assert names[2:] == ["depth/seed", "depth/traverse:1", "depth/select"]
    assert [s.kind for s in trace.steps[2:]] == ["seed", "traverse", "select"]
    assert step_kind("depth/traverse:2") == "traverse" and step_kind("breadth/x") == "other"
    assert step_branch("depth/seed") == "depth" and step_branch("retrieve:depth") == ""
    assert [s.name for s in trace.own_steps] == ["retrieve:base", "retrieve:depth"]
    # the branch's removal and its seed versions never reach the caller's evidence
    assert [(e.id, e.branch) for e in trace.working_set()] == [
        ("e1", "base"),
        ("e2", "base"),
        ("e3", "depth"),
    ]
    assert [e.branch for e in trace.all_evidence()] == ["base", "base", "depth"]
    assert trace.removed() == {}
    assert [e.id for e in trace.first_retrieval() or []] == ["e1", "e2"] and trace.refined
    # shown and costed: its calls are the answer's
    assert len(trace.llm_calls) == 1 and trace.steps[3].llm_calls[0].prompt_tokens == 4


def test_working_set_replays_added_and_removed_evidence():
    trace = Trace()
    with trace.step("retrieve:base") as step:
        step.add([_ev(1), _ev(2)])
    with trace.step("retrieve:depth") as step:
        step.add([_ev(2, "depth"), _ev(3, "depth")])
    with trace.step("adapt") as step:
        step.remove([(_ev(1), "off topic")])
    assert [e.id for e in trace.working_set(1)] == ["e1", "e2"]
    final = trace.working_set()
    assert [e.id for e in final] == ["e2", "e3"]
    assert final[0].branch == "depth"  # the later version of e2 replaced the earlier one
    assert trace.removed() == {"e1": "off topic"}
    assert [e.id for e in trace.all_evidence()] == ["e1", "e2", "e3"]
    assert [e.id for e in trace.first_retrieval() or []] == ["e1", "e2"]
    assert trace.refined


def test_a_single_retrieval_is_not_refined_and_no_retrieval_has_no_first():
    trace = Trace()
    assert trace.first_retrieval() is None and not trace.refined
    with trace.step("retrieve:base") as step:
        step.add([_ev(1)])
    with trace.step("generate"):
        pass
    assert not trace.refined and len(trace.first_retrieval() or []) == 1


def test_cold_seconds_replace_cached_lookups_by_recorded_model_time():
    fresh = LLMCall("t", "m", 5, 1, 2.0, False, response_latency_s=2.0)
    hit = LLMCall("t", "m", 0, 0, 0.001, True, response_latency_s=3.0)
    unknown = LLMCall("t", "m", 0, 0, 0.001, True)
    assert cold_seconds(2.5, [fresh, hit]) == pytest.approx(5.499)
    assert cold_seconds(2.5, [fresh, unknown]) is None
    trace = Trace()
    with trace.step("generate") as step:
        step.llm_calls.append(hit)
    assert trace.cold_wall_s == pytest.approx(round(trace.wall_s, 4) + 2.999, abs=1e-3)
    # cold_seconds rounds to 0.1 ms, so compare at that resolution
    assert step.cold_s == pytest.approx(step.elapsed + 2.999, abs=1e-3)
