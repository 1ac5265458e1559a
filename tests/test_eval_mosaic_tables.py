"""ace_lab.eval.mosaic_tables / mosaic_plots / mosaic_runs: notebook 05's tables and figures
from hand-made traces and records, and the in-process runner on the toy graph (scripted LLM)."""

from __future__ import annotations

import json
import random

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from ace_lab.data import load_dataset
from ace_lab.eval.mosaic_plots import (
    control_range,
    effort_figure,
    policy_histograms,
    stopping_figure,
)
from ace_lab.eval.mosaic_runs import (
    pick_questions,
    run_methods,
    short_label,
    slice_runs,
    with_family,
)
from ace_lab.eval.mosaic_tables import (
    POLICY_FIELDS,
    budget_matched_name,
    connector_activation,
    effort_summary,
    effort_table,
    policy_combinations,
    policy_distribution,
    policy_frame,
    policy_side_by_side,
    policy_summary,
    stopping_curve,
    with_budget_matched,
)
from ace_lab.eval.study import results_path
from ace_lab.llm import LLM
from ace_lab.mosaic.method import parse_name
from ace_lab.mosaic.policy import FIXED_POLICIES, ExplorationPolicy
from tests.conftest import ScriptedClient, mosaic_reply
from tests.mosaic_synthetic import make_trace, record, two_depth_trace

SIGNALS = {
    "deep list": {"cardinality": "list", "targets": [], "depth": 9, "anchoring": "vague",
                  "breadth": "broad", "mediated": True},
    "comparison": {"targets": ["A", "B", "C"], "comparison": True, "depth": 2},
    "direct": {"depth": 2},
}  # fmt: skip


def test_side_by_side_shows_raw_to_validated_exactly_where_validation_changed_a_control():
    traces = {label: make_trace([], signals=s) for label, s in SIGNALS.items()}
    table = policy_side_by_side(traces)
    assert list(table.columns) == list(SIGNALS)
    for label, trace in traces.items():
        out = trace.find("policy").outputs
        adjusted = {a.split(":")[0] for a in out["adjustments"]}
        arrows = {f for f in POLICY_FIELDS if "→" in table.loc[("policy", f), label]}
        assert arrows == adjusted, label
        for f in POLICY_FIELDS:  # the validated value always ends the cell
            assert table.loc[("policy", f), label].endswith(str(out["policy"][f]).strip("[]")
                                                            .replace("'", "") or "—")  # fmt: skip
    # depth 9 + mediated is clamped to the depth cap 4
    assert table.loc[("policy", "max_depth"), "deep list"] == "9 → 4"
    assert table.loc[("analyzer JSON", "cardinality"), "deep list"] == "list"
    assert table.loc[("validation", "adjustments"), "direct"] == "none"


def test_side_by_side_marks_the_default_policy_of_unusable_output():
    bad = make_trace([], signals="not an object")
    table = policy_side_by_side({"bad": bad, "ok": make_trace([], signals={"depth": 3})})
    assert table.loc[("validation", "default policy (fallback)"), "bad"] == "True"
    assert table.loc[("policy", "max_depth"), "bad"] == str(ExplorationPolicy().max_depth)
    assert table.loc[("analyzer JSON", "depth"), "bad"] == "—"


def _slice_records(n: int = 40, seed: int = 1) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        raw = {k: rng.choice(v) for k, v in {
            "seed_count": [5, 8, 12], "max_depth": [2, 3, 4], "evidence_budget": [8, 12, 16],
            "connectors": [True, False], "targets": [[], ["X"], ["Y", "Z"]],
        }.items()}  # fmt: skip
        policy = ExplorationPolicy.clamp(raw)[0].to_dict()
        out.append(record("mosaic", f"q{i}", "bridge" if i % 2 else "comparison",
                          policy=policy, depth_reached=rng.randint(1, policy["max_depth"]),
                          connectors_used=int(policy["connectors"] and i % 3 == 0)))  # fmt: skip
    return [*out, record("mosaic-fixed:wide", "q0")]


