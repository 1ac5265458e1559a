"""ace_lab.eval.graphragbench.run: a study's GraphRAG-Bench scores judged once and stored,
resumed, a failed judge call retried, a malformed rating stored with its fallback, a subset of
metrics judged first and the rest added, verdicts kept per statement, ROUGE-L added to old lines,
the questions taken in turn, and the per-type table with its query-count-weighted overall
checked against hand-computed numbers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ace_lab.eval.graphragbench.run import add_rouge, score_study
from ace_lab.eval.graphragbench.scoring import OVERALL
from ace_lab.eval.graphragbench.store import (
    GRB_FILE,
    context_key,
    grb_command,
    grb_table,
    grb_wide,
    load_scores,
)
from ace_lab.eval.judging.identity import prompt_fingerprint
from ace_lab.eval.studies.study import load_results, study_dir
from tests.support.grb_study import NAIVE, QUESTIONS, STUDY, Judge, SameEmbedder, write_study
from tests.support.scripted import scripted_llm

#: Studies are scored with embeddings: their cache is the test's own.
pytestmark = pytest.mark.usefixtures("private_embedding_cache")


def test_a_study_is_scored_once_stored_and_tabulated_against_hand_computed_numbers(
    grb_settings,
):
    sl = write_study(grb_settings, {"naive": NAIVE})
    judge = Judge()
    llm = scripted_llm(grb_settings, judge)
    new = score_study(STUDY, settings=grb_settings, llm=llm, embedder=SameEmbedder())
    assert len(new) == 5 and new.attrs["errors"] == 0 and new.attrs["unknown"] == 0
    assert (study_dir(STUDY, grb_settings) / GRB_FILE).is_file()
    # The study folder holds no extra *.jsonl: only the method's records are read as results.
    assert set(load_results(STUDY, grb_settings)["method"]) == {"naive"}

    scores = load_scores(STUDY, grb_settings).set_index("id")
    assert set(scores["judge_identity"]) == {llm.model_identity}
    assert set(scores["judge_model"]) == {llm.model} and set(scores["embed_model"]) == {"test:same"}
    # Context: the evidence chunk's text from the slice; the made-up id is counted missing.
    assert set(scores["context_source"]) == {"slice"}
    assert (
        scores["context_items"].tolist() == [1] * 5
        and scores["context_missing"].tolist() == [1] * 5
    )
    chunk = {p.id: p for p in sl.passages}[sl.questions[0].supporting_ids[0]]
    assert any(n == "grb_evidence_recall" and chunk.text in u for n, u in judge.asked)
    # The malformed ratings are stored with their fallback (relevancy NaN), not dropped.
    assert scores.loc["q-cs", "fallbacks"] == {"context_relevancy": ["rating1", "rating2"]}
    assert np.isnan(scores.loc["q-cs", "context_relevancy"])
    # Each type gets its own metrics: no ROUGE-L for summaries, no coverage for facts.
    assert scores.loc["q-fr1", "rouge_score"] == pytest.approx(6 / 7)
    assert scores.loc["q-cs", "rouge_score"] is None or np.isnan(scores.loc["q-cs", "rouge_score"])
    assert pd.isna(scores.loc["q-fr1", "coverage_score"])

    # A rerun with the same judge and embedder makes no call at all.
    again = score_study(
        STUDY, settings=grb_settings, llm=scripted_llm(grb_settings, []), embedder=SameEmbedder()
    )
    assert again.empty and again.attrs["errors"] == 0

    table = grb_table(
        load_results(STUDY, grb_settings), load_scores(STUDY, grb_settings), ["naive"]
    ).set_index(["metric", "type"])
    acc = table.loc["answer_correctness", "mean"]
    assert acc["Fact Retrieval"] == pytest.approx((1.0 + 0.25) / 2, abs=1e-6)
    assert acc["Complex Reasoning"] == pytest.approx(1.0, abs=1e-6)
    assert acc["Contextual Summarize"] == pytest.approx(0.25)
    # Weighted by query count: (2·0.625 + 1 + 0.25 + 1) / 5, not the mean of the four types.
    assert acc[OVERALL] == pytest.approx(3.5 / 5, abs=1e-6)
    assert table.loc[("answer_correctness", OVERALL), "n"] == 5
    rouge = table.loc["rouge_score"]
    assert set(rouge.index) == {"Fact Retrieval", "Complex Reasoning", OVERALL}
    assert rouge.loc[OVERALL, "mean"] == pytest.approx((6 / 7 + 0 + 0.8) / 3)
    cover = table.loc["coverage_score", "mean"]
    assert cover["Contextual Summarize"] == 0.5 and cover[OVERALL] == pytest.approx(0.75)
    relevancy = table.loc["context_relevancy"]
    assert relevancy.loc[OVERALL, "n"] == 4  # the summary's ratings were malformed: missing
    assert relevancy.loc["Contextual Summarize", "mean [95% CI]"].startswith("missing: no valid")
    assert table.loc[("evidence_recall", OVERALL), "mean"] == pytest.approx(0.5)
    row = table.loc[("answer_correctness", "Fact Retrieval")]
    assert row["low"] <= row["mean"] <= row["high"] and row["mean [95% CI]"].startswith("0.625 [")
    assert row["judge_model"] == llm.model and row["embed_model"] == "test:same"
    assert row["judge_identity"] == llm.model_identity and (row["scored"], row["answers"]) == (5, 5)
    assert pd.isna(table.loc[("rouge_score", OVERALL), "judge_model"])  # ROUGE-L: no judge
    wide = grb_wide(table.reset_index(), "answer_correctness")
    assert list(wide.columns) == [
        "method",
        "Fact Retrieval",
        "Complex Reasoning",
        "Contextual Summarize",
        "Creative Generation",
        OVERALL,
        "judge_model",
        "embed_model",
    ]


def test_a_failed_call_is_retried_and_a_changed_answer_scored_again(grb_settings):
    write_study(grb_settings, {"hirag": {"q-fr1": "Flaky basal", "q-cg": "Right a mole"}})
    judge = Judge()
    judge.down = True
    embedder = SameEmbedder()
    llm = scripted_llm(grb_settings, judge)
    first = score_study(STUDY, ["hirag"], settings=grb_settings, llm=llm, embedder=embedder)
    assert first.attrs["errors"] == 1 and first["id"].tolist() == ["q-cg"]
    assert load_scores(STUDY, grb_settings)["id"].tolist() == ["q-cg"]  # the failure: not stored
    judge.down, judge.asked = False, []
    retry = score_study(STUDY, ["hirag"], settings=grb_settings, llm=llm, embedder=embedder)
    assert retry["id"].tolist() == ["q-fr1"] and retry.attrs["errors"] == 0
    assert not any(n.startswith("grb_coverage") for n, _ in judge.asked)  # q-cg not redone
    # A method rerun changes an answer: only that answer is scored again, the stale score no
    # longer counts in the table.
    write_study(
        grb_settings, {"hirag": {"q-fr1": "Right basal cell carcinoma", "q-cg": "Right a mole"}}
    )
    rescored = score_study(STUDY, settings=grb_settings, llm=llm, embedder=embedder)
    assert rescored["id"].tolist() == ["q-fr1"]
    table = grb_table(
        load_results(STUDY, grb_settings), load_scores(STUDY, grb_settings), ["hirag", "absent"]
    ).set_index(["metric", "type"])
    assert set(table["method"]) == {"hirag"}
    assert table.loc[("answer_correctness", "Fact Retrieval"), "mean"] == pytest.approx(1.0)
    assert table.loc[("answer_correctness", OVERALL), "n"] == 2
    # Another embedder is another score: everything is scored again under its name.
    other = type("Other", (SameEmbedder,), {"model_id": "test:other"})()
    assert len(score_study(STUDY, settings=grb_settings, llm=llm, embedder=other)) == 2
    df, scores = load_results(STUDY, grb_settings), load_scores(STUDY, grb_settings)
    both = grb_table(df, scores, ["hirag"])
    assert set(both["embed_model"].dropna()) == {"test:other, test:same"}
    one = grb_table(
        df, scores, ["hirag"], embed_model="test:other", judge_identity=llm.model_identity
    )
    assert set(one["embed_model"].dropna()) == {"test:other"}
    overall = ("answer_correctness", OVERALL)
    assert one.set_index(["metric", "type"]).loc[overall, "n"] == 2
    assert both.set_index(["metric", "type"]).loc[overall, "n"] == 4  # two scores per answer


def test_a_study_on_another_data_set_is_refused(grb_settings):
    folder = study_dir(STUDY, grb_settings)
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"dataset": "toy", "n": 2, "seed": 0}))
    (folder / "naive.jsonl").write_text(
        json.dumps({"id": "x", "position": 0, "method": "naive", "answer": "a"}) + "\n"
    )
    llm = scripted_llm(grb_settings, [])
    with pytest.raises(ValueError, match="not a GraphRAG-Bench set"):
        score_study(STUDY, settings=grb_settings, llm=llm, embedder=SameEmbedder())
    assert grb_table(
        load_results(STUDY, grb_settings), load_scores(STUDY, grb_settings), ["naive"]
    ).empty
    assert grb_command(STUDY, ["naive"]) == f"ace-lab grb-score --study {STUDY} --methods naive"


def test_a_subset_of_metrics_is_judged_first_and_the_rest_added_to_the_same_lines(grb_settings):
    write_study(grb_settings, {"naive": NAIVE})
    judge = Judge()
    llm = scripted_llm(grb_settings, judge)
    embedder = SameEmbedder()
    with pytest.raises(ValueError, match="unknown GraphRAG-Bench metric"):
        score_study(STUDY, settings=grb_settings, llm=llm, embedder=embedder, metrics=["bleu"])
    with pytest.raises(ValueError, match="no metric named"):
        score_study(STUDY, settings=grb_settings, llm=llm, embedder=embedder, metrics=[])
    first = score_study(
        STUDY, settings=grb_settings, llm=llm, embedder=embedder, metrics=["answer_correctness"]
    )
    assert len(first) == 5
    assert {n for n, _ in judge.asked} == {"grb_statements", "grb_correctness"}
    scores = load_scores(STUDY, grb_settings).set_index("id")
    assert all(h == ["answer_correctness"] for h in scores["holds"])
    assert pd.isna(scores.loc["q-fr1", "rouge_score"]) and pd.isna(
        scores.loc["q-cr", "evidence_recall"]
    )
    # The same subset again: nothing to judge.
    assert score_study(
        STUDY, settings=grb_settings, llm=llm, embedder=embedder, metrics=["answer_correctness"]
    ).empty
    # Every metric now: only the missing ones are judged, ACC is kept from the first run.
    judge.asked = []
    second = score_study(STUDY, settings=grb_settings, llm=llm, embedder=embedder)
    assert len(second) == 5
    assert not {n for n, _ in judge.asked} & {"grb_statements", "grb_correctness"}
    merged = load_scores(STUDY, grb_settings).set_index("id")
    assert len(merged) == 5
    assert merged.loc["q-fr1", "holds"] == [
        "answer_correctness",
        "rouge_score",
        "evidence_recall",
        "context_relevancy",
    ]
    assert merged.loc["q-cs", "fallbacks"] == {"context_relevancy": ["rating1", "rating2"]}
    table = grb_table(
        load_results(STUDY, grb_settings), load_scores(STUDY, grb_settings), ["naive"]
    ).set_index(["metric", "type"])
    assert table.loc[("answer_correctness", OVERALL), "mean"] == pytest.approx(3.5 / 5, abs=1e-6)
    assert table.loc[("evidence_recall", OVERALL), "mean"] == pytest.approx(0.5)
    assert score_study(STUDY, settings=grb_settings, llm=llm, embedder=embedder).empty
    # each line names the prompt of every judged metric it holds (the judge's full identity)
    prompts = merged.loc["q-fr1", "judge_prompts"]
    assert prompts == {
        m: prompt_fingerprint(m) for m in ("acc_statements", "evidence_recall", "context_relevancy")
    }
    # a metric judged with another prompt is judged again, the others kept
    path = study_dir(STUDY, grb_settings) / GRB_FILE
    lines = [json.loads(t) for t in path.read_text().splitlines()]
    for line in lines:
        line["judge_prompts"] = {**line["judge_prompts"], "evidence_recall": "an-older-prompt"}
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rescored = score_study(STUDY, settings=grb_settings, llm=llm, embedder=embedder)
    holding = [line for line in lines if "evidence_recall" in line["holds"]]
    assert len(rescored) == len(holding) > 0
    fresh = load_scores(STUDY, grb_settings)
    assert {p["evidence_recall"] for p in fresh["judge_prompts"] if "evidence_recall" in p} == {
        prompt_fingerprint("evidence_recall")
    }


def test_verdicts_are_stored_per_statement_and_kept_when_metrics_are_added(grb_settings):
    write_study(grb_settings, {"naive": NAIVE})
    llm = scripted_llm(grb_settings, Judge())
    embedder = SameEmbedder()
    score_study(
        STUDY, settings=grb_settings, llm=llm, embedder=embedder, metrics=["evidence_recall"]
    )
    score_study(STUDY, settings=grb_settings, llm=llm, embedder=embedder)
    scores = load_scores(STUDY, grb_settings).set_index("id")
    verdicts = scores.loc["q-fr1", "verdicts"]
    assert verdicts["evidence_recall"] == [
        {"statement": "e1", "verdict": 1, "reason": ""},
        {"statement": "e2", "verdict": 0, "reason": ""},
    ]  # from the first run, kept by the second
    assert verdicts["answer_correctness"][0]["verdict"] == "TP"
    assert [v["verdict"] for v in verdicts["context_relevancy"]] == [2.0, 2.0]
    creative = scores.loc["q-cg"]
    assert creative["faithfulness"] == 1.0
    assert creative["verdicts"]["faithfulness"] == [
        {"statement": "a1", "verdict": 1, "reason": "said"}
    ]
    assert creative["verdicts"]["coverage_score"][1] == {
        "statement": "f2",
        "verdict": 1,
        "reason": "",
    }


def test_rouge_is_added_to_old_lines_without_a_judge(grb_settings):
    sl = write_study(grb_settings, {"naive": NAIVE})
    path = study_dir(STUDY, grb_settings) / GRB_FILE
    path.parent.mkdir(parents=True)
    old = []  # lines as stored before verdicts, faithfulness and ROUGE-L were kept
    for q in sl.questions:
        line = {"method": "naive", "id": q.id, "type": q.type, "answer": NAIVE[q.id]}
        line["context_key"] = context_key([q.supporting_ids[0], "ent:made-up"])
        line |= {"answer_correctness": 0.5, "rouge_score": None, "fallbacks": {}}
        line |= {"judge_model": "qwen1.5b", "judge_identity": "judge-x", "embed_model": "st:x"}
        old.append(line | {"holds": ["answer_correctness"], "scored": "2026-01-01T00:00:00Z"})
    path.write_text("".join(json.dumps(line) + "\n" for line in old))
    assert load_scores(STUDY, grb_settings)["verdicts"].isna().all()  # old rows still load
    new = add_rouge(STUDY, grb_settings).set_index("id")
    assert set(new.index) == {"q-fr1", "q-fr2", "q-cr"}  # the two types that use ROUGE-L
    assert new.loc["q-fr1", "rouge_score"] == pytest.approx(6 / 7)
    assert new.loc["q-cr", "rouge_score"] == pytest.approx(0.8)
    assert new.loc["q-fr1", "holds"] == ["answer_correctness", "rouge_score"]
    assert set(new["judge_identity"]) == {"judge-x"} and set(new["answer_correctness"]) == {0.5}
    assert add_rouge(STUDY, grb_settings).empty  # nothing left to add
    table = grb_table(
        load_results(STUDY, grb_settings), load_scores(STUDY, grb_settings), ["naive"]
    )
    rouge = table[table["metric"] == "rouge_score"].set_index("type")
    assert rouge.loc[OVERALL, "mean"] == pytest.approx((6 / 7 + 0 + 0.8) / 3)


def test_by_question_scores_the_slice_question_by_question(grb_settings, monkeypatch):
    from ace_lab.cli import main

    write_study(grb_settings, {"naive": NAIVE})
    calls: list[dict] = []
    stub = pd.DataFrame()
    stub.attrs.update(errors=0)

    def fake(*args, **kwargs):
        calls.append(kwargs)
        return stub

    monkeypatch.setattr("ace_lab.eval.graphragbench.run.score_study", fake)
    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(grb_settings.results_dir))
    main(["grb-score", "--study", STUDY, "--metrics", "evidence_recall"])
    main(["grb-score", "--study", STUDY, "--metrics", "evidence_recall", "--by-question"])
    main(["grb-score", "--study", STUDY, "--metrics", "evidence_recall", "--per-type", "1"])
    assert calls[0]["ids"] is None
    types = {q[0]: q[1] for q in QUESTIONS}
    ids = calls[1]["ids"]
    assert sorted(ids) == sorted(NAIVE)  # every question once, the types taken in turn:
    assert len({types[qid] for qid in ids[:4]}) == 4 and types[ids[4]] == "Fact Retrieval"
    assert calls[2]["ids"] == ids[:4]  # --per-type 1: the first question of each type
