"""ace_lab.arc.report.results: the budget grid, the EM × budget figure, where tokens go and the
Cypher quality shares, computed from hand-made records with known answers."""

from __future__ import annotations

import math

import matplotlib
import pandas as pd
import pytest

from ace_lab.arc.report import results as arc_results
from ace_lab.viz.text_layout import layout_problems

matplotlib.use("Agg")


def _steps(context: int, answer: int, plan: int, explore: int, judge: int = 0) -> list[dict]:
    return [
        {"name": "schema", "prompt_tokens": 0, "completion_tokens": 0},
        {"name": "plan:rewrite", "prompt_tokens": plan, "completion_tokens": 0},
        {"name": "explore:p1", "prompt_tokens": explore, "completion_tokens": 0},
        {"name": "cypher:p1.s0", "prompt_tokens": plan, "completion_tokens": plan},
        {"name": "generate:p1", "prompt_tokens": context, "completion_tokens": answer},
        {"name": "judge:p1", "prompt_tokens": judge, "completion_tokens": 0},
    ]


def _record(method: str, em: float, **extra) -> dict:
    stats = {
        "cypher_queries": 2,
        "subplans": 1,
        "valid_rate": 1.0,
        "acceptable_rate": 0.5,
        "first_valid_rate": 1.0,
        "first_acceptable_rate": 0.0,
        "passes_used": 1,
        "witness_edges": 3,
    } | extra.pop("stats", {})
    base = {
        "id": extra.pop("id", "q"),
        "method": method,
        "em": em,
        "f1": em,
        "llm_calls": 4,
        "cache_hits": 0,
        "input_tokens": 1000,
        "output_tokens": 100,
        "cold_wall_s": 60.0,
        "stats": stats,
        "steps": _steps(500, 20, 100, 200),
    }
    return base | extra


@pytest.fixture
def records() -> pd.DataFrame:
    rows = [
        _record("arcrag:r1p1", 0.0, id="a"),
        _record("arcrag:r1p1", 1.0, id="b"),
        _record("arcrag:r3p3", 1.0, id="a", cache_hits=2),
        _record("arcrag:r3p3", 1.0, id="b", cache_hits=2),
        _record("direct-cypher@openie", 0.0, id="a"),
        _record("hirag", 1.0, id="a", steps=[]) | {"stats": None},  # not ArcRAG: never counted
    ]
    return pd.DataFrame(rows)


def test_grid_has_one_row_per_cell_with_em_interval_and_replay_share(records):
    grid = arc_results.budget_grid(records)
    cells = {(r.configuration, r.family, r.retries, r.passes): r for r in grid.itertuples()}
    assert set(cells) == {
        ("arcrag", "typed", 1, 1),
        ("arcrag", "typed", 3, 3),
        ("direct-cypher", "openie", 1, 1),
    }
    small = cells[("arcrag", "typed", 1, 1)]
    # a 0/1 score's interval is Wilson's: 1 of 2 gives [0.095, 0.905], never the degenerate [0, 1]
    assert small.n == 2 and small.EM == 0.5
    assert (small.EM_low, small.EM_high) == pytest.approx((0.0945, 0.9055), abs=1e-3)
    assert cells[("arcrag", "typed", 3, 3)].cache_hit_share == 0.5
    assert small.cache_hit_share == 0.0 and small.cold_s == 60.0


def test_pooled_grid_adds_each_study_questions_and_names_the_slices(records):
    other = pd.DataFrame([_record("arcrag:r1p1", 1.0, id="c"), _record("arcrag:r1p1", 1.0, id="d")])
    grid = arc_results.pooled_budget_grid({"hotpot": records, "wiki": other, "none": None})
    cells = {(r.configuration, r.family, r.retries, r.passes): r for r in grid.itertuples()}
    small = cells[("arcrag", "typed", 1, 1)]
    assert small.n == 4 and small.EM == 0.75 and small.slices == "hotpot, wiki"
    assert cells[("direct-cypher", "openie", 1, 1)].slices == "hotpot"  # only one study has it
    assert cells[("arcrag", "typed", 3, 3)].n == 2
    assert arc_results.pooled_budget_grid({"none": None}).empty


def test_grid_cells_of_a_line_share_their_questions(records):
    # the default budget run over more of the slice than the smaller budgets' sample
    wider = pd.concat([records, pd.DataFrame([_record("arcrag:r3p3", 0.0, id="c")])])
    grid = arc_results.budget_grid(wider)
    cells = {(r.configuration, r.family, r.retries, r.passes): r for r in grid.itertuples()}
    assert cells[("arcrag", "typed", 3, 3)].n == 2 and cells[("arcrag", "typed", 3, 3)].EM == 1.0
    assert cells[("direct-cypher", "openie", 1, 1)].n == 1  # a line of one cell keeps its own
    pooled = arc_results.pooled_budget_grid({"hotpot": wider})
    assert pooled.set_index(["retries", "passes"]).loc[(3, 3)].n.max() == 2


