"""ace_lab.arc.report.families: each ArcRAG configuration on each graph construction (RQ2),
paired with its typed row, from hand-made records with known answers."""

from __future__ import annotations

import math

import pandas as pd

from ace_lab.arc.report.families import family_table


def _record(method: str, qid: str, f1: float, context: int = 100, **stats) -> dict:
    em = float(f1 == 1.0)
    return {
        "id": qid,
        "method": method,
        "em": em,
        "f1": f1,
        "context_tokens": context,
        "stats": stats,
    }


def _records() -> pd.DataFrame:
    rows = [
        _record("arcrag:strict", q, 1.0, context_from_model=1.0, witness_edges=4) for q in "abc"
    ]
    rows += [_record("arcrag:strict@openie-bare", "a", 0.0, context_from_model=0.0)]
    rows += [_record("arcrag:strict@openie-bare", "b", 0.5, context_from_model=1.0)]
    rows += [_record("arcrag:strict@openie-bare", "z", 1.0, context=0)]  # no typed partner
    rows += [_record("arcrag:strict+r1p1", "a", 0.0)]  # another budget: a configuration of its own
    rows += [_record("hirag", "a", 1.0)]  # not ArcRAG
    return pd.DataFrame(rows)


def test_one_row_per_configuration_and_family_the_budget_part_of_the_configuration():
    table = family_table(_records()).set_index(["configuration", "family"])
    assert list(table.index) == [
        ("arcrag:strict", "typed"),
        ("arcrag:strict", "openie-bare"),
        ("arcrag:strict+r1p1", "typed"),
    ]
    typed, bare = table.loc[("arcrag:strict", "typed")], table.loc[("arcrag:strict", "openie-bare")]
    assert (typed["n"], typed["EM"], typed["witness_edges"]) == (3, 1.0, 4.0)
    assert (bare["n"], bare["F1"]) == (3, 0.5)
    assert bare["context_from_model"] == 0.5  # over the records that say
    assert (typed["EM_empty_context"], bare["EM_empty_context"]) == (0, 1)  # z: answered blind


def test_a_family_is_paired_with_its_typed_row_on_the_questions_both_answered():
    table = family_table(_records()).set_index(["configuration", "family"]).loc["arcrag:strict"]
    assert table.loc["openie-bare", "n_paired"] == 2  # a and b; z has no typed answer
    assert table.loc["openie-bare", "ΔF1 vs typed [95% CI]"].startswith("-0.750 [")
    assert math.isnan(table.loc["typed", "n_paired"])


def test_no_arcrag_records_give_an_empty_table_with_the_columns():
    table = family_table(pd.DataFrame([_record("hirag", "a", 1.0)]))
    assert table.empty and "ΔF1 vs typed [95% CI]" in table
