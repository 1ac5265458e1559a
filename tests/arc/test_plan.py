"""ace_lab.arc.plan: the root planner's subplans (capped, always with a neighbourhood scan),
anchor binding limited to real anchors, and the recorded fallbacks for malformed output."""

from __future__ import annotations

from ace_lab.arc.budget import Budget
from ace_lab.arc.interface import QueryInterface
from ace_lab.arc.plan import SCAN_GOAL, plan, question_plan, scan_plan
from ace_lab.arc.schema import StoreSchema
from ace_lab.arc.steps import ArcAnchor
from ace_lab.llm import LLM
from tests.support.replies import arc_prompt, arc_reply
from tests.support.scripted import ScriptedClient

SCHEMA = StoreSchema(labels=(("A", 2),), rel_types=(("R", 1),), property_keys=("k",), key="k")
IFACE = QueryInterface(
    anchors=(ArcAnchor("a1", "Alpha", ("A",), "alpha"), ArcAnchor("a2", "Beta", ("A",), "beta"))
)


def run(settings, **overrides):
    client = ScriptedClient(arc_reply(**overrides))
    out = plan(LLM(settings, client=client), SCHEMA, IFACE, "Who?", Budget(max_subplans=3))
    return out, [arc_prompt(k) for k in client.requests]


def test_subplans_are_capped_and_end_with_the_scan(settings):
    many = {"answer_type": "Date", "subplans": [{"goal": f"g{i}", "hops": ["R"]} for i in range(6)]}
    out, calls = run(
        settings,
        plan=many,
        bind={
            "bindings": [{"subplan": 0, "anchors": ["a2", "zz"]}, {"subplan": 9, "anchors": ["a1"]}]
        },
    )
    assert calls == ["plan", "bind"]
    assert out.answer_type == "date"
    assert [s.goal for s in out.subplans] == ["g0", "g1", SCAN_GOAL]
    assert out.subplans[-1].open_scan and out.subplans[0].anchors == ("a2",)
    assert out.subplans[1].anchors == ("a1", "a2")  # unbound: every anchor
    assert "planner gave no neighbourhood scan: added" in out.fallbacks
    assert "subplan 0: dropped unknown anchors" in out.fallbacks


def test_a_scan_the_planner_wrote_is_kept_once(settings):
    given = {
        "answer_type": "entity",
        "subplans": [{"goal": "look around", "open_scan": True}, {"goal": "g", "hops": ["R"]}],
    }
    out, _ = run(settings, plan=given)
    assert [s.open_scan for s in out.subplans] == [False, True]
    assert not any("no neighbourhood scan" in f for f in out.fallbacks)


def test_malformed_plan_falls_back_to_the_scan_alone(settings):
    for bad in ("no json here", {"answer_type": "entity", "subplans": []}):
        out, calls = run(settings, plan=bad)
        assert "bind" not in calls
        assert len(out.subplans) == 1 and out.subplans[0].open_scan
        assert out.subplans[0].anchors == ("a1", "a2")
        assert out.fallbacks == ("planner output unusable: neighbourhood scan only",)


def test_malformed_bindings_bind_every_anchor(settings):
    out, _ = run(settings, bind="{{{")
    assert all(s.anchors == ("a1", "a2") for s in out.subplans)
    assert any("binding output unusable" in f for f in out.fallbacks)


def test_plans_without_a_planner():
    assert question_plan("Who?", ["a"]).subplans[0].goal == "Who?"
    scan = scan_plan(["a"], why="because")
    assert scan.fallbacks == ("because",) and scan.subplans[0].render().startswith(SCAN_GOAL)


def test_over_long_fields_are_cut_not_a_failed_attempt(settings):
    """A small model's wordy answer type or a seventh hop is truncated on validation: the
    first reply is used (one call), not retried twice and then replaced by the fallback."""
    wordy = {
        "answer_type": "the name of the city where the person was born " * 3,
        "subplans": [{"goal": "g" * 900, "hops": [f"R{i}" for i in range(9)]}],
    }
    out, calls = run(settings, plan=wordy)
    assert calls == ["plan", "bind"]
    assert len(out.answer_type) == 40 and len(out.subplans[0].goal) == 400
    assert out.subplans[0].hops == ("R0", "R1", "R2", "R3", "R4", "R5")
    assert "planner output unusable: neighbourhood scan only" not in out.fallbacks
