"""ace_lab.eval.graphragbench.store: the tables of a study's stored scores (one per metric from
the CLI, notebook 06's section and its export) and Answer Correctness paired against a baseline
on the questions both methods have scored."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.data.graphragbench import QUESTION_TYPES
from ace_lab.eval.graphragbench.run import score_study
from ace_lab.eval.graphragbench.scoring import IMPLEMENTED, OVERALL
from ace_lab.eval.graphragbench.store import (
    SCORE_COLUMNS,
    context_key,
    grb_paired,
)
from tests.support.grb_study import NAIVE, STUDY, Judge, SameEmbedder, write_study
from tests.support.scripted import scripted_llm

#: Studies are scored with embeddings: their cache is the test's own.
pytestmark = pytest.mark.usefixtures("private_embedding_cache")


def test_the_cli_prints_one_table_per_metric(grb_settings, tmp_path, monkeypatch, capsys):
    from ace_lab.cli import main

    write_study(grb_settings, {"naive": NAIVE})
    llm = scripted_llm(grb_settings, Judge())
    score_study(STUDY, settings=grb_settings, llm=llm, embedder=SameEmbedder())
    stub = pd.DataFrame()
    stub.attrs.update(errors=0, judge_identity=llm.model_identity, embed_model="test:same")
    monkeypatch.setattr("ace_lab.eval.graphragbench.run.score_study", lambda *a, **k: stub)
    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(grb_settings.results_dir))
    assert main(["grb-score", "--study", STUDY]) == 0
    out = capsys.readouterr().out
    assert "## answer_correctness" in out and "## rouge_score" in out and llm.model in out
    assert "0.700" in out  # the weighted overall ACC


def test_notebook_06s_section_shows_the_reported_metrics_and_exports_the_table(
    grb_settings, tmp_path, capsys, monkeypatch
):
    from ace_lab.eval.graphragbench.store import show_study
    from ace_lab.eval.reporting.report import StudyReport

    shown: list[str] = []
    monkeypatch.setattr(StudyReport, "show", lambda self, table, title="": shown.append(title))
    write_study(grb_settings, {"naive": NAIVE, "hirag": {"q-fr1": "Right basal"}})
    report = StudyReport(grb_settings, tmp_path / "tables")
    (info,) = report.load_studies([STUDY], ["naive", "hirag"]).values()
    assert show_study(report, info, ["naive", "hirag"]).empty  # nothing scored yet
    assert f"ace-lab grb-score --study {STUDY} --methods naive hirag" in capsys.readouterr().out
    llm = scripted_llm(grb_settings, Judge())
    score_study(
        STUDY,
        ["naive"],
        settings=grb_settings,
        llm=llm,
        embedder=SameEmbedder(),
        metrics=["answer_correctness", "evidence_recall"],
    )
    table = show_study(report, info, ["naive", "hirag"])
    assert set(table["method"]) == {"naive"}
    # every metric of the benchmark has its rows: the ones not judged yet say so, never 0
    assert set(table["metric"]) == set(IMPLEMENTED)
    unscored = table[~table["metric"].isin(["answer_correctness", "evidence_recall"])]
    assert unscored["mean [95% CI]"].str.startswith("missing: not scored yet").all()
    assert unscored["mean"].isna().all()
    assert "naive 5/5" in capsys.readouterr().out
    kinds = [*QUESTION_TYPES, OVERALL]
    assert shown == [f"{info.label}: {kind}, mean [95% CI] n" for kind in kinds]
    written = pd.read_csv(tmp_path / "tables" / STUDY / "graphragbench.csv")
    assert len(written) == len(table)
    # With a baseline: Answer Correctness against it on the questions both have scored.
    score_study(
        STUDY,
        ["hirag"],
        settings=grb_settings,
        llm=llm,
        embedder=SameEmbedder(),
        metrics=["answer_correctness"],
    )
    shown.clear()
    show_study(report, info, ["naive", "hirag"], baseline="naive")
    assert shown[-1] == f"{info.label}: Answer Correctness against naive (paired)"
    paired = pd.read_csv(tmp_path / "tables" / STUDY / "graphragbench_paired.csv")
    assert paired["method"].tolist() == ["hirag"]
    assert paired["n"].tolist() == [1]  # hirag answered one question


def test_paired_answer_correctness_counts_only_questions_both_methods_have_scored_now():
    def rec(method, qid, answer, tokens):
        return {
            "method": method,
            "id": qid,
            "answer": answer,
            "context_ids": [qid],
            "context_tokens": tokens,
        }

    def score(method, qid, answer, acc):
        line = dict.fromkeys(SCORE_COLUMNS)
        line.update(
            method=method,
            id=qid,
            answer=answer,
            answer_correctness=acc,
            context_key=context_key([qid]),
            judge_identity="j",
        )
        return line

    df = pd.DataFrame(
        [
            rec("mosaic", "a", "A", 600),
            rec("mosaic", "b", "B", 700),
            rec("mosaic", "c", "C", 800),
            rec("naive", "a", "x", 1500),
            rec("naive", "b", "y", 1500),
            rec("naive", "c", "z", 1500),
        ]
    )
    scores = pd.DataFrame(
        [
            score("mosaic", "a", "A", 0.9),
            score("mosaic", "b", "B", 0.5),
            score("mosaic", "c", "C", 0.7),
            score("naive", "a", "x", 0.6),
            score("naive", "b", "y", 0.7),
            score("naive", "c", "an answer naive no longer gives", 0.0),  # not counted
        ]
    )
    paired = grb_paired(df, scores, "mosaic", ["naive", "hirag"]).set_index("method")
    assert list(paired.index) == ["naive"]  # hirag has no scores: no row
    row = paired.loc["naive"]
    assert row["n"] == 2  # question c: naive's stored score is of another answer
    assert row["ANSWER_CORRECTNESS"] == pytest.approx(0.65)
    assert row["ANSWER_CORRECTNESS_baseline"] == pytest.approx(0.7)
    assert row["diff"] == pytest.approx(-0.05)
    assert row["context_tokens"] == pytest.approx(1500)
    assert row["context_tokens_baseline"] == pytest.approx(650)
    assert grb_paired(df, scores, "hirag", ["naive"]).empty  # the baseline has no scores
