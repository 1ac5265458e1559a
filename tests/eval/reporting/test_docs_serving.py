"""ace_lab.eval.reporting.docs_serving: the serving page's measurements generated from the
committed bench results; the page's measured sections hold no hand-typed figure."""

from __future__ import annotations

import json

import pytest

from ace_lab.eval.reporting.docs_numbers import DocsError, loose_numbers
from ace_lab.eval.reporting.docs_serving import FIGURES, format_value
from tests.support.paths import REPO

#: Phrases of the measured sections whose numbers are settings, goals or the kernel's, not
#: measurements.
SETTINGS = (
    r"up to \d+ tokens",  # the planner's output limit
    r"the 1\.5× this work aimed",  # the goal, not a result
    r"niceness to −\d+",  # a setting tried
    r"the \d % of CPU the kernel keeps back",  # the kernel's real-time share
    r"\d thread instead of \d",  # the settings compared
)


def _row(key: str, **values) -> dict:
    base = {"option": key, "key": key, "calls": 9, "prompt tok/s": 50.0, "gen tok/s": 10.0}
    base |= {"hirag s/query": 40.0, "ace-full s/query": 80.0, "hirag speed-up": 1.0}
    return (
        base | {"ace-full speed-up": 1.0, "outputs changed": None, "prompt reused": None} | values
    )


@pytest.fixture
def results(tmp_path):
    run = tmp_path / "serving" / "busy"
    run.mkdir(parents=True)
    rows = [_row("x"), _row("n", **{"prompt tok/s": 75.0, "hirag speed-up": 1.59})]
    rows[1] |= {"prompt reused": 0.024, "gen tok/s idle → busy": "11.11 → 0.32"}
    (run / "llm_serving.json").write_text(json.dumps(rows))
    replies = [{"text": t, "prompt_n": p, "predicted_n": 80} for t, p in (("a", 1700), ("b", 1776))]
    (run / "replies_x.json").write_text(json.dumps(replies))
    (run / "replies_n.json").write_text(json.dumps([replies[0], {**replies[1], "text": "c"}]))
    return tmp_path


def test_cells_ratios_ranges_and_replies(results):
    assert FIGURES["serving"](results, ("busy", "n", "hirag_speed-up", "x")) == "1.59×"
    assert FIGURES["serving"](results, ("busy", "n", "prompt_reused", "pct")) == "2.4 %"
    assert FIGURES["serving"](results, ("busy", "n", "gen_tok/s_idle_→_busy", "raw")) == (
        "11.11 → 0.32"
    )
    assert FIGURES["serving_ratio"](results, ("busy", "n", "x", "prompt_tok/s")) == "1.5×"
    assert FIGURES["serving_range"](results, ("prompt_tok/s", "0", "busy:x", "busy:n")) == "50–75"
    assert FIGURES["serving_changed"](results, ("busy", "x", "n")) == "1 of 2"
    assert FIGURES["serving_tokens"](results, ("busy", "x", "prompt_n")) == "1,738"
    table = FIGURES["serving_table"](results, ("busy",)).splitlines()
    assert table[3] == "| n | 75.0 | 10.0 | 40.0 (1.59×) | 80.0 (1.00×) | — | 2.4 % |"
    with pytest.raises(DocsError, match="no option 'q'"):
        FIGURES["serving"](results, ("busy", "q", "calls", "0"))
    assert format_value(None, "1") == "—" and format_value(0.89, "pct") == "89 %"


def test_the_serving_pages_measured_sections_hold_no_hand_typed_figure():
    text = (REPO / "docs" / "llm-and-serving.md").read_text(encoding="utf-8")
    measured = text[text.index("**One prompt, one answer.**") : text.index("Settings (`ACE_LAB")]
    cache = text[text.index("**Cache.**") :]
    cache = cache[: cache.index("\n\n")]
    loose = loose_numbers(measured + "\n" + cache, SETTINGS)
    assert not loose, "hand-typed figures on the serving page:\n" + "\n".join(loose)
