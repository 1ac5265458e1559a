"""Graph views: neighbourhood selection, pyvis HTML that renders offline in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from ace_lab import viz
from ace_lab.graph.tables import GraphTables


def _tables() -> GraphTables:
    nodes = [{"id": f"ent:{i}", "name": f"E{i}", "source_ids": ["c0"]} for i in range(6)]
    nodes += [
        {"id": "sum:1:0", "label": "Summary", "name": "Theme", "level": 1},
        {"id": "c0", "label": "Chunk", "name": "Doc", "description": "text"},
    ]
    edges = [
        {"id": f"r{i}", "source": f"ent:{i}", "target": f"ent:{i + 1}", "type": "RELATED"}
        for i in range(5)
    ]
    edges += [
        {"id": f"m{i}", "source": f"ent:{i}", "target": "sum:1:0", "type": "MEMBER_OF"}
        for i in range(3)
    ]
    return GraphTables.from_records(nodes, edges)


def test_neighbourhood_respects_hops_and_cap():
    tables = _tables()
    nodes, edges = viz.neighbourhood(tables, "ent:0", hops=1)
    assert set(nodes["id"]) == {"ent:0", "ent:1", "sum:1:0"}
    assert set(edges["source"]) | set(edges["target"]) <= set(nodes["id"])
    nodes, _ = viz.neighbourhood(tables, "ent:0", hops=5, max_nodes=3)
    assert len(nodes) == 3


def test_hierarchy_subgraph_keeps_summaries_and_members():
    nodes, edges = viz.hierarchy_subgraph(_tables())
    assert "sum:1:0" in set(nodes["id"]) and len(edges) == 3


def test_pyvis_html_renders_the_network_in_headless_chromium(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    nodes, edges = viz.neighbourhood(_tables(), "ent:0", hops=3)
    path = viz.save_html(viz.pyvis_network(nodes, edges), "view", tmp_path)
    html = path.read_text()
    assert "vis-network" in html
    assert not re.search(r'(src|href)="https?://', html), "the view must open offline"
    dom = subprocess.run(
        [
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=5000", "--dump-dom", path.as_uri(),
        ],
        capture_output=True, text=True, timeout=90, check=True,
    ).stdout  # fmt: skip
    assert "<canvas" in dom, "vis-network did not draw its canvas"
