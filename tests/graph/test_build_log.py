"""ace_lab.graph.build_log: every run of a build is logged — finished, interrupted or failed —
with its time, the chunks it extracted and the model calls it made; a finished build's meta
sums the runs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ace_lab.data import Chunk
from ace_lab.graph.build import build_graph
from ace_lab.graph.build_log import build_log_summary, logged_run, read_build_log
from ace_lab.graph.extract import run_per_chunk
from ace_lab.llm import LLM
from tests.support.extraction import hierarchy_config, hierarchy_reply
from tests.support.scripted import ScriptedClient

CHUNKS = [
    Chunk(id=f"c{i}", doc_id=f"d{i}", title="t", text=f"text {i}", index=0, start=0)
    for i in range(4)
]


def _extract_with(llm: LLM):
    def extract(chunk: Chunk) -> dict:
        llm.chat([{"role": "user", "content": chunk.text}], tag="build.test.extract")
        return {"id": chunk.id}

    return extract


def test_an_interrupted_run_and_its_resumption_are_both_logged(settings, tmp_path):
    llm = LLM(settings, client=ScriptedClient(lambda kw: "{}"))
    records = tmp_path / "test_extract.jsonl"
    with pytest.raises(KeyboardInterrupt), logged_run(tmp_path, llm):
        run_per_chunk(CHUNKS[:3], _extract_with(llm), records, llm, progress=False)
        raise KeyboardInterrupt  # stopped before the last chunk
    with logged_run(tmp_path, llm):
        run_per_chunk(CHUNKS, _extract_with(llm), records, llm, progress=False)
    first, second = read_build_log(tmp_path)
    assert first["outcome"] == "interrupted" and second["outcome"] == "finished"
    assert (first["chunks_extracted_before"], first["chunks_extracted_after"]) == (0, 3)
    assert (second["chunks_extracted_before"], second["chunks_extracted_after"]) == (3, 4)
    assert (first["model_calls"], second["model_calls"]) == (3, 1)  # the resumption paid once
    summary = build_log_summary([first, second])
    assert summary["runs"] == 2 and summary["model_calls"] == 4
    assert summary["wall_s"] == round(first["wall_s"] + second["wall_s"], 1)


def test_a_failed_run_is_logged_and_a_torn_line_is_skipped(settings, tmp_path):
    llm = LLM(settings, client=ScriptedClient([]))
    with pytest.raises(ValueError), logged_run(tmp_path, llm):
        raise ValueError("bad input")
    with (tmp_path / "build_log.jsonl").open("a") as log:
        log.write('{"started": "2026-')  # a process killed while writing
    (run,) = read_build_log(tmp_path)
    assert run["outcome"] == "failed" and run["model_calls"] == 0
    assert build_log_summary([]) == {}


def test_a_finished_build_sums_its_logged_runs_in_its_meta(settings, tmp_path):
    config = hierarchy_config()
    llm = LLM(settings, client=ScriptedClient(hierarchy_reply))
    opts = dict(progress=False, config=config, with_index=False)
    first, out = build_graph("toy", 8, "hierarchical", settings=settings, llm=llm, **opts)
    fresh = replace(settings, cache_dir=tmp_path / "empty-cache")  # a later session
    offline = LLM(fresh, client=ScriptedClient(lambda kw: pytest.fail("model was called")))
    again, _ = build_graph("toy", 8, "hierarchical", settings=fresh, llm=offline, **opts)
    made, replayed = read_build_log(out)
    assert made["model_calls"] > 0 and made["chunks_extracted_after"] == first.meta["chunks"]
    assert replayed["model_calls"] == 0 and replayed["replayed_calls"] > 0
    assert first.meta["build_log"]["runs"] == 1 and again.meta["build_log"]["runs"] == 2
    assert again.meta["build_log"]["model_calls"] == made["model_calls"]
