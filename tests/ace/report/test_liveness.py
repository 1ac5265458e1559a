"""ACE's decisions for the liveness tables: hand-made records, old and typed, and a scripted run
whose router is inert or live."""

from __future__ import annotations

import json

import pandas as pd

from ace_lab.ace.report.liveness import (
    ace_decisions,
    ace_liveness,
    dropped_bin,
    is_ace,
    reason_kind,
)
from ace_lab.ace.steps import AceDetails, GapPlan, PolicyDecision, RouterDecision
from ace_lab.data import load_dataset
from ace_lab.eval.studies.record import record
from ace_lab.eval.studies.study import results_frame
from ace_lab.llm import LLM
from ace_lab.registry import make_method
from ace_lab.steps import Retrieval, Selection, to_record
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient

POLICY = {"gap": True, "branches": ["breadth"], "pruning": True, "profile": "qa", "label": "x"}


def _step(name: str, payload=None) -> dict:
    return {"name": name, "payload": None if payload is None else to_record(payload)}


def test_a_typed_record_gives_route_branches_drops_and_recovery():
    router = RouterDecision("CONTRAST", attempts=1, fallback=False, raw_label="CONTRAST")
    policy = PolicyDecision(True, ("breadth",), True, "qa", "x", "adaptive", "CONTRAST")
    details = AceDetails("hirag", policy, GapPlan("", {"breadth": "q"}), router)
    dropped = (
        ("e1", "qa profile: report-level evidence suppressed"),
        ("e2", "semantic pruning: similarity 0.04 < 0.15"),
        ("e3", "token budget 2400 reached"),
    )
    rec = {
        "method": "ace-adaptive",
        "details": to_record(details),
        "policy": POLICY,
        "plan": {"analysis": "", "queries": {"breadth": "q"}, "fallback": False},
        "base_has_answer": False,
        "context_has_answer": True,
        "steps": [
            _step("retrieve:base", Retrieval("q", "hi")),
            _step("route", router),
            _step("plan"),
            _step("retrieve:breadth"),
            _step("adapt", Selection(kept=("e0",), dropped=dropped)),
        ],
    }
    assert ace_decisions(rec) == {
        "route": "CONTRAST",
        "router fallback": False,
        "planner fallback": False,
        "branches issued": ("breadth",),
        "items dropped": "1–5",
        "drop reasons": {"report drop", "semantic pruning", "token budget"},
        "recovery": "recovered",
    }


def test_an_old_record_gives_what_its_columns_and_step_names_hold():
    rec = {
        "method": "ace-full",
        "topology": float("nan"),  # a results frame's empty cell
        "policy": {**POLICY, "branches": ["depth", "breadth"]},
        "plan": {"analysis": "", "queries": {}, "fallback": True},
        "base_has_answer": True,
        "context_has_answer": True,
        "steps": [{"name": "retrieve:base"}, {"name": "retrieve:depth"}, {"name": "adapt"}],
    }
    decided = ace_decisions(rec)
    assert decided["route"] is None and decided["branches issued"] is None  # no router
    assert decided["planner fallback"] is True
    assert decided["items dropped"] is None and decided["drop reasons"] is None  # untyped
    assert decided["recovery"] is None  # the base context had the answer: nothing to recover
    adaptive = {**rec, "topology": "POINT", "base_has_answer": False, "context_has_answer": False}
    assert ace_decisions(adaptive)["branches issued"] == ("depth",)
    assert ace_decisions(adaptive)["recovery"] == "not recovered"


def test_bins_reasons_and_which_methods_are_ace():
    assert [dropped_bin(n) for n in (0, 1, 5, 6, 10, 11)] == [
        "0",
        "1–5",
        "1–5",
        "6–10",
        "6–10",
        ">10",
    ]
    assert reason_kind("something else 0.3") == "something else #"
    assert is_ace("ace-adaptive") and is_ace("mosaic>ace-full") and not is_ace("hirag")
    assert not is_ace("no-such-method")


def _scripted_records(settings, toy_graph, label_of) -> pd.DataFrame:
    """Adaptive-ACE over the toy questions with a router whose label ``label_of`` picks."""
    questions = load_dataset("toy").questions

    def reply(kwargs: dict) -> str:
        user = kwargs["messages"][-1]["content"]
        if "Strategic Router" in kwargs["messages"][0]["content"]:
            return json.dumps({"topology": label_of(user)})
        return ace_reply(kwargs)

    llm = LLM(settings, client=ScriptedClient(reply))
    method = make_method("ace-adaptive", toy_graph, llm)
    records = [record(q, method.answer(q.question)) for q in questions]
    return results_frame([{**r, "position": i} for i, r in enumerate(records)])


def test_a_scripted_router_that_always_says_contrast_is_flagged_inert(settings, toy_graph):
    frame = _scripted_records(settings, toy_graph, lambda _: "CONTRAST")
    table = ace_liveness(frame)
    route = table[table["mechanism"] == "route"]
    assert route[["value", "count", "n"]].values.tolist() == [["CONTRAST", 8, 8]]
    assert route["inert"].all()
    branches = table[table["mechanism"] == "branches issued"]
    assert branches["value"].tolist() == ["breadth"] and branches["inert"].all()


def test_a_scripted_router_that_varies_is_not_inert(settings, toy_graph):
    labels = iter(["POINT", "CHAIN"] * 4)
    frame = _scripted_records(settings, toy_graph, lambda _: next(labels))
    table = ace_liveness(frame)
    route = table[table["mechanism"] == "route"]
    assert sorted(route["value"]) == ["CHAIN", "POINT"] and not route["inert"].any()
    branches = table[table["mechanism"] == "branches issued"]
    assert sorted(branches["value"]) == ["depth", "depth+breadth"]
