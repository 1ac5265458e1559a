"""ace_lab.widgets.what_if, .what_if_views, .what_if_panel and each method's knobs: the what-if
explorer answers one question under registry names, cache-first (a probe that refuses every request
the cache does not hold says what is missing before anything reaches the model), scores it,
compares it with the previous setting, and its panel re-answers as a control moves."""

from __future__ import annotations

from html import escape

import pytest

from ace_lab.ace import knobs as ace_knobs
from ace_lab.arc import knobs as arc_knobs
from ace_lab.data.records import Question
from ace_lab.evidence import Evidence
from ace_lab.llm import LLM
from ace_lab.mosaic import knobs as mosaic_knobs
from ace_lab.registry import make_method
from ace_lab.widgets.what_if import Outcome, WhatIf, compare, cost_of
from ace_lab.widgets.what_if_panel import Controls, Panel
from ace_lab.widgets.what_if_views import (
    FRAME_ROOM,
    answer_html,
    change_html,
    change_view,
    frame_height,
    iframe,
)
from tests.support.replies import mosaic_reply
from tests.support.scripted import ScriptedClient

QUESTION = Question("q0", "Where is the tidal lantern kept?", "museum", (), (), None, "toy")


def test_controls_are_registry_names():
    assert mosaic_knobs.mosaic_name() == "mosaic"
    assert mosaic_knobs.mosaic_name("wide") == "mosaic-fixed:wide"
    assert mosaic_knobs.mosaic_name("budget", 10, 2) == "mosaic-budget-matched:10x2"
    assert arc_knobs.arc_name("arcrag", 1, 2, "openie") == "arcrag:r1p2@openie"
    assert (
        arc_knobs.arc_name("arcrag", 3, 6, strict=True, grammar=True)
        == "arcrag:strict+grammar+r3p6"
    )
    assert arc_knobs.arc_name("direct-cypher", 1, 1, strict=True, grammar=True) == (
        "direct-cypher:grammar+r1p1"
    )
    assert mosaic_knobs.mosaic_name("signals") == "mosaic:signals"
    assert ace_knobs.ace_name("full") == "ace-full"
    assert ace_knobs.ace_name("POINT", "graphrag") == "ace-fixed:gap+depth+prune@graphrag"
    assert ace_knobs.ace_topology("ace-fixed", "gap+depth+prune") == "POINT"
    # ACE's budget: the default names no token, any other is the registry's :b<N>.
    assert ace_knobs.ace_name("full", budget=ace_knobs.ACE_DEFAULT_BUDGET) == "ace-full"
    assert ace_knobs.ace_name("full", budget=1500) == "ace-full:b1500"
    assert (
        ace_knobs.ace_name("POINT", "graphrag", 1500) == "ace-fixed:gap+depth+prune+b1500@graphrag"
    )
    assert ace_knobs.ace_topology("ace-fixed", "gap+depth+prune+b1500") == "POINT"
    assert ace_knobs.ace_budget("gap+depth+prune+b1500") == 1500
    assert ace_knobs.ace_budget("") == ace_knobs.ACE_DEFAULT_BUDGET == 2400
    with pytest.raises(ValueError, match="unknown MOSAIC width"):
        mosaic_knobs.mosaic_name("huge")
    assert mosaic_knobs.mosaic_ranges() == {"budget": (8, 16), "depth": (2, 4)}


@pytest.fixture
def explorer(settings, toy_graph) -> tuple[WhatIf, ScriptedClient]:
    client = ScriptedClient(mosaic_reply())
    llm = LLM(settings, client=client)
    return WhatIf(QUESTION, lambda family: toy_graph, llm, dataset="toy"), client


def test_an_uncached_setting_is_marked_with_its_expected_seconds_before_it_runs(explorer):
    what, client = explorer
    probe = what.probe("mosaic-fixed:narrow")
    assert not probe.cached and probe.missing >= 1 and client.requests == []
    assert probe.expected_s is not None and probe.expected_s > 0
    assert "not in the response cache" in probe.line() and "expected ≈" in probe.line()
    outcome = what.run("mosaic-fixed:narrow", probe)
    sent = len(client.requests)
    assert sent >= 1 and outcome.cost["model_calls"] == sent
    again = what.probe("mosaic-fixed:narrow")  # now every call is cached: no request
    assert again.cached and again.answer is not None and len(client.requests) == sent
    assert again.answer.text == outcome.answer.text


