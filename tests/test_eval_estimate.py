"""ace_lab.eval.estimate: a study's expected cost from recorded costs and measured throughput."""

from __future__ import annotations

import json

import pytest

from ace_lab.config import ServingOptions
from ace_lab.data import load_dataset, make_slice
from ace_lab.eval.estimate import ASSUMED_GEN_TPS, ASSUMED_PROMPT_TPS, estimate_study, throughput
from ace_lab.eval.study import results_path


def _write(path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_estimate_multiplies_the_questions_left_by_the_recorded_cost(settings) -> None:
    settings = settings.with_llm(serving=ServingOptions(backend="xllamacpp"))
    ids = [q.id for q in make_slice(load_dataset("toy"), 8).questions]
    # An earlier study of another data set recorded hirag at 2 calls, 700 in / 70 out.
    old = [{"id": f"o{i}", "method": "hirag", "llm_calls": 2, "input_tokens": 700,
            "output_tokens": 70} for i in range(3)]  # fmt: skip
    _write(settings.results_dir / "other-n5-s0" / "hirag.jsonl", old)
    # This study already answered 3 of the 8 questions: 5 are left.
    done = [dict(old[0], id=i) for i in ids[:3]]
    _write(results_path("toy-n8-s0", "hirag", settings), done)
    (settings.results_dir / "serving").mkdir(parents=True)
    measured = {"options": settings.llm.serving.as_dict(), "threads": settings.llm.threads,
                "prompt tok/s": 140.0, "gen tok/s": 14.0, "calls": 9}  # fmt: skip
    (settings.results_dir / "serving" / "llm_serving.json").write_text(json.dumps([measured]))

    table = estimate_study(["hirag", "never-run"], "toy", 8, settings=settings)
    hirag = table.set_index("method").loc["hirag"]
    assert hirag["questions to answer"] == 5 and hirag["LLM calls"] == 10
    assert hirag["input tokens"] == 3500 and hirag["output tokens"] == 350
    assert hirag["hours"] == round((3500 / 140 + 350 / 14) / 3600, 2)
    assert table.set_index("method").loc["never-run", "cost from"].startswith("no recorded")
    assert table.attrs["throughput"].source.startswith("measured")


def test_throughput_falls_back_to_the_assumed_defaults(settings) -> None:
    speed = throughput(settings)
    assert (speed.prompt_tps, speed.gen_tps) == (ASSUMED_PROMPT_TPS, ASSUMED_GEN_TPS)
    assert "assumed" in speed.source
    (settings.results_dir / "serving").mkdir(parents=True)
    (settings.results_dir / "serving" / "llm_serving.json").write_text("{broken")
    with pytest.raises(ValueError, match=r"llm_serving\.json"):
        throughput(settings)
