"""ace_lab.mosaic.report.runs: the methods over a slice, in process on the toy graph."""

from __future__ import annotations

import json

import pytest

from ace_lab.data import load_dataset
from ace_lab.eval.studies.study import results_path
from ace_lab.llm import LLM
from ace_lab.mosaic.report.effort import effort_table
from ace_lab.mosaic.report.policies import policy_frame, policy_side_by_side
from ace_lab.mosaic.report.runs import (
    run_methods,
    short_label,
    slice_runs,
    with_family,
)
from ace_lab.mosaic.report.steps import payloads
from ace_lab.mosaic.steps import TraversalDepth
from tests.support.replies import mosaic_reply
from tests.support.scripted import ScriptedClient


def test_with_family_names_the_graph_each_method_reads():
    assert with_family(["mosaic", "mosaic-fixed:wide"]) == ["mosaic", "mosaic-fixed:wide"]
    assert with_family(["mosaic", "mosaic-fixed:wide@openie"], "openie") == [
        "mosaic@openie",
        "mosaic-fixed:wide@openie",
    ]


def test_slice_runs_reads_whole_slices_from_the_study_and_answers_the_rest(settings, toy_graph):
    questions = load_dataset("toy").questions[:2]
    wide, narrow = "mosaic-fixed:wide", "mosaic-fixed:narrow"
    first = run_methods(
        toy_graph,
        LLM(settings, client=ScriptedClient(mosaic_reply())),
        questions,
        [wide, narrow],
        progress=None,
    )
    for method, kept in ((wide, questions), (narrow, questions[:1])):  # narrow: partial slice
        path = results_path("toy-study", method, settings)
        path.parent.mkdir(parents=True, exist_ok=True)
        rows = [
            r | {"answer": "from the study"}
            for r in first.records
            if r["method"] == method and r["id"] in {q.id for q in kept}
        ]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    manifest = {"dataset": "toy", "methods": {m: {"model": "smollm135m"} for m in (wide, narrow)}}
    (path.parent / "manifest.json").write_text(json.dumps(manifest))
    tier = {"model": "smollm135m"}

    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    runs = slice_runs(
        toy_graph,
        llm,
        questions,
        [wide, narrow],
        study="toy-study",
        settings=settings,
        models=tier,
        traced=[wide],
        picked=questions[1:],
        progress=None,
    )
    answers = {(r["method"], r["id"]): r["answer"] for r in runs.records}
    assert list(answers) == [(m, q.id) for m in (wide, narrow) for q in questions]
    assert {answers[wide, q.id] for q in questions} == {"from the study"}
    assert "from the study" not in {answers[narrow, q.id] for q in questions}  # answered here
    assert set(runs.answers[wide]) == {questions[1].id}  # traced: the picked question only
    assert runs.traces(wide, questions)  # its trace is there for the views

    for study, models in (("", tier), ("toy-study", {"model": "another"})):  # both: live
        again = slice_runs(
            toy_graph,
            llm,
            questions,
            [wide],
            study=study,
            settings=settings,
            models=models,
            progress=None,
        )
        assert "from the study" not in {r["answer"] for r in again.records}


def test_run_methods_records_match_their_traces(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    questions = load_dataset("toy").questions[:2]
    methods = ("mosaic:signals", "mosaic-fixed:narrow", "mosaic-fixed:wide")
    runs = run_methods(toy_graph, llm, questions, methods, progress=None)
    assert [(r["method"], r["id"]) for r in runs.records] == [
        (m, q.id) for m in methods for q in questions
    ]
    table = effort_table(runs.records)
    for method in methods:  # the table's means are the traces' own per-depth counts
        scored = [
            sum(d.candidates for d in payloads(a.trace, TraversalDepth))
            for a in runs.answers[method].values()
        ]
        assert table.loc[method, "paths_evaluated"] == pytest.approx(sum(scored) / 2, abs=1e-3)
    traces = runs.traces("mosaic:signals", questions)
    side = policy_side_by_side(traces)
    assert list(side.columns) == [short_label(q) for q in questions]
    assert set(side.loc[("policy", "per_target")]) == {"True"}  # the scripted comparison
    assert len(policy_frame(runs.records, "mosaic:signals")) == 2


def test_short_labels_fit_their_width():
    questions = load_dataset("toy").questions
    assert len(short_label(questions[0], 20)) == 20