def test_an_outcome_is_scored_and_compared_with_the_previous_setting(explorer):
    what, _ = explorer
    _, narrow, first = what.ask("mosaic-fixed:narrow")
    assert first.added == tuple(e.id for e in narrow.evidence) and not first.removed
    assert narrow.f1 is not None and 0 <= narrow.f1 <= 1 and narrow.em in (0.0, 1.0)
    _, wide, change = what.ask("mosaic-fixed:wide")
    assert what.previous is narrow
    assert set(change.added) | set(change.kept) == {e.id for e in wide.evidence}
    assert set(change.removed) | set(change.kept) == {e.id for e in narrow.evidence}
    assert compare(narrow, wide) == change
    assert cost_of(wide.answer)["llm_calls"] >= 1


def _item(i: str, text: str, nodes: tuple[str, ...]) -> Evidence:
    return Evidence(id=i, kind="entity", text=text, meta={"nodes": nodes})


def test_views_escape_corpus_text(settings, toy_graph):
    node = str(toy_graph.tables.nodes["id"].iloc[0])
    evil = "<script>alert(1)</script>"
    before, after = [_item("a", evil, (node,))], [_item("b", evil, ())]
    page = iframe(change_view(toy_graph, after, before, title=evil))
    assert "<script>alert" not in page.split("srcdoc=", 1)[1]
    answer = make_method("naive", toy_graph, LLM(settings, client=ScriptedClient([evil] * 4)))
    outcome = Outcome("naive", answer.answer(evil), (evil,), {k: 0.0 for k in _COST})
    assert evil not in answer_html(outcome) and escape(evil) in answer_html(outcome)
    change = compare(None, outcome)
    assert evil not in change_html(change)


_COST = ("input_tokens", "output_tokens", "llm_calls", "cache_hits", "model_calls", "seconds")


def test_the_panel_reanswers_when_a_control_moves(explorer):
    pytest.importorskip("ipywidgets")
    what, _ = explorer
    panel = Panel(what, "mosaic-fixed:narrow")
    assert panel.controls.name() == "mosaic-fixed:narrow"
    panel.update()
    first = panel.answer.value
    assert "mosaic-fixed:narrow" in first and "F1" in first
    panel.controls.widget(
        "MOSAIC", "width"
    ).value = "budget"  # a control moves: the panel re-answers
    assert "mosaic-budget-matched:12x3" in panel.answer.value
    assert "srcdoc" in panel.graph.value and panel.pager.stages
    panel.controls.widget("MOSAIC", "depth").value = 2
    assert "mosaic-budget-matched:12x2" in panel.answer.value
    assert len(what.history) == 3


def test_without_auto_run_an_uncached_setting_waits_for_the_button(explorer):
    pytest.importorskip("ipywidgets")
    what, client = explorer
    panel = Panel(what, "mosaic-fixed:wide", auto=False)
    panel.update()
    assert client.requests == [] and not panel.run_button.disabled
    assert "≈" in panel.run_button.description and "not in the response cache" in (
        panel.status.value
    )
    panel.run_button.click()
    assert client.requests and "mosaic-fixed:wide" in panel.answer.value


def test_controls_open_on_any_method_name():
    pytest.importorskip("ipywidgets")
    names = (
        "mosaic",
        "mosaic:signals",
        "mosaic-budget-matched:10x2",
        "arcrag:r1p2@openie",
        "arcrag:strict+grammar+r1p2@openie-bare",
        "ace-full",
        "ace-full:b1500",
        "ace-adaptive:b1200@graphrag",
    )
    for name in names:
        controls = Controls()
        controls.select(name)
        assert controls.name() == name
    controls = Controls()
    controls.select("ace-fixed:gap+breadth+prune@graphrag")
    assert controls.name() == "ace-fixed:gap+breadth+prune@graphrag"


def test_the_change_subgraph_frame_holds_the_whole_page(toy_graph):
    # a frame shorter than the page scrolls inside the panel's own scroll box (notebook 09)
    node = str(toy_graph.tables.nodes["id"].iloc[0])
    view = change_view(toy_graph, [_item("a", "text", (node,))], [], title="t", height="480px")
    assert frame_height(view) == 480 + FRAME_ROOM
    assert f"height:{480 + FRAME_ROOM}px" in iframe(view)
    assert "height:300px" in iframe(view, height=300)
