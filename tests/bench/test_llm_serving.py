"""bench/llm_serving.py and bench/serving_requests.py: the row an option gets from its replies,
the option registry, and request collection keeping each call in order (no model)."""

from __future__ import annotations

import json

import pytest

from ace_lab.llm import LLM
from tests.support.benches import load_bench
from tests.support.paths import REPO
from tests.support.scripted import ScriptedClient

BENCH = REPO / "bench"

serving_bench = load_bench("llm_serving")
requests_bench = load_bench("serving_requests")
DATA = {"questions": [{"gold": ["Paris"]}, {"gold": ["yes"]}]}


def _reply(question: int, method: str, call: int, last: bool, text: str, **t: float) -> dict:
    timings = {
        "prompt_n": 1000,
        "prompt_ms": 10_000.0,
        "predicted_n": 50,
        "predicted_ms": 5_000.0,
        "cache_n": 0,
        "wall_s": 15.0,
    } | t
    return {
        "question": question,
        "method": method,
        "call": call,
        "last": last,
        "text": text,
        **timings,
    }


def test_a_row_counts_speed_cost_per_query_answers_and_changes() -> None:
    replies = [
        _reply(0, "hirag", 0, True, "Result: [FINAL_ANSWER] Paris [/FINAL_ANSWER]"),
        _reply(0, "ace-full", 0, False, "{}", wall_s=5.0),
        _reply(0, "ace-full", 1, True, "Result: Lyon"),
        _reply(1, "hirag", 0, True, "Result: yes", prompt_ms=30_000.0),
        _reply(1, "ace-full", 0, False, "{}", wall_s=5.0),
        _reply(1, "ace-full", 1, True, "Result: yes"),
    ]
    row = serving_bench.summarise("opt", replies, DATA, None)
    assert row["prompt tok/s"] == round(6000 / 80, 1)  # 6,000 tokens over 80 s of prompt time
    assert row["gen tok/s"] == 10.0 and row["TTFT median s"] == 10.0
    assert row["hirag s/query"] == 15.0 and row["ace-full s/query"] == 20.0
    assert (row["hirag EM"], row["ace-full EM"]) == (1.0, 0.5)
    assert "outputs changed" not in row and "prompt reused" not in row
    changed = [dict(r) for r in replies]
    changed[2]["text"] = "Result: Paris"
    changed[0]["cache_n"] = 3000
    row = serving_bench.summarise("opt", changed, DATA, replies)
    assert row["outputs changed"] == "1/6" and row["ace-full EM"] == 1.0
    assert row["prompt reused"] == round(3000 / 9000, 3)


def test_every_option_is_a_valid_setting() -> None:
    labels = [option.label for option in serving_bench.OPTIONS.values()]
    assert len(set(labels)) == len(labels)
    assert serving_bench.OPTIONS["x"].options.backend == "xllamacpp"
    assert all(
        o.options.backend == "llama-server"
        for k, o in serving_bench.OPTIONS.items()
        if k.startswith("n")
    )


def test_collection_keeps_each_call_in_order_and_refuses_cache_misses(settings) -> None:
    replies = iter(["first reply", "second reply"])
    llm = requests_bench.RecordingLLM(settings, client=ScriptedClient(lambda kw: next(replies)))
    llm.chat([{"role": "user", "content": "a"}], tag="one", max_tokens=7)
    llm.chat([{"role": "user", "content": "b"}], tag="two", stop=["\n"])
    calls = llm.calls
    assert [c["tag"] for c in calls] == ["one", "two"]
    assert [c["reference"] for c in calls] == ["first reply", "second reply"]
    assert calls[0]["max_tokens"] == 7 and calls[1]["stop"] == ["\n"]
    assert json.loads(json.dumps(calls)) == calls  # what the committed file holds
    refusing = LLM(settings, client=requests_bench.CacheOnly(), model_identity="real")
    with pytest.raises(RuntimeError, match="cache miss"):
        refusing.chat([{"role": "user", "content": "never asked"}], tag="x", use_cache=False)


SERVING = REPO / "results" / "serving"


@pytest.mark.parametrize(
    "rows", sorted(p.relative_to(SERVING).as_posix() for p in SERVING.rglob("llm_serving.json"))
)
def test_committed_serving_tables_are_what_their_rows_make(rows, tmp_path) -> None:
    """Each committed table is regenerated from its committed rows, never edited."""
    committed = SERVING / rows
    md = committed.with_suffix(".md").read_text()
    header = md.splitlines()[0]
    command = header.removeprefix("<!-- ").split(" ; requests: ")[0]
    questions = int(header.rsplit("n = ", 1)[1].split()[0])
    data = json.loads((BENCH / "serving_requests.json").read_text())
    assert header.split(" ; requests: ")[1].startswith(data["command"])
    frame = json.loads(committed.read_text())
    speed_ups = [c for c in frame[0] if c.endswith(" speed-up")]
    rows_only = [{k: v for k, v in r.items() if k not in speed_ups} for r in frame]
    methods = [c.removesuffix(" speed-up") for c in speed_ups]
    serving_bench.write_table(rows_only, methods, tmp_path, command, data, questions)
    assert (tmp_path / "llm_serving.md").read_text() == md
    assert json.loads((tmp_path / "llm_serving.json").read_text()) == frame
