"""ace_lab.eval.studies.throughput: the speed of the endpoint in use, learned from this machine's
ledger of model calls (solo calls, and queued calls by their completion gaps on the one-slot
server), else measured, probed, the serving table or the assumed defaults."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ace_lab.eval.studies.throughput import (
    ASSUMED_GEN_TPS,
    ASSUMED_PROMPT_TPS,
    MIN_FIT_CALLS,
    endpoint_identity,
    throughput,
)


def test_throughput_falls_back_to_the_assumed_defaults(settings) -> None:
    speed = throughput(settings)
    assert (speed.prompt_tps, speed.gen_tps) == (ASSUMED_PROMPT_TPS, ASSUMED_GEN_TPS)
    assert "assumed" in speed.source
    (settings.results_dir / "serving").mkdir(parents=True)
    (settings.results_dir / "serving" / "llm_serving.json").write_text("{broken")
    with pytest.raises(ValueError, match=r"llm_serving\.json"):
        throughput(settings)


# ------------------------------------------------------------------ speeds learned from the ledger
def _synthetic_ledger(path, identity: str, rng, calls: int, queued: int) -> None:
    """Calls of a server at 0.4 s per call, 76 prompt and 12 generated tokens/s (±10 % noise,
    as measured runs vary), and ``queued`` calls sent beside another one, whose seconds include
    waiting for it (the one-slot server answers one at a time)."""
    from ace_lab.llm.ledger_file import LedgerEntry, append_entry

    for i in range(calls + queued):
        prompt, generated = int(rng.integers(300, 1200)), int(rng.integers(5, 450))
        seconds = (0.4 + prompt / 76 + generated / 12) * float(rng.uniform(0.9, 1.1))
        flight = 2 if i >= calls else 1
        seconds *= flight
        entry = LedgerEntry("t", identity, "extract", prompt, generated, 0, seconds, flight)
        append_entry(path, entry)


def test_the_ledger_speed_predicts_a_later_build_within_30_percent(settings) -> None:
    import numpy as np

    from ace_lab.eval.studies.throughput import fit_latency, ledger_calls
    from ace_lab.llm.ledger_file import ledger_path, read_ledger

    rng = np.random.default_rng(0)
    identity = endpoint_identity(settings)
    history, later = ledger_path(settings.cache_dir), settings.cache_dir / "later.jsonl"
    _synthetic_ledger(history, identity, rng, calls=60, queued=40)
    _synthetic_ledger(later, identity, rng, calls=80, queued=0)  # what the build then measured
    speed = throughput(settings, allow_probe=False)
    assert (
        speed.source == f"ledger: fitted on 60 calls of {identity}; 40 sent beside others left out"
    )
    assert speed.prompt_tps == pytest.approx(76, rel=0.3)
    assert speed.gen_tps == pytest.approx(12, rel=0.3)
    build = read_ledger(later)
    measured = sum(e.latency_s for e in build)
    tokens_in, tokens_out = (
        sum(e.prompt_tokens for e in build),
        sum(e.completion_tokens for e in build),
    )
    estimated = speed.seconds(len(build), tokens_in, tokens_out)
    assert abs(estimated / measured - 1) <= 0.30
    # fitted on every call, the queued ones included, the estimate overshoots
    solo, _ = ledger_calls(settings, identity)
    everything = [(e.prompt_tokens, e.completion_tokens, e.latency_s) for e in read_ledger(history)]
    assert len(solo) == 60
    naive = fit_latency(everything, "all").seconds(len(build), tokens_in, tokens_out)
    assert naive / measured - 1 > 0.30


def test_queued_calls_on_the_one_slot_server_teach_the_fit_by_their_completion_gaps(
    settings,
) -> None:
    """A build keeps two calls in flight: each waits for the one before it, so its latency
    holds both, but the gap between the two completions is its own service time."""
    from datetime import UTC, datetime, timedelta

    import numpy as np

    from ace_lab.eval.studies.throughput import back_to_back, ledger_calls
    from ace_lab.llm.ledger_file import LedgerEntry, append_entry, ledger_path

    rng = np.random.default_rng(1)
    identity, path = endpoint_identity(settings), ledger_path(settings.cache_dir)
    clock = datetime(2026, 1, 1, tzinfo=UTC)
    previous = 0.0
    for _ in range(40):
        prompt, generated = int(rng.integers(300, 1200)), int(rng.integers(50, 450))
        service = prompt / 76 + generated / 12
        clock += timedelta(seconds=service)
        stamp = clock.replace(microsecond=0).isoformat()  # the ledger keeps whole seconds
        entry = LedgerEntry(stamp, identity, "build.x", prompt, generated, 0, previous + service, 2)
        append_entry(path, entry)
        previous = service  # the next call was sent when this one was: it waits for it
    known, left_out = ledger_calls(settings, identity)
    assert len(known) == 39 and left_out == 1  # the first has no completion before it
    speed = throughput(settings, allow_probe=False)
    assert speed.source.startswith("ledger: fitted on 39 calls")
    assert speed.gen_tps == pytest.approx(12, rel=0.1)
    assert speed.prompt_tps == pytest.approx(76, rel=0.3)
    # a call sent after the one before it ended did not wait: its gap is not its service
    late = LedgerEntry("2026-01-01T00:01:00+00:00", identity, "x", 10, 10, 0, 5.0, 2)
    early = replace(late, time="2026-01-01T00:00:00+00:00")
    assert back_to_back([early, late]) == [None, None]
    # elsewhere (a remote endpoint with many slots) queued calls are left out as before
    remote = settings.with_llm(base_url="http://localhost:9/v1", model="m")
    assert ledger_calls(remote, identity) == ([], 40)


def test_a_real_ledger_agrees_with_the_committed_serving_table() -> None:
    """Where this machine has a ledger with enough calls, their fitted speeds lie within ±30 %
    of the range of speeds the committed serving table measured (results/serving). Each rate
    is checked where the calls determine it: the prompt rate on every call (prompts of many
    lengths), the generation rate on the build calls (long generations) where there are
    enough; build calls alone, whose prompts are all of one size, leave the prompt rate
    undetermined, and planning and routing replies, all short, the generation rate."""
    from pathlib import Path

    from ace_lab.config import load_settings
    from ace_lab.eval.studies.estimate import BUILD_TAGS
    from ace_lab.eval.studies.throughput import ledger_calls, ledger_throughput

    real = load_settings()
    identity = endpoint_identity(real)
    speed = ledger_throughput(real, identity)
    if speed is None:
        pytest.skip("no ledger of this machine's calls with enough calls")
    build_calls = len(ledger_calls(real, identity, BUILD_TAGS)[0])
    build_speed = (
        ledger_throughput(real, identity, BUILD_TAGS) if build_calls >= MIN_FIT_CALLS else None
    )
    # a fresh checkout's ledger may hold nothing but one build's calls, all of one prompt size
    varied_prompts = len(ledger_calls(real, identity)[0]) - build_calls >= MIN_FIT_CALLS
    rows = [
        row
        for path in (Path(real.results_dir) / "serving").rglob("llm_serving.json")
        for row in json.loads(path.read_text())
    ]
    checked = [("prompt tok/s", speed.prompt_tps)] if varied_prompts else []
    checked += [("gen tok/s", build_speed.gen_tps)] if build_speed is not None else []
    if not checked:
        pytest.skip("the ledger's calls determine neither rate")
    for key, fitted in checked:
        low, high = min(r[key] for r in rows), max(r[key] for r in rows)
        assert 0.7 * low <= fitted <= 1.3 * high, (key, fitted, low, high)


def test_a_build_is_priced_with_the_ledger_s_build_calls_where_there_are_enough(settings):
    from ace_lab.eval.studies.estimate import BUILD_TAGS
    from ace_lab.llm.ledger_file import LedgerEntry, append_entry, ledger_path

    identity, path = endpoint_identity(settings), ledger_path(settings.cache_dir)
    for i in range(10):  # extraction: long generations at 12 tokens/s
        prompt, generated = 500 + 37 * i, 200 + 10 * (i % 4)
        seconds = prompt / 76 + generated / 12
        entry = LedgerEntry("t", identity, "build.hirag.extract", prompt, generated, 0, seconds)
        append_entry(path, entry)
    for i in range(20):  # planning: short replies, another mix
        append_entry(path, LedgerEntry("t", identity, "ace.planner", 900 + i, 20, 0, 3.0 + i))
    build = throughput(settings, allow_probe=False, tags=BUILD_TAGS)
    assert build.source.startswith("ledger: fitted on 10 calls (build.*, graph.*) of ")
    assert build.gen_tps == pytest.approx(12, rel=0.05)
    assert build.prompt_tps == pytest.approx(76, rel=0.05)
    everything = throughput(settings, allow_probe=False)
    assert everything.source.startswith("ledger: fitted on 30 calls of ")
    # a study, or a build without enough build calls, is priced on every call
    assert throughput(settings, allow_probe=False, tags=("judge.",)).source == everything.source
