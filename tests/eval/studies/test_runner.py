"""ace_lab.eval.studies.runner: a method over a slice (records, manifest, resume, failures, order)
on the toy graph with a scripted LLM."""

from __future__ import annotations

import json

import pytest

from ace_lab.data import load_dataset, make_slice
from ace_lab.data.records import Question
from ace_lab.eval.studies.runner import run, select_questions
from ace_lab.eval.studies.study import (
    ResultsError,
    load_results,
    read_jsonl,
    results_path,
    safe_name,
    study_dir,
)
from ace_lab.llm import LLM
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient

RECORD_KEYS = {
    "position", "id", "question", "type", "gold", "answer", "raw", "reader", "em", "f1", "yes_no",
    "context_tokens", "context_ids", "context_texts", "context_has_answer", "base_has_answer",
    "supporting_ids", "passage_recall", "provenance_recall",
    "answer_coverage", "supporting_fact_recall", "context_llm_tokens", "evidence_only",
    "method", "details", "retrieval_calls", "llm_calls",
    "model_calls", "cache_hits", "input_tokens", "output_tokens", "server_cached_tokens",
    "wall_s", "cold_wall_s", "llm_s", "steps", "model_identity", "config_hash",
}  # fmt: skip


# ------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def toy_questions() -> list:
    return make_slice(load_dataset("toy"), 8).questions


class Failing:
    """The scripted model, raising (not a transient error) while ``fail_on`` is in the prompt."""

    def __init__(self, fail_on: str | None) -> None:
        self.fail_on = fail_on

    def __call__(self, kwargs: dict) -> str | BaseException:
        user = kwargs["messages"][-1]["content"]
        if self.fail_on and self.fail_on in user:
            return RuntimeError("model fell over")
        return ace_reply(kwargs)


# ------------------------------------------------------------------------------------ run
def test_run_records_manifest_and_resume(settings, toy_graph, toy_questions):
    client = ScriptedClient(ace_reply)
    llm = LLM(settings, client=client)
    kwargs = {"settings": settings, "llm": llm, "graph": toy_graph, "progress": False}
    hirag = run("hirag", "toy", 8, limit=5, **kwargs)
    ace = run("ace-full", "toy", 8, limit=5, **kwargs)

    study = "toy-n8-s0"
    assert results_path(study, "hirag", settings).is_file()
    assert list(hirag["id"]) == [q.id for q in toy_questions[:5]]
    assert list(hirag["position"]) == list(range(5))
    assert set(hirag["reader"]) == set(ace["reader"]) == {"tagged"}  # the answer_qa call
    ace_columns = {"policy", "topology", "router", "plan"}  # the columns ACE's details own
    for frame, calls, retrievals, own in ((hirag, 1, 1, set()), (ace, 2, 3, ace_columns)):
        assert set(frame.columns) == RECORD_KEYS | own
        assert (frame["llm_calls"] == calls).all() and (
            frame["retrieval_calls"] == retrievals
        ).all()
        assert (frame["input_tokens"] == 11 * calls).all()  # ScriptedClient: 11 prompt tokens
        assert (frame["model_calls"] == calls).all() and (frame["cache_hits"] == 0).all()
        assert (frame["answer"] == "Brinemouth").all()
        assert frame["context_ids"].map(len).min() > 0
    first = ace.iloc[0]
    assert first["gold"] == list(toy_questions[0].answers)
    hits = ace[ace["gold"].map(lambda g: g == ["Brinemouth"])]
    assert (hits["em"] == 1.0).all() and (hits["f1"] == 1.0).all()
    assert (ace.loc[ace.index.difference(hits.index), "em"] == 0.0).all()
    assert first["context_has_answer"] in (True, False) and first["base_has_answer"] in (
        True,
        False,
    )
    assert first["policy"]["label"] == "gap+depth+breadth+prune" and first["topology"] is None
    assert first["plan"]["queries"]["depth"] == "tidal lantern museum"
    assert [s["name"] for s in first["steps"]][-1] == "generate"
    assert {"name", "elapsed", "llm_calls"} <= set(first["steps"][0])
    assert 0 <= first["passage_recall"] <= 1 and 0 <= first["provenance_recall"] <= 1
    assert hirag["base_has_answer"].isna().all() and "policy" not in hirag
    assert (hirag["em"] == [float(q.answer == "Brinemouth") for q in toy_questions[:5]]).all()

    manifest = json.loads((study_dir(study, settings) / "manifest.json").read_text())
    assert (manifest["dataset"], manifest["n"], manifest["seed"]) == ("toy", 8, 0)
    assert manifest["slice_id"] == study and manifest["task"] == "qa"
    assert manifest["model"] == llm.model and manifest["model_identity"] == llm.model_identity
    assert manifest["llm"]["tier"] == "smollm135m" and "ctx_size" in manifest["llm"]
    assert manifest["graph_model"] == "qwen1.5b" and "git_commit" in manifest
    assert manifest["methods"]["hirag"]["records"] == 5
    assert manifest["methods"]["ace-full"]["records"] == 5
    assert manifest["methods"]["ace-full"]["finished"]

    # Resume: nothing to do makes no request; extending the limit answers only new questions.
    before = len(client.requests)
    again = run("hirag", "toy", 8, limit=5, **kwargs)
    assert len(client.requests) == before and len(again) == 5
    full = run("hirag", "toy", 8, **kwargs)
    assert len(client.requests) == before + 3
    assert list(full["id"]) == [q.id for q in toy_questions]
    yes_no = full[full["yes_no"]]
    assert list(yes_no["type"]) == ["yes_no"] and yes_no["context_has_answer"].isna().all()

    both = load_results(study, settings)
    assert len(both) == 13 and set(both["method"]) == {"hirag", "ace-full"}
    assert len(load_results(study, settings, methods=["ace-full"])) == 5
    with pytest.raises(FileNotFoundError, match="ace-adaptive"):
        load_results(study, settings, methods=["ace-adaptive"])


