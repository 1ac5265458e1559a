"""bench/answer_determinism.py: the workload's order and phases, the distinct-answer counts and
throughput it reports, setting parsing and prompt building (a fake server, no model)."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from ace_lab.tokens import count_tokens
from tests.support.benches import load_bench

bench = load_bench("answer_determinism")


def _prompt(name: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": name}]


def test_workload_interleaves_sequentially_then_fills_slots_and_counts_per_phase():
    sent: list[str] = []
    lock = threading.Lock()
    seen_t1 = []

    def ask(messages):
        name = messages[0]["content"]
        with lock:
            sent.append(name)
            if name == "t1":
                seen_t1.append(name)
        # t1's 4th send (its second concurrent one) reasons differently to the same answer
        why = "other" if name == "t1" and len(seen_t1) == 4 else "same"
        text = f"Reasoning: {why}\nResult: [FINAL_ANSWER] {name} [/FINAL_ANSWER]"
        return bench.Reply(text, prompt_tokens=10, completion_tokens=2, cached_tokens=4)

    targets, others = [_prompt("t0"), _prompt("t1")], [_prompt("o0"), _prompt("o1")]
    result = bench.run_workload(ask, targets, others, repeats=2)
    assert sent[:8] == ["o0", "t0", "o1", "t1", "o1", "t0", "o0", "t1"]  # another prompt first
    assert Counter(sent[8:]) == {"t0": 2, "t1": 2, "o0": 4, "o1": 4}  # slots kept busy
    assert [len(a) for a in result["answers"]] == [4, 4]
    row = bench.summarise("s", result)
    assert row["distinct generations seq/conc/all"] == "1/1/1  1/2/2"
    assert row["distinct answers"] == "1 1"  # the flip changed the reasoning, not the answer
    seconds = result["phases"]["sequential"][1]
    assert row["sequential prompt tok/s"] == pytest.approx(8 * 6 / seconds, rel=0.05)
    with pytest.raises(ValueError, match="two other prompts"):
        bench.run_workload(ask, targets, others[:1], repeats=1)


def test_settings_parse_and_name():
    setting = bench.ServerSetting.parse("cache=0,parallel=1")
    assert setting == bench.ServerSetting(prompt_cache=False, parallel=1)
    assert setting.name == "prompt cache off, 1 slot"
    assert bench.ServerSetting.parse("cache=1").name == "prompt cache on, 2 slots"


def test_qa_prompts_cut_each_context_to_its_budget():
    prompts = bench.qa_prompts("toy", 3, context_tokens=120)
    assert len(prompts) == 3
    for messages in prompts:
        context = messages[1]["content"].split("---Context---", 1)[1].split("---Question---")[0]
        assert 0 < count_tokens(context.strip()) <= 120
