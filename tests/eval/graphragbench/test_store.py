"""ace_lab.eval.graphragbench.store / _context: a study's GraphRAG-Bench scores judged once and
stored, resumed, a failed judge call retried, a malformed rating stored with its fallback, the
context texts recovered from the slice or the graph, and the per-type table with its
query-count-weighted overall checked against hand-computed numbers."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ace_lab.data import load_dataset, make_slice
from ace_lab.data.graphragbench import QUESTION_TYPES
from ace_lab.eval.graphragbench.context import StudyContext, evidence_text
from ace_lab.eval.graphragbench.run import add_rouge, score_study
from ace_lab.eval.graphragbench.scoring import IMPLEMENTED, OVERALL
from ace_lab.eval.graphragbench.store import (
    GRB_FILE,
    SCORE_COLUMNS,
    context_key,
    grb_command,
    grb_paired,
    grb_table,
    grb_wide,
    load_scores,
)
from ace_lab.eval.judging.identity import prompt_fingerprint
from ace_lab.eval.studies.study import load_results, study_dir
from ace_lab.llm import LLMError
from ace_lab.prompts import load_prompt
from tests.support.scripted import scripted_llm

STUDY = "grb-tiny"
DATASET = "graphragbench_medical"
_TOPICS = {
    "basal": "basal cell carcinoma skin cancer epidermis",
    "melanoma": "melanoma pigment mole spread lymph",
    "sun": "sun exposure ultraviolet burn shade",
    "surgery": "surgery excision margin scar healing",
    "story": "poem imagination story character voice",
}
#: (id, type, question, gold answer, evidence statements)
QUESTIONS = [
    ("q-fr1", "Fact Retrieval", "Which is the most common skin cancer?",
     "basal cell carcinoma", "Basal cell carcinoma is common; It arises in the epidermis"),
    ("q-fr2", "Fact Retrieval", "Which cancer comes from pigment cells?",
     "melanoma", "Melanoma arises from pigment cells"),
    ("q-cr", "Complex Reasoning", "What raises the risk of skin cancer?",
     "sun exposure", "Ultraviolet sun exposure burns skin; Burns raise the risk"),
    ("q-cs", "Contextual Summarize", "Summarize how surgery treats skin cancer.",
     "Surgery removes the tumour with a margin.", "Excision removes the tumour"),
    ("q-cg", "Creative Generation", "Write a short story about a mole.",
     "A mole told its story in a poem.", "A mole can change"),
]  # fmt: skip
#: What "naive" answers: a "Right …" answer is judged correct, anything else wrong.
NAIVE = {
    "q-fr1": "Right basal cell carcinoma",  # ROUGE-L: LCS 3 of 4 / 3 tokens -> F = 6/7
    "q-fr2": "Wrong guess",  # ROUGE-L 0
    "q-cr": "Right sun exposure",  # ROUGE-L: LCS 2 of 3 / 2 tokens -> F = 0.8
    "q-cs": "Wrong summary",
    "q-cg": "Right a mole poem",
}
PROMPTS = (
    *("grb_statements", "grb_correctness", "grb_coverage_facts", "grb_coverage"),
    *("grb_evidence_recall", "grb_context_relevance", "grb_faithfulness"),
)


@pytest.fixture(autouse=True)
def _private_embedding_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACE_LAB_CACHE_DIR", str(tmp_path / "embed-cache"))


class SameEmbedder:
    """Every text on one axis: cosine 1, so ACC's similarity part is exactly 1."""

    model_id = "test:same"
    dim = 2

    def encode(self, texts: list[str]) -> Any:
        return np.tile(np.asarray([1.0, 0.0], dtype=np.float32), (len(texts), 1))


