"""bench/graph_scale.py: synthetic graphs have the committed shape; methods run on them."""

from __future__ import annotations

import json
import math

from ace_lab.graph.seeds import build_seed_indexes
from ace_lab.mosaic.analyzer import ANALYZER_PROMPT, decide
from ace_lab.mosaic.controls import CONTROLS_PROMPT, decide_controls
from ace_lab.prompts import load_prompt
from ace_lab.retrieval import RetrievalGraph
from bench.graph_scale import instant_reply, time_methods
from bench.synthetic_graph import FAMILIES, HashEmbedder


def test_synthetic_graphs_have_the_size_and_labels_asked_for():
    shares = {"hierarchical": 0.15, "typed": 0.18, "openie": 0.08}
    for family, make in FAMILIES.items():
        tables = make(2000)
        assert len(tables.nodes) == 2000
        chunks = (tables.nodes["label"] == "Chunk").mean()
        assert math.isclose(chunks, shares[family], abs_tol=0.01), family
        assert len(tables.edges) > len(tables.nodes)
    levels = set(FAMILIES["hierarchical"](2000).nodes["level"])
    assert levels == {0, 1, 2}


def test_every_family_is_timed_with_an_instant_llm(tmp_path):
    embedder = HashEmbedder()
    graphs = {}
    for family, make in FAMILIES.items():
        tables = make(500)
        indexes = build_seed_indexes(tables, embedder, progress=False, cache=False)
        graphs[family] = RetrievalGraph(tables, indexes, name=family, embedder=embedder)
    out = time_methods(graphs, ["naive", "hirag", "hipporag"], 2, tmp_path, cap_s=60)
    assert set(out) == {"naive", "hirag", "hipporag"}
    assert all(0 < ms < 60_000 for ms in out.values())


def test_each_mosaic_analyzer_is_played_a_reply_it_accepts():
    """Regression: the script played the six-signal reply to the paper's analyzer too, so the
    `mosaic` row timed a policy made of defaults, not one the analyzer wrote."""
    reply = instant_reply(["Alpha", "Beta"])
    for prompt, decide_reply in ((CONTROLS_PROMPT, decide_controls), (ANALYZER_PROMPT, decide)):
        played = reply({"messages": load_prompt(prompt).messages(query="Alpha or Beta?")})
        decision = decide_reply(json.loads(played))
        assert not decision.fallback and decision.adjustments == ()  # taken as written