def test_distribution_counts_every_question_once_per_control():
    records = _slice_records()
    dist = policy_distribution(records)
    for control, group in dist.groupby("control"):
        assert group["questions"].sum() == 40, control
        assert abs(group["share"].sum() - 1) < 0.01
    depth = dist[dist["control"] == "max_depth"]
    assert list(depth["value"]) == sorted(depth["value"], key=int)
    summary = policy_summary(records)
    assert summary.loc["max_depth", "distinct"] == len(depth)
    total = sum(
        int(part.split(": ")[1]) for part in summary.loc["seed_count", "values"].split(" · ")
    )
    assert total == 40


def test_combinations_ignore_target_strings_and_count_distinct_controls():
    records = _slice_records()
    frame = policy_frame(records)
    combos = policy_combinations(records)
    assert combos["questions"].sum() == len(frame) == 40
    assert len(combos) == frame["combination"].nunique()
    one = FIXED_POLICIES["medium"].to_dict()
    same = [
        record("mosaic", "a", policy=one | {"targets": ["P"], "per_target": False}),
        record("mosaic", "b", policy=one | {"targets": ["Q", "R"], "per_target": False}),
    ]
    assert len(policy_combinations(same)) == 1


def test_stopping_curve_reads_gain_completeness_and_the_policy_threshold():
    curve = stopping_curve(two_depth_trace(policy=FIXED_POLICIES["wide"], reason="converged"))
    assert list(curve["depth"]) == [1, 2]
    assert list(curve["gain"]) == [1.0, 0.1] and list(curve["completeness"]) == [0.2, 0.5]
    assert set(curve["threshold"]) == {0.5}  # wide stops "deep"
    assert list(curve["stop"]) == ["", "converged"]
    assert list(curve["connectors"]) == [0, 1] and list(curve["scored"]) == [6, 9]


def test_effort_is_relative_to_fixed_wide_over_common_questions():
    records = [
        record("mosaic", "q1", paths_evaluated=10, evidence_retained=8, em=1.0),
        record("mosaic", "q2", paths_evaluated=30, evidence_retained=10, em=0.0),
        record("mosaic-fixed:wide", "q1", paths_evaluated=100, evidence_retained=16, em=1.0),
        record("mosaic-fixed:wide", "q2", paths_evaluated=60, evidence_retained=16, em=1.0),
        record("mosaic-fixed:wide", "q3", paths_evaluated=1000, evidence_retained=16),
    ]
    table = effort_table(records)
    assert table.attrs["questions"] == 2
    assert table.loc["mosaic-fixed:wide", "paths_evaluated"] == 80  # q3 is not common
    assert table.loc["mosaic-fixed:wide", "paths_vs_ref"] == 0.0
    assert table.loc["mosaic", "paths_vs_ref"] == pytest.approx(100 * (20 / 80 - 1))
    assert table.loc["mosaic", "evidence_vs_ref"] == pytest.approx(100 * (9 / 16 - 1), abs=0.05)
    assert table.loc["mosaic", "em"] == 0.5
    assert effort_table(records, ["mosaic"])["paths_vs_ref"].isna().all()  # no reference
    assert effort_summary(table).startswith(
        "mosaic vs mosaic-fixed:wide on 2 questions: paths -75.0"
    )
    assert "no records" in effort_summary(effort_table(records, ["mosaic"]))
    zero = [record("mosaic", "q"), record("mosaic-fixed:wide", "q", paths_evaluated=0)]
    assert "evaluated no paths" in effort_summary(effort_table(zero))


def test_connector_activation_per_question_type():
    records = _slice_records()
    table = connector_activation(records)
    frame = policy_frame(records)
    for qtype, group in frame.groupby("type"):
        assert table.loc[qtype, "questions"] == len(group)
        assert table.loc[qtype, "policy_on"] == pytest.approx(group["connectors"].mean(), abs=1e-3)
    assert table.loc["all", "questions"] == 40
    assert (table["used"] <= table["policy_on"]).all()  # a connector is only used when on