def test_failed_question_is_logged_and_retried(settings, toy_graph, toy_questions):
    failing = Failing(toy_questions[2].question)
    client = ScriptedClient(failing)
    llm = LLM(settings, client=client)
    kwargs = {"settings": settings, "llm": llm, "graph": toy_graph, "progress": False}
    first = run("hirag", "toy", 8, study="interrupted", **kwargs)
    assert first.attrs["errors"] == 1 and len(first) == 7
    assert toy_questions[2].id not in set(first["id"])
    errors_path = study_dir("interrupted", settings) / "hirag.errors.jsonl"
    (error,) = read_jsonl(errors_path)
    assert error["id"] == toy_questions[2].id and "model fell over" in error["error"]

    failing.fail_on = None
    before = len(client.requests)
    second = run("hirag", "toy", 8, study="interrupted", **kwargs)
    assert len(client.requests) == before + 1  # only the failed question is asked again
    assert second.attrs["errors"] == 0 and list(second["id"]) == [q.id for q in toy_questions]
    lines = read_jsonl(results_path("interrupted", "hirag", settings))
    assert len(lines) == 8 and len({r["id"] for r in lines}) == 8


def test_concurrent_run_order_and_safe_names(settings, toy_graph, toy_questions):
    llm = LLM(settings, client=ScriptedClient(ace_reply, delay_s=0.02))
    name = "ace-fixed:gap+depth+prune"
    frame = run(
        name,
        "toy",
        8,
        study="conc",
        settings=settings,
        llm=llm,
        graph=toy_graph,
        progress=False,
        concurrency=3,
    )
    assert list(frame["id"]) == [q.id for q in toy_questions]
    assert (frame["method"] == name).all()
    assert (frame["policy"].map(lambda p: p["label"]) == "gap+depth+prune").all()
    assert (study_dir("conc", settings) / "ace-fixed_gap+depth+prune.jsonl").is_file()
    assert safe_name("ace-full@graphrag") == "ace-full_graphrag"
    assert list(load_results("conc", settings)["id"]) == [q.id for q in toy_questions]


