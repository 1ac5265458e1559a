"""ace_lab.cli: the commands in-process — the method registry, free-text and file questions,
runs that fail, user corpora, fetching, and the error boundary (tests/test_cli_errors.py drives
the bad inputs through a subprocess)."""

from __future__ import annotations

import json

import pytest

from ace_lab.cli import main
from ace_lab.llm import LLM
from ace_lab.registry import METHODS
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient


def test_methods_lists_every_registered_method_with_its_family(capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert all(name in lines for name in METHODS)
    assert "openie" in lines["hipporag"] and "hierarchical" in lines["ace-full"]


def test_methods_name_lists_every_setting_with_bounds_and_help(capsys):
    assert main(["methods", "ace-fixed:gap+depth"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ace-fixed:gap+depth (hierarchical graph)")
    assert "ContextPolicy" in out and "⊆ {depth, breadth}" in out
    assert "prune_threshold" in out and "[-1, 1]" in out


def test_an_unknown_method_is_a_clear_error(capsys):
    assert main(["methods", "bogus"]) == 2
    assert "unknown method 'bogus'" in capsys.readouterr().err


def test_semantic_judges_a_study_and_prints_its_table(tmp_path, monkeypatch, capsys):
    # Every answer takes a fast path (exact, yes/no, empty): no LLM call is made.
    folder = tmp_path / "toy-n2-s0"
    folder.mkdir()
    rows = [
        {"id": "a", "position": 0, "method": "hirag", "question": "Who?", "gold": ["Ada"],
         "answer": "ada", "em": 1.0},
        {"id": "b", "position": 1, "method": "hirag", "question": "Both?", "gold": ["yes"],
         "answer": "No.", "em": 0.0},
    ]  # fmt: skip
    (folder / "hirag.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("ACE_LAB_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # never reached
    monkeypatch.setenv("ACE_LAB_LLM_MODEL", "judge-under-test")
    assert main(["semantic", "--study", "toy-n2-s0"]) == 0
    out = capsys.readouterr().out
    assert "2 answers judged now" in out and "judge-under-test" in out
    assert (folder / "semantic" / "verdicts.jsonl").read_text().count("\n") == 2


# ------------------------------------------------------ commands over the toy graph, no server
@pytest.fixture
def toy_cli(monkeypatch, tmp_path, toy_graph):
    """``ace-lab`` in-process on the toy graph with a scripted model; folders in ``tmp_path``.

    Returns the scripted client's reply function holder: set ``reply[0]`` to change the model.
    """
    from ace_lab.retrieval import RetrievalGraph

    for name in ("results", "figures", "graphs", "cache"):
        monkeypatch.setenv(f"ACE_LAB_{name.upper()}_DIR", str(tmp_path / name))
    monkeypatch.setenv("ACE_LAB_USER_DATA", str(tmp_path / "user"))
    for name in ("ACE_LAB_LLM_BASE_URL", "ACE_LAB_LLM_TIER", "ACE_LAB_DATA"):
        monkeypatch.delenv(name, raising=False)
    reply = [ace_reply]
    llms = {}

    def scripted_llm(settings=None):
        if "llm" not in llms:
            llms["llm"] = LLM(settings, client=ScriptedClient(lambda kw: reply[0](kw)))
        return llms["llm"]

    monkeypatch.setattr(RetrievalGraph, "load", classmethod(lambda cls, *a, **k: toy_graph))
    monkeypatch.setattr("ace_lab.llm.get_llm", scripted_llm)
    monkeypatch.setattr("ace_lab.ask.get_llm", scripted_llm)
    return reply


def test_run_in_which_every_question_fails_writes_nothing_and_says_so(toy_cli, tmp_path, capsys):
    toy_cli[0] = lambda kwargs: RuntimeError("model fell over")
    args = ["run", "--methods", "hirag", "--dataset", "toy", "--n", "8", "--limit", "2"]
    assert main(args) == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (
        "ace-lab: error: all 2 question(s) failed (hirag: 2); nothing was written; "
        "first error: RuntimeError('model fell over')"
    )
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())


def test_a_failing_rerun_leaves_an_existing_study_as_it_was(toy_cli, tmp_path, capsys):
    args = ["run", "--methods", "hirag", "--dataset", "toy", "--n", "8", "--limit", "2"]
    assert main(args) == 0
    study = tmp_path / "results" / "toy-n8-s0"
    before = {p.name: p.read_bytes() for p in study.iterdir()}
    toy_cli[0] = lambda kwargs: RuntimeError("model fell over")
    assert main([*args[:-1], "4"]) == 1  # two new questions, both failing
    assert {p.name: p.read_bytes() for p in study.iterdir()} == before
    out = capsys.readouterr().out
    assert "| hirag | 2 |" in out  # the study's earlier records, unchanged
    assert "hirag: all 2 question(s) of this run failed, none written; first: RuntimeError(" in out


def test_run_answers_the_questions_of_a_file_into_its_own_study(toy_cli, tmp_path, capsys):
    questions = tmp_path / "mine.jsonl"
    rows = [
        {"id": "m1", "question": "Where is the tidal lantern museum?", "answer": "Brinemouth"},
        {"question": "Which city keeps the lantern?"},
    ]
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["run", "--methods", "hirag", "--dataset", "toy", "--n", "8", "--task", "qa"]
    assert main([*args, "--questions", str(questions)]) == 0
    records = (tmp_path / "results" / "toy-n8-s0-mine" / "hirag.jsonl").read_text().splitlines()
    got = [json.loads(line) for line in records]
    assert got[0]["id"] == "m1" and got[1]["id"].startswith("q-")
    assert [r["position"] for r in got] == [0, 1] and got[0]["em"] == 1.0
    assert "| hirag" in capsys.readouterr().out


def test_ask_answers_free_text_without_gold(toy_cli, capsys):
    question = "Where is the tidal lantern museum?"
    assert main(["ask", "--method", "hirag", "--dataset", "toy", "--n", "8", question]) == 0
    out = capsys.readouterr().out
    assert f"question: {question}  [q-" in out
    assert "gold:     (none)" in out and "answer:   Brinemouth" in out


def test_ask_by_question_id_prints_the_gold(toy_cli, capsys):
    from ace_lab.ask import slice_of

    first = slice_of("toy", 8).questions[1]
    args = ["ask", "--method", "hirag", "--dataset", "toy", "--n", "8"]
    assert main([*args, "--question-id", first.id]) == 0
    assert f"gold:     {' | '.join(first.answers)}" in capsys.readouterr().out


def test_corpus_add_list_remove(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ACE_LAB_USER_DATA", str(tmp_path / "user"))
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.txt").write_text("The tidal lantern is kept in Brinemouth.\n")
    assert main(["corpus", "add", "mynotes", str(folder)]) == 0
    assert "corpus 'mynotes': 1 added" in capsys.readouterr().out
    assert main(["corpus", "list"]) == 0
    assert capsys.readouterr().out.startswith("mynotes: 1 documents, 0 questions")
    assert main(["corpus", "remove", "mynotes"]) == 0
    assert main(["corpus", "remove", "mynotes"]) == 2
    assert "no user corpus named 'mynotes'" in capsys.readouterr().err
    assert main(["corpus", "list"]) == 0
    assert "no user corpora" in capsys.readouterr().out


def test_data_fetch_calls_the_fetcher_and_checks_the_name(monkeypatch, tmp_path, capsys):
    fetched = []
    monkeypatch.setattr(
        "ace_lab.data.fetch.fetch_dataset", lambda name: fetched.append(name) or tmp_path / name
    )
    assert main(["data", "fetch", "hotpotqa_dev_sample200"]) == 0
    assert fetched == ["hotpotqa_dev_sample200"]
    assert str(tmp_path / "hotpotqa_dev_sample200") in capsys.readouterr().out
    assert main(["data", "fetch", "hotpotqa"]) == 2 and fetched == ["hotpotqa_dev_sample200"]


def test_an_unexpected_exception_keeps_its_traceback(monkeypatch, capsys):
    def broken(args):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("ace_lab.cli_commands.methods.cmd_methods", broken)
    assert main(["methods"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError: a bug" in err
    assert err.rstrip().endswith(
        "internal error (a bug; please report it with the traceback above)"
    )


def test_ctrl_c_is_one_line_and_exit_130(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr("ace_lab.cli_commands.methods.cmd_methods", interrupted)
    assert main(["methods"]) == 130
    assert capsys.readouterr().err == "ace-lab: interrupted\n"


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("ACE_LAB_LLM_BASE_URL", "ftp://host/v1", "ACE_LAB_LLM_BASE_URL='ftp://host/v1' is not"),
        ("ACE_LAB_LLM_BASE_URL", "http://u:secret@/v1", "'http://***@/v1' is not an endpoint"),
        ("ACE_LAB_EMBED_BASE_URL", "http://h:port/v1", "ACE_LAB_EMBED_BASE_URL="),
        ("ACE_LAB_LLM_THREADS", "two", "ACE_LAB_LLM_THREADS='two' is not an integer"),
        ("ACE_LAB_LLM_TIMEOUT", "1m", "ACE_LAB_LLM_TIMEOUT='1m' is not a number"),
        ("ACE_LAB_LLM_BACKEND", "vllm", "backend"),
    ],
)
def test_a_bad_setting_is_a_one_line_configuration_error(name, value, message, monkeypatch, capsys):
    monkeypatch.setenv(name, value)
    monkeypatch.setenv("ACE_LAB_LLM_MODEL", "m")
    assert main(["run", "--methods", "hirag", "--dataset", "toy", "--n", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ace-lab: error: ") and err.count("\n") == 1 and message in err
    assert "secret" not in err
