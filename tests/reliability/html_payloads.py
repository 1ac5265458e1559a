"""Nothing a corpus wrote runs in the browser: hostile text in exported HTML, opened in Chromium.

Each payload tries to run script (setting ``document.title`` to a marker) from a node name, a
node description, an edge predicate and an evidence text. It is placed in a pyvis graph view, an
evidence view and the stepper's styled evidence table (the HTML a notebook shows); each page is
opened in headless Chromium, every payload node is hovered so its tooltip is drawn, and the DOM
after load must still carry the page's own title and no marker element. An attempt is one payload
in one place of one page.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from ace_lab import viz, widgets
from ace_lab.evidence import Evidence
from ace_lab.graph.tables import GraphTables

MARK = "pwned"
#: Script vectors a passage could carry; each would set the title or add a marker element.
PAYLOADS = (
    "<script>document.title='pwned'</script>",
    "<img src=x onerror=\"document.title='pwned'\">",
    "<svg onload=\"document.title='pwned'\"></svg>",
    "<iframe srcdoc=\"<script>parent.document.title='pwned'</script>\"></iframe>",
    "<a href=\"javascript:document.title='pwned'\">click</a> href",
    "</script><script>document.title='pwned'</script>",
    "\"><script>document.title='pwned'</script>",
    "<body onload=\"document.title='pwned'\">",
    "<details open ontoggle=\"document.title='pwned'\">",
    '<p id="pwned">marker</p>',
    "<style>@import 'javascript:alert(1)';</style><b id='pwned'>x</b>",
    "\\u003cscript\\u003edocument.title='pwned'\\u003c/script\\u003e",
    "{{constructor.constructor('document.title=\"pwned\"')()}}",
    "<math><mtext><table><mglyph><style><img src=x onerror=\"document.title='pwned'\">",
)
TITLE = "payload view"
#: Appended to every page: records, from the parsed DOM, whether a payload made a marker element.
PROBE = """<script>
function probe() {
  var found = document.querySelectorAll("[id='pwned']").length;
  document.documentElement.setAttribute("data-marker", String(found));
}
</script>"""
#: Appended to a page: hover every node in turn so vis-network draws each tooltip.
HOVER = (
    PROBE
    + """<script>
setTimeout(function () {
  var ids = network.body.data.nodes.getIds(), i = 0;
  var canvas = document.querySelector("#network canvas"), box = canvas.getBoundingClientRect();
  (function next() {
    if (i >= ids.length) { document.body.setAttribute("data-hovered", String(i)); probe(); return; }
    var pos = network.canvasToDOM(network.getPositions([ids[i]])[ids[i]]);
    canvas.dispatchEvent(new MouseEvent("mousemove",
      {clientX: box.left + pos.x, clientY: box.top + pos.y, bubbles: true}));
    i += 1; setTimeout(next, 60);
  })();
}, 2500);
</script></body>"""
)


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def dump_dom(page: Path, profile: Path) -> str:
    """The page's DOM after load, scripts and the hover sequence (headless Chromium)."""
    browser = chromium()
    assert browser is not None
    return subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=12000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    ).stdout


def _tables(payloads: tuple[str, ...]) -> GraphTables:
    nodes = [{"id": "anchor", "name": "Anchor", "description": "a plain node"}]
    edges = []
    for i, payload in enumerate(payloads):
        nodes.append({"id": f"n{i}", "name": payload[:60], "description": payload})
        edges.append(
            {
                "id": f"e{i}",
                "source": "anchor",
                "target": f"n{i}",
                "type": "RELATED",
                "predicate": payload,
                "description": payload,
            }
        )
    return GraphTables.from_records(nodes, edges)


def _evidence(payloads: tuple[str, ...]) -> list[Evidence]:
    return [
        Evidence(f"ev{i}", "entity", payload, meta={"nodes": (f"n{i}",)})
        for i, payload in enumerate(payloads)
    ]


def _pages(folder: Path, payloads: tuple[str, ...]) -> dict[str, Path]:
    tables, items = _tables(payloads), _evidence(payloads)
    graph = viz.pyvis_view(tables.nodes, tables.edges, title=TITLE)
    removed = {"ev0": payloads[0]}
    evidence = viz.evidence_view(tables, items, removed, title=TITLE)
    pages = {
        "graph view": viz.save_html(graph, "graph", folder),
        "evidence view": viz.save_html(evidence, "evidence", folder),
    }
    for path in pages.values():
        path.write_text(path.read_text(encoding="utf-8").replace("</body>", HOVER))
    table = folder / "table.html"
    table.write_text(
        f"<html><head><title>{TITLE}</title></head><body>"
        f"{widgets.styled(items).to_html()}{PROBE}<script>probe()</script></body></html>",
        encoding="utf-8",
    )
    pages["styled evidence table"] = table
    return pages


def _executed(dom: str) -> bool:
    """A payload ran: the title was changed, or the probe found a marker element (or did not
    run at all, which a payload breaking the page's scripts would cause)."""
    title = dom.split("<title>", 1)[1].split("</title>", 1)[0] if "<title>" in dom else ""
    return MARK in title or 'data-marker="0"' not in dom


def measure(full: bool) -> list[dict]:
    """One row: payloads × places (node name, description, edge text, evidence text) × pages."""
    payloads = PAYLOADS if full else PAYLOADS[:6]
    if chromium() is None:
        return [
            {
                "property": "corpus HTML never runs in the browser",
                "attempts": 0,
                "held": 0,
                "failed": 1,
                "note": "chromium not installed (.ci/run installs it)",
            }
        ]
    held = failed = 0
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, page in _pages(Path(tmp), payloads).items():
            dom = dump_dom(page, Path(tmp) / "profile")
            hovered = 'data-hovered="' in dom or name == "styled evidence table"
            places = 4 if name != "styled evidence table" else 1
            if _executed(dom) or not hovered:
                failed += len(payloads) * places
                notes.append(f"{name}: {'executed' if hovered else 'tooltips not drawn'}")
            else:
                held += len(payloads) * places
    return [
        {
            "property": "corpus HTML never runs in the browser",
            "attempts": held + failed,
            "held": held,
            "failed": failed,
            "note": "; ".join(notes) or f"{len(payloads)} payloads, 3 pages, every node hovered",
        }
    ]