def test_budget_matched_takes_the_mean_assigned_budget_and_depth_rounded_half_up():
    medium = FIXED_POLICIES["medium"].to_dict()
    records = [
        record("mosaic", "a", policy=medium | {"evidence_budget": 8, "max_depth": 2}),
        record("mosaic", "b", policy=medium | {"evidence_budget": 13, "max_depth": 3}),
        record("mosaic", "c", policy=medium | {"evidence_budget": 10, "max_depth": 3},
               depth_reached=1),  # what a run reached does not count
        record("mosaic-fixed:wide", "a", policy=FIXED_POLICIES["wide"].to_dict()),
    ]  # fmt: skip
    name = budget_matched_name(records)  # budget (8+13+10)/3 = 10.33, depth 8/3 = 2.67
    assert name == "mosaic-budget-matched:10x3"
    policy, _, _ = parse_name(name)
    assert (policy.evidence_budget, policy.max_depth) == (10, 3)
    assert budget_matched_name(records[:2]) == "mosaic-budget-matched:11x3"  # 10.5 -> 11
    with pytest.raises(ValueError, match="run mosaic on the slice first"):
        budget_matched_name(records[3:])


def test_a_bare_budget_matched_name_becomes_the_slice_control():
    medium = FIXED_POLICIES["medium"].to_dict()
    records = [
        record("mosaic", "a", policy=medium | {"evidence_budget": 12, "max_depth": 2}),
        record("mosaic", "b", policy=medium | {"evidence_budget": 13, "max_depth": 2}),
    ]  # fmt: skip
    names = ["naive", "mosaic", "mosaic-budget-matched", "mosaic-budget-matched:13x2"]
    assert with_budget_matched(names, records) == ["naive", "mosaic", "mosaic-budget-matched:13x2"]
    assert with_budget_matched(names[:3], pd.DataFrame(records)) == [
        "naive", "mosaic", "mosaic-budget-matched:13x2"
    ]  # fmt: skip
    # without MOSAIC's policies there is no control to name: the entry is left out
    assert with_budget_matched(names[:3], [record("naive", "a")]) == ["naive", "mosaic"]


def test_histograms_cover_each_control_range_and_count_every_question():
    records = _slice_records()
    fig = policy_histograms(records)
    try:
        depth, seeds, budget = fig.axes[:3]
        lo, hi = control_range("seed_count")
        assert [t.get_text() for t in seeds.get_xticklabels()] == [str(v) for v in
                                                                   range(lo, hi + 1)]  # fmt: skip
        assert sum(p.get_height() for p in seeds.patches) == 40
        assert sum(p.get_height() for p in budget.patches) == 40
        assert sum(p.get_height() for p in depth.patches) == 80  # assigned + reached
        n = len(policy_combinations(records))
        assert f"{n} distinct policy combinations" in fig._suptitle.get_text()
    finally:
        plt.close(fig)


def test_stopping_and_effort_figures_draw_what_the_tables_hold():
    fig = stopping_figure({"q1": two_depth_trace(), "q2": make_trace([{"gain": 1.0}])})
    try:
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        assert labels == ["q1 (stop: converged)", "q2 (stop: converged)"]
    finally:
        plt.close(fig)
    table = effort_table([record("mosaic", "q", paths_evaluated=5),
                          record("mosaic-fixed:wide", "q", paths_evaluated=20)])  # fmt: skip
    fig = effort_figure(table)
    try:
        widths = sorted(round(p.get_width(), 1) for p in fig.axes[0].patches)
        assert widths[0] == -75.0 and 0.0 in widths
    finally:
        plt.close(fig)


