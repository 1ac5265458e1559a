"""bench/extraction_format_bound.py on hand-made records and a word counter (no server here):
both renderings carry the same content, fallbacks are left out, and the ratios are per slice
and over all."""

from __future__ import annotations

import json

from ace_lab.graph.compact import HIERARCHICAL, parse_lines
from tests.support.benches import load_bench

bench = load_bench("extraction_format_bound")

RESULT = {
    "entities": [
        {"name": "Ada", "type": "PERSON", "description": "A mathematician."},
        {"name": "London", "type": "LOCATION", "description": "Where Ada lived."},
    ],
    "relations": [
        {"source": "Ada", "target": "London", "description": "Ada lived in London.", "strength": 9}
    ],
}


def _record(tokens: int, fallbacks: int = 0) -> dict:
    return {"result": RESULT, "completion_tokens": tokens, "fallbacks": fallbacks}


def test_both_renderings_carry_the_same_content() -> None:
    as_json = json.loads(bench.render_json(RESULT))
    assert as_json["entities"][0] == ["Ada", "PERSON", "A mathematician."]
    assert as_json["relations"][0][-1] == 9
    lines = parse_lines(bench.render_compact(RESULT), HIERARCHICAL)
    assert [e["name"] for e in lines["E"]] == ["Ada", "London"]
    assert lines["R"][0]["strength"] == "9"


def test_rows_per_slice_and_over_all_leave_fallbacks_out() -> None:
    found = [("s1", _record(40)), ("s1", _record(40, fallbacks=1)), ("s2", _record(60))]
    rows = {r["slice"]: r for r in bench.measure(found, lambda text: len(text))}
    assert rows["s1"]["chunks"] == 1 and rows["all"]["chunks"] == 2
    as_json, compact = len(bench.render_json(RESULT)), len(bench.render_compact(RESULT))
    assert rows["all"]["recorded tokens/chunk"] == 50
    assert rows["all"]["compact / JSON"] == round(compact / as_json, 3) < 1
    assert rows["s2"]["rendered / recorded"] == round(as_json / 60, 3)


def test_only_finished_builds_are_read(tmp_path) -> None:
    for slice_id, finished in (("done", True), ("building", False)):
        folder = tmp_path / slice_id / "hierarchical" / "m"
        folder.mkdir(parents=True)
        (folder / bench.EXTRACT_FILE).write_text(json.dumps(_record(10)) + "\n")
        if finished:
            (folder / "tables").mkdir()
    assert [s for s, _ in bench.records(tmp_path, "m")] == ["done"]