def test_grid_figure_draws_a_panel_per_family(records):
    grid = arc_results.budget_grid(records)
    fig = arc_results.grid_figure(grid, title="t")
    assert [ax.get_title() for ax in fig.axes] == ["typed graph", "OpenIE"]
    assert fig.axes[0].get_xscale() == "log"
    # the budgets the grid has are the ticks, written whole; nothing overprints
    budgets = sorted({int(b) for b in grid["retries"] * grid["passes"]})
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [str(b) for b in budgets]
    assert layout_problems(fig) == []
    empty = arc_results.grid_figure(arc_results.budget_grid(records.iloc[0:0]))
    assert empty.axes[0].texts[0].get_text() == "no ArcRAG records"


def test_grid_figure_dodges_configurations_with_equal_cells():
    rows = pd.DataFrame([_record("arcrag:r1p1", 1.0), _record("arcrag-generator:r1p1", 1.0)])
    fig = arc_results.grid_figure(arc_results.budget_grid(rows))
    xs = [line.get_xdata()[0] for line in fig.axes[0].lines if len(line.get_xdata()) == 1]
    assert len(set(xs)) == 2 and all(0.9 < x < 1.1 for x in xs)


def test_tokens_go_to_their_category():
    split = arc_results.record_tokens(
        _steps(context=500, answer=20, plan=100, explore=200, judge=7)
    )
    assert split == {
        "context": 500,
        "answers": 20,
        "Cypher and plans": 300,
        "explorer notes": 200,
        "sufficiency": 7,
        "other": 0,
    }
    old = arc_results.record_tokens([{"name": "generate:p1", "elapsed": 1.0}])
    assert all(math.isnan(v) for v in old.values())


def test_token_split_means_and_shares(records):
    split = arc_results.token_split(records).set_index("method")
    row = split.loc["arcrag:r1p1"]
    assert row["total"] == 1020 and row["context"] == 500
    assert row["context share"] == pytest.approx(500 / 1020)
    assert "hirag" not in split.index


def test_cypher_quality_weights_by_attempts(records):
    rows = records.to_dict("records")
    rows[1]["stats"] = rows[1]["stats"] | {"cypher_queries": 6, "valid_rate": 0.5}
    quality = arc_results.cypher_quality(pd.DataFrame(rows)).set_index("method")
    # (2 × 1.0 + 6 × 0.5) / 8 attempts
    assert quality.loc["arcrag:r1p1", "valid"] == pytest.approx(5 / 8)
    assert quality.loc["arcrag:r1p1", "first_acceptable"] == 0.0
    assert quality.loc["direct-cypher@openie", "family"] == "openie"


def test_strict_is_its_own_line_of_the_grid(records):
    rows = records.to_dict("records") + [_record("arcrag:strict+r1p1", 0.0, id=i) for i in "ab"]
    grid = arc_results.budget_grid(pd.DataFrame(rows))
    cells = grid.set_index(["configuration", "retries", "passes"])
    assert cells.loc[("arcrag:strict", 1, 1), "EM"] == 0.0  # not pooled with arcrag:r1p1
    assert cells.loc[("arcrag", 1, 1), "EM"] == 0.5
    assert arc_results.configuration("arcrag:r3p5@openie") == "arcrag"


def test_cypher_quality_shows_where_the_context_came_from_once_records_say(records):
    assert "context_from_model" not in arc_results.cypher_quality(records)  # old tables stay
    origin = {"context_from_model": 0.25, "context_from_template": 0.75}
    rows = records.to_dict("records")
    rows[0]["stats"] = rows[0]["stats"] | origin | {"context_from_fallback": 0.0}
    quality = arc_results.cypher_quality(pd.DataFrame(rows)).set_index("method")
    assert quality.loc["arcrag:r1p1", "context_from_template"] == 0.75  # over records that say
    assert math.isnan(quality.loc["direct-cypher@openie", "context_from_model"])


def test_a_composition_over_arcrag_evidence_is_not_an_arcrag_record(records):
    rows = [*records.to_dict("records"), _record("arcrag:r3p3>ace-full", 0.0, id="a")]
    grid = arc_results.budget_grid(pd.DataFrame(rows)).set_index(["configuration", "retries"])
    assert grid.loc[("arcrag", 3), "n"] == 2  # the composed record would make it 3
    assert "arcrag:r3p3>ace-full" not in set(arc_results.cypher_quality(pd.DataFrame(rows)).method)