class Judge:
    """Plays the GraphRAG-Bench judge (see NAIVE); malformed relevance ratings for the
    Contextual Summarize question; raises LLMError for an answer containing "Flaky" while
    ``down``. Records every (prompt, user message)."""

    def __init__(self) -> None:
        self.by_system = {load_prompt(name).system: name for name in PROMPTS}
        self.asked: list[tuple[str, str]] = []
        self.down = False

    def __call__(self, kwargs: dict) -> Any:
        name = self.by_system[kwargs["messages"][0]["content"]]
        user = kwargs["messages"][-1]["content"]
        self.asked.append((name, user))
        if self.down and "Flaky" in user:
            return LLMError("judge server down")
        if name == "grb_statements":
            return json.dumps({"statements": [user.split("Answer: ", 1)[1]]})
        if name == "grb_correctness":
            line = user.split("Answer statements: ", 1)[1].split("\n", 1)[0]
            one = [{"statement": "s", "reason": ""}]
            verdict = {"TP": one} if "Right" in line else {"FP": one, "FN": one}
            return json.dumps(verdict)
        if name == "grb_coverage_facts":
            return json.dumps({"facts": ["f1", "f2"]})
        if name == "grb_coverage":
            second = 1 if 'Response: "Right' in user else 0
            items = [
                {"statement": "f1", "attributed": 1},
                {"statement": "f2", "attributed": second},
            ]
            return json.dumps({"classifications": items})
        if name == "grb_faithfulness":
            items = [{"statement": "a1", "reason": "said", "verdict": 1}]
            return json.dumps({"classifications": items})
        if name == "grb_evidence_recall":
            items = [{"statement": "e1", "attributed": 1}, {"statement": "e2", "attributed": 0}]
            return json.dumps({"classifications": items})
        return "a rating of two" if "Summarize" in user else json.dumps({"score": 2})


def _document() -> str:
    # One topic per ~200-word piece, so each topic lands in its own chunk.
    return " ".join(" ".join([words] * 40) for words in _TOPICS.values())


@pytest.fixture
def grb_settings(settings, tmp_path):
    folder = tmp_path / "data" / DATASET
    folder.mkdir(parents=True)
    corpus = [{"id": "Medical", "title": "Medical", "text": _document()}]
    questions = [
        {
            "id": i,
            "source": "Medical",
            "question": q,
            "answer": a,
            "question_type": t,
            "evidence": e,
        }
        for i, t, q, a, e in QUESTIONS
    ]
    (folder / "corpus.json").write_text(json.dumps(corpus))
    (folder / "questions.json").write_text(json.dumps(questions))
    return replace(settings, data_dir=tmp_path / "data")


def _slice(settings):
    return make_slice(load_dataset(DATASET, settings.data_dir), len(QUESTIONS), seed=0)


