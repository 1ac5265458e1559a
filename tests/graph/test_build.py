"""ace_lab.graph.build: run folders, seed indexes, response archives, the ``ace-lab build`` CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from ace_lab.graph.build import build_graph, load_graph, load_or_build
from ace_lab.graph.seeds import SeedIndexes
from ace_lab.llm import LLM
from ace_lab.llm.replay import REPLAY_ONLY_ENV
from tests.support.extraction import hierarchy_config, hierarchy_reply
from tests.support.paths import REPO
from tests.support.scripted import ScriptedClient

CONFIG = hierarchy_config()


def test_build_writes_tables_index_and_archive_then_loads(settings):
    llm = LLM(settings, client=ScriptedClient(hierarchy_reply))
    tables, out = build_graph(
        "toy", 8, "hierarchical", settings=settings, llm=llm, progress=False, config=CONFIG
    )
    assert out == settings.graphs_dir / "toy-n8-s0" / "hierarchical" / "smollm135m"
    assert (out / "tables" / "nodes.parquet").is_file()
    assert tables.meta["regenerate"].startswith("ace-lab build --dataset toy --n 8")
    loaded, _ = load_graph("toy", 8, "hierarchical", model="smollm135m", settings=settings)
    assert loaded.nodes.equals(tables.nodes)
    indexes = SeedIndexes.load(out / "index")
    assert (
        indexes.passages is not None
        and len(indexes.passages) == loaded.counts()["node_labels"]["Chunk"]
    )
    assert (out / "llm_responses.jsonl").stat().st_size > 0


def test_rebuild_on_a_fresh_clone_replays_the_archive_without_model_calls(settings, tmp_path):
    from dataclasses import replace

    llm = LLM(settings, client=ScriptedClient(hierarchy_reply))
    first, out = build_graph(
        "toy",
        8,
        "hierarchical",
        settings=settings,
        llm=llm,
        progress=False,
        config=CONFIG,
        with_index=False,
    )
    (out / "hirag_extract.jsonl").unlink()  # even the per-chunk records are gone
    fresh = replace(settings, cache_dir=tmp_path / "empty-cache")
    offline = LLM(fresh, client=ScriptedClient(lambda kw: pytest.fail("model was called")))
    again, _ = build_graph(
        "toy",
        8,
        "hierarchical",
        settings=fresh,
        llm=offline,
        progress=False,
        config=CONFIG,
        with_index=False,
    )
    assert again.nodes.equals(first.nodes) and again.edges.equals(first.edges)
    assert all(c.cache_hit for c in offline.ledger.calls)
    # The replay keeps the build time of the run that called the model, and records its own.
    assert again.meta["build_wall_s"] == first.meta["build_wall_s"]
    assert "last_run_wall_s" in again.meta


def test_a_rebuild_from_records_keeps_every_archived_response(settings, tmp_path):
    from dataclasses import replace

    llm = LLM(settings, client=ScriptedClient(hierarchy_reply))
    _, out = build_graph(
        "toy",
        8,
        "hierarchical",
        settings=settings,
        llm=llm,
        progress=False,
        config=CONFIG,
        with_index=False,
    )
    archived = (out / "llm_responses.jsonl").read_text()
    # Replaying the per-chunk records asks for no extraction: the archive must not shrink.
    fresh = replace(settings, cache_dir=tmp_path / "empty-cache")
    offline = LLM(fresh, client=ScriptedClient(lambda kw: pytest.fail("model was called")))
    build_graph(
        "toy",
        8,
        "hierarchical",
        settings=fresh,
        llm=offline,
        progress=False,
        config=CONFIG,
        with_index=False,
    )
    assert (out / "llm_responses.jsonl").read_text() == archived


def test_missing_graph_names_the_build_command(settings):
    with pytest.raises(FileNotFoundError, match="ace-lab build --dataset toy"):
        load_graph("toy", 8, "openie", model="smollm135m", settings=settings)


def test_load_or_build_builds_only_when_missing(settings, monkeypatch):
    calls = []
    import ace_lab.graph.build as build_module

    def fake_build(*args, **kwargs):
        calls.append((args, kwargs))
        raise RuntimeError("stop here")

    monkeypatch.setattr(build_module, "build_graph", fake_build)
    llm = LLM(settings, client=ScriptedClient([]))
    with pytest.raises(RuntimeError, match="stop here"):
        load_or_build("toy", 8, "openie", settings=settings, llm=llm)
    assert len(calls) == 1
    assert calls[0][1]["llm"] is llm  # e.g. a notebook's client replaying its archive


#: Notebook 02's smoke run: the smoke model's responses for the toy OpenIE and typed builds.
SMOKE_RESPONSES = REPO / "data" / "responses" / "02_openie_and_typed_graphs_smoke.jsonl"


def test_cli_builds_the_toy_corpus_from_the_smoke_model_s_archived_responses(tmp_path):
    """``ace-lab build`` end to end on a fresh clone that holds a build's archive: it replays
    every response (a missing one fails: replay only) and starts no model. The real smoke-model
    builds are in test_graph_openie and test_graph_typed_build."""
    graphs = tmp_path / "graphs"
    run = graphs / "toy-n8-s0" / "openie" / "smollm135m"
    run.mkdir(parents=True)
    shutil.copy(SMOKE_RESPONSES, run / "llm_responses.jsonl")
    env = os.environ | {
        "ACE_LAB_GRAPHS_DIR": str(graphs),
        "ACE_LAB_CACHE_DIR": str(tmp_path / "cache"),
        "ACE_LAB_LLM_BACKEND": "xllamacpp",  # the archive's model identity
        REPLAY_ONLY_ENV: "1",
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ace_lab",
            "build",
            "--dataset",
            "toy",
            "--n",
            "8",
            "--family",
            "openie",
            "--model",
            "smollm135m",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "openie:" in done.stdout and "Chunk" in done.stdout
    assert not list((tmp_path / "cache").glob("llm_server/*.json")), "a model server started"


def test_cost_frame_has_one_row_per_stage_for_every_meta_shape():
    from ace_lab.graph.build import cost_frame
    from ace_lab.graph.tables import GraphTables

    def frame(cost):
        return cost_frame(GraphTables.from_records([], [], {"cost": cost}))

    stage = {"stage": "x", "llm_calls": 2}
    assert list(frame([stage, stage])["stage"]) == ["x", "x"]
    assert list(frame(stage)["stage"]) == ["x"]
    mixed = {"schema": {"stage": "s"}, "extract": {"stage": "e"}, "calls_per_chunk": 1.4}
    assert list(frame(mixed)["stage"]) == ["s", "e"]


def test_a_user_corpus_keeps_its_graphs_in_its_own_folder(tmp_path, monkeypatch):
    from dataclasses import replace as replace_settings

    from ace_lab.config import Settings, default_graphs_dir
    from ace_lab.data import add_corpus
    from ace_lab.graph.build import graphs_root

    monkeypatch.setenv("ACE_LAB_USER_DATA", str(tmp_path / "user"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\nAlpha founded the Beta works in 1901.\n")
    add_corpus("mine", docs, progress=False)
    default = Settings()
    assert graphs_root(default, "mine") == tmp_path / "user" / "corpora" / "mine" / "graphs"
    assert graphs_root(default, "toy") == default_graphs_dir()
    chosen = replace_settings(default, graphs_dir=tmp_path / "g")
    assert graphs_root(chosen, "mine") == tmp_path / "g"
