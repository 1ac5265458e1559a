"""The pyvis view builder: legend, title once, thin edges, plain-text tooltips, offline HTML,
rendered in headless Chromium (screenshot not blank, legend in the DOM, corpus text inert)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ace_lab import viz
from ace_lab.graph.tables import GraphTables

EVIL_NAME = "<img src=x onerror=\"document.title='pwned'\">"
EVIL_TEXT = "<script>document.title='pwned'</script> and a <a href='https://x'>link</a>"
TITLE = "Toy view <b>one</b>"


def _tables() -> GraphTables:
    nodes = [{"id": f"ent:{i}", "name": f"E{i}", "source_ids": ["c0"]} for i in range(5)]
    nodes += [
        {"id": "evil", "name": EVIL_NAME, "description": EVIL_TEXT},
        {"id": "sum:1:0", "label": "Summary", "name": "Theme", "level": 1},
        {"id": "c0", "label": "Chunk", "name": "Doc", "description": "text"},
    ]
    edges = [
        {
            "id": f"r{i}",
            "source": f"ent:{i}",
            "target": f"ent:{i + 1}",
            "type": "RELATED",
            "weight": 1.0 + 40 * i,
        }
        for i in range(4)
    ]
    edges += [
        {"id": "m0", "source": "ent:0", "target": "sum:1:0", "type": "MEMBER_OF"},
        {
            "id": "x",
            "source": "evil",
            "target": "ent:0",
            "type": "RELATED",
            "predicate": "</script><script>document.title='pwned'</script>",
            "description": EVIL_NAME,
        },
        {"id": "mention", "source": "ent:1", "target": "c0", "type": "MENTIONED_IN"},
    ]
    return GraphTables.from_records(nodes, edges)


def _view() -> viz.GraphView:
    tables = _tables()
    return viz.pyvis_view(tables.nodes, tables.edges, title=TITLE, pale_nodes={"ent:4": "cut"})


def test_view_has_a_legend_of_the_groups_present_and_a_pale_entry():
    view = _view()
    texts = [e.text for e in view.legend]
    assert texts[:3] == ["Entity", "Summary", "Chunk"]  # palette order, only labels present
    assert view.legend[-1].dashed and len(texts) == 4
    by_id = {n["id"]: n for n in view.nodes}
    assert by_id["ent:0"]["color"]["background"] == viz.LABEL_COLOURS["Entity"]
    assert by_id["ent:4"]["color"]["background"] == viz.pale(viz.LABEL_COLOURS["Entity"])
    assert "removed: cut" in by_id["ent:4"]["title"]
    assert by_id["c0"]["shape"] == "box" and by_id["sum:1:0"]["size"] > by_id["ent:0"]["size"]


def test_edges_are_thin_and_scaled_modestly_by_weight():
    widths = [e["width"] for e in _view().edges]
    low, high = viz.network.EDGE_WIDTH
    assert all(low <= w <= high for w in widths) and max(widths) > min(widths)
    assert "value" not in _view().edges[0]  # vis-network would scale a value up to 15 px


def test_colour_by_mapping_uses_the_palette_and_physics_settles():
    tables = _tables()
    groups = dict.fromkeys(tables.nodes["id"], "depth") | {"ent:0": "base"}
    view = viz.pyvis_view(
        tables.nodes, tables.edges, title="t", colour_by=groups, palette=viz.BRANCH_COLOURS
    )
    assert [e.text for e in view.legend] == ["base", "depth"]
    assert view.legend[1].colour == viz.BRANCH_COLOURS["depth"]
    physics = view.options["physics"]
    assert physics["stabilization"]["enabled"] and physics["barnesHut"]["damping"] > 0


def test_html_shows_the_title_once_escapes_text_and_needs_no_network(tmp_path):
    html = viz.save_html(_view(), "view", tmp_path).read_text()
    assert not re.search(r'(src|href)="https?://', html), "the view must open offline"
    assert "vis-network" in html and html.count("<h1") == 1
    assert "Toy view &lt;b&gt;one&lt;/b&gt;" in html and "<b>one</b>" not in html
    assert EVIL_NAME not in html and "</script><script>document" not in html
    assert "innerHTML" not in html.split("<script>")[-1]  # no popup that parses tooltips


def test_older_pyvis_network_entry_point_names_branch_colours(tmp_path):
    tables = _tables()
    colour = dict.fromkeys(tables.nodes["id"], viz.BRANCH_COLOURS["breadth"])
    view = viz.pyvis_network(tables.nodes, tables.edges, colour=colour, heading="h")
    assert [e.text for e in view.legend] == ["breadth"] and view.view_title == "h"


# ----------------------------------------------------------------------------- headless Chromium
def _chromium() -> str:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (.ci/run installs it)")
    return browser


def _run_chromium(tmp_path: Path, *args: str) -> str:
    return subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--virtual-time-budget=6000",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout


#: Appended to the page in the test only: hover the evil node so vis-network shows its tooltip.
HOVER = """<script>
setTimeout(function () {
  var pos = network.canvasToDOM(network.getPositions(["evil"])["evil"]);
  var canvas = document.querySelector("#network canvas");
  var box = canvas.getBoundingClientRect();
  canvas.dispatchEvent(new MouseEvent("mousemove",
    {clientX: box.left + pos.x, clientY: box.top + pos.y, bubbles: true}));
  document.body.setAttribute("data-physics", String(network.physics.physicsEnabled));
}, 3000);
</script></body>"""


def test_view_in_chromium_keeps_corpus_text_inert_and_shows_legend_once(tmp_path):
    path = viz.save_html(_view(), "view", tmp_path)
    path.write_text(path.read_text().replace("</body>", HOVER))
    dom = _run_chromium(tmp_path, "--dump-dom", path.as_uri())
    assert "<canvas" in dom, "vis-network did not draw its canvas"
    assert re.search(r"<title>Toy view &lt;b&gt;one&lt;/b&gt;</title>", dom), "title changed"
    body = dom.split("<body", 1)[1]
    assert body.count("<h1") == 1 and body.count("Toy view") == 1
    legend = re.search(r'<div id="legend">(.*?)</div>', body, re.S)
    assert legend and "Entity" in legend.group(1) and "Summary" in legend.group(1)
    tooltip = re.search(r'<div class="vis-tooltip"[^>]*>(.*?)</div>', body, re.S)
    assert tooltip, "hovering the node showed no tooltip"
    assert "&lt;script&gt;" in tooltip.group(1) and "<a " not in tooltip.group(1)
    assert "<img" not in body.split("<script>")[0] and 'data-physics="false"' in body


def test_view_screenshot_is_not_blank(tmp_path):
    from PIL import Image

    path = viz.save_html(_view(), "view", tmp_path)
    shot = tmp_path / "view.png"
    _run_chromium(tmp_path, "--window-size=900,700", f"--screenshot={shot}", path.as_uri())
    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 50, "the page is (nearly) one colour"
    entity = tuple(int(viz.LABEL_COLOURS["Entity"][i : i + 2], 16) for i in (1, 3, 5))
    assert sum(n for n, c in colours if c == entity) > 200, "no entity node drawn"