def _write_study(settings, answers: dict[str, dict[str, str]], **extra: Any) -> Any:
    sl = _slice(settings)
    folder = study_dir(STUDY, settings)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"dataset": DATASET, "n": len(QUESTIONS), "seed": 0, "slice_id": sl.slice_id}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    position = {q.id: i for i, q in enumerate(sl.questions)}
    by_id = {q.id: q for q in sl.questions}
    for method, given in answers.items():
        rows = [
            {
                "id": qid,
                "position": position[qid],
                "method": method,
                "type": by_id[qid].type,
                "question": by_id[qid].question,
                "gold": [by_id[qid].answer],
                "answer": answer,
                "context_ids": [by_id[qid].supporting_ids[0], "ent:made-up"],
                **extra,
            }
            for qid, answer in given.items()
        ]
        (folder / f"{method}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return sl


def test_a_study_is_scored_once_stored_and_tabulated_against_hand_computed_numbers(
    grb_settings,
):
    sl = _write_study(grb_settings, {"naive": NAIVE})
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
    _write_study(grb_settings, {"hirag": {"q-fr1": "Flaky basal", "q-cg": "Right a mole"}})
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
    _write_study(
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


def test_stored_context_texts_are_used_as_they_are(grb_settings):
    _write_study(
        grb_settings,
        {"naive": {"q-fr2": "melanoma"}},
        context_texts=["Melanoma arises from pigment cells."],
    )
    judge = Judge()
    llm = scripted_llm(grb_settings, judge)
    new = score_study(STUDY, settings=grb_settings, llm=llm, embedder=SameEmbedder())
    assert new.loc[0, "context_source"] == "record" and new.loc[0, "context_missing"] == 0
    relevance = [u for n, u in judge.asked if n == "grb_context_relevance"]
    assert relevance and all("Context: Melanoma arises from pigment cells." in u for u in relevance)


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


def test_evidence_texts_come_from_the_graphs_evidence_makers():
    from ace_lab.graph.seeds import SeedIndexes
    from ace_lab.graph.tables import GraphTables
    from ace_lab.retrieval import RetrievalGraph

    nodes = [
        {"id": "c1", "label": "Chunk", "name": "Doc", "description": "Alpha met Beta."},
        {"id": "a", "label": "Entity", "name": "Alpha", "type": "person",
         "description": "A sailor."},
        {"id": "b", "label": "Entity", "name": "Beta", "description": "A port."},
        {"id": "k1", "label": "Community", "name": "Harbour", "description": "Sailors meet."},
    ]  # fmt: skip
    edges = [{"id": "r1", "source": "a", "target": "b", "type": "RELATION", "predicate": "met"}]
    tables = GraphTables.from_records(nodes, edges, {"family": "test"})
    graph = RetrievalGraph(tables, SeedIndexes(None, None, None), embedder=SameEmbedder())
    assert evidence_text(graph, "c1") == "Doc: Alpha met Beta."
    assert evidence_text(graph, "r1") == graph.relation_evidence("r1").text
    assert evidence_text(graph, "a") == graph.entity_evidence("a").text
    assert evidence_text(graph, "k1") == "Harbour: Sailors meet."
    assert evidence_text(graph, "path:a|b") == graph.path_evidence(["a", "b"]).text
    assert evidence_text(graph, "path:a|zz") is None and evidence_text(graph, "row:1") is None


def test_the_graph_of_the_method_is_read_when_it_is_built(grb_settings):
    from ace_lab.graph.build import model_label, run_dir
    from ace_lab.graph.tables import GraphTables

    sl = _write_study(grb_settings, {"naive": {"q-fr2": "melanoma"}})
    chunk = sl.questions[0].supporting_ids[0]
    nodes = [{"id": chunk, "label": "Chunk", "name": "Medical", "description": "graph text"}]
    tables = GraphTables.from_records(nodes, [], {"family": "hierarchical"})
    out = run_dir(grb_settings, sl.slice_id, "hierarchical", model_label("qwen1.5b"))
    tables.save(out / "tables")
    context = StudyContext(STUDY, grb_settings, SameEmbedder())
    got = context.texts({"method": "naive", "context_ids": [chunk, "nowhere"]})
    assert (got.texts, got.source, got.missing) == (
        ("Medical: graph text",),
        "graph:hierarchical",
        1,
    )


def test_the_cli_prints_one_table_per_metric(grb_settings, tmp_path, monkeypatch, capsys):
    from ace_lab.cli import main

    _write_study(grb_settings, {"naive": NAIVE})
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


def test_a_subset_of_metrics_is_judged_first_and_the_rest_added_to_the_same_lines(grb_settings):
    _write_study(grb_settings, {"naive": NAIVE})
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


def test_notebook_06s_section_shows_the_reported_metrics_and_exports_the_table(
    grb_settings, tmp_path, capsys, monkeypatch
):
    from ace_lab.eval.graphragbench.store import show_study
    from ace_lab.eval.reporting.report import StudyReport

    shown: list[str] = []
    monkeypatch.setattr(StudyReport, "show", lambda self, table, title="": shown.append(title))
    _write_study(grb_settings, {"naive": NAIVE, "hirag": {"q-fr1": "Right basal"}})
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


def test_verdicts_are_stored_per_statement_and_kept_when_metrics_are_added(grb_settings):
    _write_study(grb_settings, {"naive": NAIVE})
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
    sl = _write_study(grb_settings, {"naive": NAIVE})
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

    _write_study(grb_settings, {"naive": NAIVE})
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
