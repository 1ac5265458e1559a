"""The view page: data embedded as script-safe JSON, legend text escaped, vis-network inlined."""

from __future__ import annotations

import json

from ace_lab.viz.view_html import LegendEntry, legend_html, render_page, script_json


def test_script_json_cannot_close_the_script_element():
    value = {"title": "</script><script>alert(1)</script> & more"}
    text = script_json(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


def test_legend_escapes_text_and_marks_dashed_entries():
    html = legend_html([LegendEntry("<b>x</b>", "#123456"), LegendEntry("gone", "#eee", True)], "c")
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>" not in html
    assert html.count('class="swatch dashed"') == 1 and html.endswith(
        '<span class="caption">c</span>'
    )


def test_page_is_self_contained_with_one_heading():
    page = render_page(
        title="T", legend=[], nodes=[{"id": "a"}], edges=[], options={"a": 1}, height="300px"
    )
    assert (
        page.count("<h1") == 1 and "vis.Network" in page and "http" not in page.split("<body>")[1]
    )
    assert "stabilizationIterationsDone" in page and "physics: false" in page
