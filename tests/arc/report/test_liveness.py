"""ArcRAG's decisions for the liveness tables: typed and old hand-made records, budget gating."""

from __future__ import annotations

import pandas as pd

from ace_lab.arc.report.liveness import (
    acceptable_bin,
    arc_decisions,
    arc_liveness,
    budget_of,
    is_arc,
)
from ace_lab.arc.steps import ArcDetails, CypherAttempt, CypherExecution, CypherQuery
from ace_lab.arc.steps import SufficiencyCheck as Check
from ace_lab.steps import to_record

STATS = {"passes_used": 2, "stop_reason": "sufficient", "cypher_queries": 3}
STATS |= {"written_subplans": 2, "acceptable_rate": 0.3333}


def _attempt(refined: bool, templated: bool = False) -> CypherAttempt:
    return CypherAttempt(
        CypherQuery("MATCH (n) RETURN n", {}), False, "no rows", refined, templated
    )


def _typed(budget: str = "r3p6") -> dict:
    runs = CypherExecution(1, 0, "s0", (_attempt(False), _attempt(True), _attempt(False, True)))
    steps = [
        {"name": "cypher:p1.s0", "payload": to_record(runs)},
        {"name": "judge:p1", "payload": to_record(Check(1, False, "who founded it?"))},
        {"name": "judge:p2", "payload": to_record(Check(2, True))},
    ]
    details = ArcDetails(budget=budget, components="full", stats=STATS)
    return {"method": "arcrag", "stats": STATS, "details": to_record(details), "steps": steps}


def test_a_typed_record_gives_every_pass_s_verdict_and_the_retries_used():
    assert arc_decisions(_typed()) == {
        "passes used": 2,
        "sufficiency verdicts": ("follow-up", "sufficient"),
        "stop reason": "sufficient",
        "refinements": 1,  # the template's attempt is no model refinement
        "acceptable-query rate": "some",
    }


def test_an_unusable_judgement_and_an_insufficient_one_without_a_question_read_as_such():
    rec = _typed()
    rec["steps"][2]["payload"] = to_record(Check(2, True, fallback=True))
    assert arc_decisions(rec)["sufficiency verdicts"] == ("follow-up", "unusable")
    rec["steps"][2]["payload"] = to_record(Check(2, True, said_sufficient=False))
    assert arc_decisions(rec)["sufficiency verdicts"] == ("follow-up", "no follow-up")


def test_what_one_pass_or_one_attempt_cannot_vary_is_left_out():
    decided = arc_decisions(_typed("r1p1"))
    assert decided["passes used"] is None and decided["sufficiency verdicts"] is None
    assert decided["stop reason"] is None and decided["refinements"] is None
    assert decided["acceptable-query rate"] == "some"


def test_an_old_record_reads_its_stats_and_step_names():
    steps = [{"name": "cypher:p1.s0"}, {"name": "judge:p1"}, {"name": "judge:p2"}]
    rec = {"method": "arcrag:r3p3@openie", "stats": STATS, "steps": steps, "details": None}
    assert budget_of(rec).label == "r3p3"
    decided = arc_decisions(rec)
    assert decided["sufficiency verdicts"] == ("follow-up", "sufficient")
    assert decided["refinements"] == 1  # three model-written attempts over two subplans
    capped = {**rec, "stats": {**STATS, "stop_reason": "pass cap", "passes_used": 3}}
    assert arc_decisions(capped)["sufficiency verdicts"] == ("follow-up", "follow-up")
    none_written = {**rec, "stats": {**STATS, "cypher_queries": 0, "acceptable_rate": 0.0}}
    assert arc_decisions(none_written)["acceptable-query rate"] is None
    assert arc_decisions({"method": "arcrag", "stats": float("nan")}) is None


def test_bins_and_which_methods_are_arc():
    assert [acceptable_bin(r) for r in (0.0, 0.5, 1.0)] == ["0", "some", "all"]
    assert is_arc("direct-cypher@openie") and is_arc("arcrag:r1p3") and not is_arc("ace-full")


def test_arc_liveness_flags_a_check_that_always_says_sufficient():
    rows = []
    for i in range(20):
        rec = _typed()
        judged = {"name": "judge:p1", "payload": to_record(Check(1, True))}
        rec["steps"] = [rec["steps"][0], judged]
        rows.append({**rec, "id": f"q{i}", "stats": {**STATS, "passes_used": 1}})
    rows.append({"id": "h", "method": "hirag", "stats": None})
    table = arc_liveness(pd.DataFrame(rows))
    verdicts = table[table["mechanism"] == "sufficiency verdicts"]
    assert verdicts[["value", "count", "n"]].values.tolist() == [["sufficient", 20, 20]]
    assert verdicts["inert"].all() and set(table["method"]) == {"arcrag"}
