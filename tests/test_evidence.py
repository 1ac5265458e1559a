"""ace_lab.evidence and ace_lab.prompts: context rendering, budgets, traces, prompt files."""

from __future__ import annotations

import contextvars
import threading

import pytest

from ace_lab.evidence import Context, Evidence, LLMCall, Trace, current_step, record_llm_call
from ace_lab.prompts import load_prompt
from ace_lab.tokens import count_tokens, truncate


def _ev(i: int, kind: str = "passage", branch: str = "base", words: int = 10) -> Evidence:
    return Evidence(id=f"e{i}", kind=kind, text=" ".join(["w"] * words), branch=branch)


def test_unknown_kind_is_rejected():
    with pytest.raises(ValueError, match="kind"):
        Evidence(id="x", kind="paragraph", text="t")


def test_render_groups_under_headers_in_order():
    ctx = Context([_ev(1), _ev(2), _ev(3, kind="entity", branch="depth")])
    text = ctx.render()
    assert text.index("base · passage") < text.index("depth · entity")
    assert text.count("###") == 2


def test_render_respects_the_budget_and_reports_what_was_dropped():
    ctx = Context([_ev(i) for i in range(10)])
    kept, dropped = ctx.fit(45)
    assert len(kept) + len(dropped) == 10 and dropped
    assert count_tokens(Context(kept).render()) <= 45
    assert count_tokens(ctx.render(45)) <= 45


def test_a_large_item_is_dropped_but_later_small_ones_still_fit():
    ctx = Context([_ev(1, words=5), _ev(2, words=500), _ev(3, words=5)])
    kept, dropped = ctx.fit(40)
    assert [e.id for e in kept] == ["e1", "e3"] and [e.id for e in dropped] == ["e2"]


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
    record_llm_call(LLMCall("t", "m", 1, 1, 0.0, False))  # must not raise


def test_truncate():
    assert truncate("a b c d", 2) == "a b"
    assert truncate("a b", 5) == "a b"


def test_prompt_has_fixed_system_first_and_variables_last():
    prompt = load_prompt("ping")
    messages = prompt.messages()
    assert [m["role"] for m in messages] == ["system", "user"]
    with pytest.raises(KeyError, match="available"):
        load_prompt("no_such_prompt")
