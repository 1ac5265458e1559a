"""The HTML page of a graph view: title once, a legend, and vis-network inlined (opens offline).

pyvis' own template is not used: it prints ``heading`` twice, links Bootstrap from a CDN, and
switches node tooltips to a popup that sets ``innerHTML`` as soon as any tooltip contains
"href", which would run corpus text as HTML. This page draws the same vis-network data with
none of that: tooltips stay plain text (vis-network sets them with ``innerText``), every piece
of text in the markup is HTML-escaped, and the node/edge data are embedded as JSON in which
``<``, ``>`` and ``&`` are ``\\u`` escapes, so no corpus string can close the script element.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

import pyvis


@dataclass(frozen=True)
class LegendEntry:
    """One legend row: a swatch (pale and dashed for removed items) and its text."""

    text: str
    colour: str
    dashed: bool = False


_PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>$title</title>
<style>$vis_css</style>
<script>$vis_js</script>
<style>
  body { font-family: Helvetica, Arial, sans-serif; margin: 10px; color: #222; }
  h1.view-title { font-size: 17px; font-weight: 600; margin: 0 0 6px 0; }
  #legend { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 13px; margin: 0 0 6px 0; }
  #legend .entry { display: inline-flex; align-items: center; gap: 6px; }
  #legend .swatch { width: 12px; height: 12px; border-radius: 50%; border: 1.5px solid #666; }
  #legend .swatch.dashed { border-style: dashed; }
  #legend .caption { color: #666; }
  #network { width: 100%; height: $height; border: 1px solid #ddd; background: #fff; }
  div.vis-tooltip { max-width: 480px; white-space: pre-wrap; font-size: 12px; }
</style>
</head>
<body>
<h1 class="view-title">$title</h1>
<div id="legend">$legend</div>
<div id="network"></div>
<script>
  var nodes = new vis.DataSet($nodes);
  var edges = new vis.DataSet($edges);
  var network = new vis.Network(
    document.getElementById("network"), { nodes: nodes, edges: edges }, $options);
  // Lay the graph out once, then switch physics off: the view settles and stays put.
  network.once("stabilizationIterationsDone", function () {
    network.setOptions({ physics: false });
    network.fit();
  });
</script>
</body>
</html>
""")


def script_json(value: Any) -> str:
    """JSON that is safe inside ``<script>``: no ``<``, ``>`` or ``&`` survive literally."""
    text = json.dumps(value, ensure_ascii=True, sort_keys=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@cache
def _vis_assets() -> tuple[str, str]:
    """vis-network's CSS and JS as shipped inside the pyvis wheel (no network needed)."""
    lib = Path(pyvis.__file__).parent / "templates" / "lib" / "vis-9.1.2"
    return (
        (lib / "vis-network.css").read_text(encoding="utf-8"),
        (lib / "vis-network.min.js").read_text(encoding="utf-8"),
    )


def legend_html(entries: list[LegendEntry], caption: str = "") -> str:
    """The legend's inner HTML: one swatch + escaped text per entry, then a grey caption."""
    parts = [
        f'<span class="entry"><span class="swatch{" dashed" if e.dashed else ""}" '
        f'style="background:{html.escape(e.colour)}"></span>{html.escape(e.text)}</span>'
        for e in entries
    ]
    if caption:
        parts.append(f'<span class="caption">{html.escape(caption)}</span>')
    return "".join(parts)


def render_page(
    *,
    title: str,
    legend: list[LegendEntry],
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]],
    options: dict[str, Any],
    height: str,
    caption: str = "",
) -> str:
    """The complete, self-contained HTML page of one view."""
    vis_css, vis_js = _vis_assets()
    return _PAGE.substitute(
        title=html.escape(title),
        vis_css=vis_css,
        vis_js=vis_js,
        height=html.escape(height),
        legend=legend_html(legend, caption),
        nodes=script_json(nodes),
        edges=script_json(edges),
        options=script_json(options),
    )