def test_manifest_refuses_another_slice_in_the_same_study(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    kwargs = {"settings": settings, "llm": llm, "graph": toy_graph, "progress": False}
    run("hirag", "toy", 8, study="mixed", limit=1, **kwargs)
    with pytest.raises(ResultsError, match="n=8"):
        run("hirag", "toy", 6, study="mixed", limit=1, **kwargs)


def test_a_torn_errors_line_is_cut_before_the_next_error(settings, toy_graph, toy_questions):
    """A crash while an error was written left a torn line the next error was glued onto."""
    errors_path = study_dir("torn", settings) / "hirag.errors.jsonl"
    errors_path.parent.mkdir(parents=True)
    errors_path.write_text('{"id": "toy-q1", "method": "hirag", "err')
    llm = LLM(settings, client=ScriptedClient(Failing(toy_questions[2].question)))
    run(
        "hirag",
        "toy",
        8,
        study="torn",
        settings=settings,
        llm=llm,
        graph=toy_graph,
        progress=False,
        limit=3,
    )
    (error,) = read_jsonl(errors_path)
    assert error["id"] == toy_questions[2].id


def test_a_run_resumes_after_a_tail_torn_inside_a_character(settings, toy_graph, toy_questions):
    client = ScriptedClient(ace_reply)
    llm = LLM(settings, client=client)
    kwargs = {"settings": settings, "llm": llm, "graph": toy_graph, "progress": False}
    run("hirag", "toy", 8, study="utf8", limit=2, **kwargs)
    path = results_path("utf8", "hirag", settings)
    torn = json.dumps({"id": toy_questions[2].id, "answer": "Ørsted"}, ensure_ascii=False)
    with path.open("ab") as fh:
        fh.write(torn.encode()[: torn.encode().index(b"\xc3") + 1])
    frame = run("hirag", "toy", 8, study="utf8", limit=3, **kwargs)
    assert list(frame["id"]) == [q.id for q in toy_questions[:3]]
    assert len(client.requests) == 3


def test_select_questions_limits_then_spreads_over_types():
    qs = [Question(f"q{i}", "?", "a", (), (), t, "toy") for i, t in enumerate("bbbbbbcc")]
    assert select_questions(qs, None, None, 0) == qs
    assert select_questions(qs, 3, None, 0) == qs[:3]
    picked = select_questions(qs, None, 4, 0)
    assert len(picked) == 4 and [q.type for q in picked].count("c") == 1  # 6:2 → 3:1
    within = select_questions(qs, 3, 2, 0)  # the limit first: only b questions are left
    assert len(within) == 2 and set(within) <= set(qs[:3])


def test_a_failed_question_records_no_key(settings, toy_graph, toy_questions, caplog):
    """Regression: an endpoint error repeating the request URL put its ``?api_key=`` in the
    log and in ``<method>.errors.jsonl`` unmasked."""
    key = "sk-sentinel-0123456789abcdef"
    failing = Failing(toy_questions[2].question)
    failing_reply = failing.__call__

    def leaky(kwargs: dict) -> str | BaseException:
        out = failing_reply(kwargs)
        if isinstance(out, BaseException):
            return RuntimeError(f"no route https://gw.example/v1/?api_key={key}chat/completions")
        return out

    llm = LLM(settings, client=ScriptedClient(leaky))
    run(
        "hirag",
        "toy",
        8,
        study="leaky",
        settings=settings,
        llm=llm,
        graph=toy_graph,
        progress=False,
    )
    errors = (study_dir("leaky", settings) / "hirag.errors.jsonl").read_text()
    assert "api_key=***" in errors and key not in errors
    assert key not in caplog.text