def test_pick_questions_by_id_or_position():
    questions = load_dataset("toy").questions
    ids = [q.id for q in questions]
    assert [q.id for q in pick_questions(questions)] == ids[:3]
    picked = pick_questions(questions, [ids[4], 0, "4", ids[0]])
    assert [q.id for q in picked] == [ids[4], ids[0]]
    with pytest.raises(KeyError):
        pick_questions(questions, ["no-such-question"])
    with pytest.raises(IndexError):
        pick_questions(questions, [len(questions)])
    assert len(short_label(questions[0], 20)) == 20


def test_with_family_names_the_graph_each_method_reads():
    assert with_family(["mosaic", "mosaic-fixed:wide"]) == ["mosaic", "mosaic-fixed:wide"]
    assert with_family(["mosaic", "mosaic-fixed:wide@openie"], "openie") == [
        "mosaic@openie",
        "mosaic-fixed:wide@openie",
    ]


def test_slice_runs_reads_whole_slices_from_the_study_and_answers_the_rest(settings, toy_graph):
    questions = load_dataset("toy").questions[:2]
    wide, narrow = "mosaic-fixed:wide", "mosaic-fixed:narrow"
    first = run_methods(toy_graph, LLM(settings, client=ScriptedClient(mosaic_reply())),
                        questions, [wide, narrow], progress=None)  # fmt: skip
    for method, kept in ((wide, questions), (narrow, questions[:1])):  # narrow: partial slice
        path = results_path("toy-study", method, settings)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [r | {"answer": "from the study"} for r in first.records
                if r["method"] == method and r["id"] in {q.id for q in kept}]  # fmt: skip
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    manifest = {"dataset": "toy", "methods": {m: {"model": "smollm135m"} for m in (wide, narrow)}}
    (path.parent / "manifest.json").write_text(json.dumps(manifest))
    tier = {"model": "smollm135m"}

    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    runs = slice_runs(toy_graph, llm, questions, [wide, narrow], study="toy-study",
                      settings=settings, models=tier, traced=[wide], picked=questions[1:],
                      progress=None)  # fmt: skip
    answers = {(r["method"], r["id"]): r["answer"] for r in runs.records}
    assert list(answers) == [(m, q.id) for m in (wide, narrow) for q in questions]
    assert {answers[wide, q.id] for q in questions} == {"from the study"}
    assert "from the study" not in {answers[narrow, q.id] for q in questions}  # answered here
    assert set(runs.answers[wide]) == {questions[1].id}  # traced: the picked question only
    assert runs.traces(wide, questions)  # its trace is there for the views

    for study, models in (("", tier), ("toy-study", {"model": "another"})):  # both: live
        again = slice_runs(toy_graph, llm, questions, [wide], study=study, settings=settings,
                           models=models, progress=None)  # fmt: skip
        assert "from the study" not in {r["answer"] for r in again.records}


def test_run_methods_records_match_their_traces(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    questions = load_dataset("toy").questions[:2]
    methods = ("mosaic", "mosaic-fixed:narrow", "mosaic-fixed:wide")
    runs = run_methods(toy_graph, llm, questions, methods, progress=None)
    assert [(r["method"], r["id"]) for r in runs.records] == [
        (m, q.id) for m in methods for q in questions
    ]
    table = effort_table(runs.records)
    for method in methods:  # the table's means are the traces' own per-depth counts
        scored = [sum(s.outputs["candidates"] for s in a.trace.steps if s.kind == "traverse")
                  for a in runs.answers[method].values()]  # fmt: skip
        assert table.loc[method, "paths_evaluated"] == pytest.approx(sum(scored) / 2, abs=1e-3)
    traces = runs.traces("mosaic", questions)
    side = policy_side_by_side(traces)
    assert list(side.columns) == [short_label(q) for q in questions]
    assert set(side.loc[("policy", "per_target")]) == {"True"}  # the scripted comparison
    assert len(policy_frame(runs.records)) == 2
