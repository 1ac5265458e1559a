"""ace_lab.eval.study: a study's files read back (corrupt lines, torn tails, torn UTF-8) and
rescoring."""

from __future__ import annotations

import json
import os

import pytest

from ace_lab.eval.metrics import exact_match
from ace_lab.eval.runner import run
from ace_lab.eval.study import (
    ResultsError,
    cut_torn_tail,
    latest_study,
    load_results,
    read_jsonl,
    rescore,
    results_path,
    study_dir,
)
from ace_lab.llm import LLM
from tests.conftest import ScriptedClient, ace_reply


def test_corrupt_lines_are_named_and_a_torn_tail_is_repaired(settings, tmp_path):
    directory = study_dir("broken", settings)
    directory.mkdir(parents=True)
    path = directory / "hirag.jsonl"
    path.write_text('{"id": "a", "method": "hirag"}\nnot json\n{"id": "b", "method": "hirag"}\n')
    with pytest.raises(ResultsError, match=r"hirag\.jsonl: corrupt line 2"):
        load_results("broken", settings)
    torn = tmp_path / "torn.jsonl"
    torn.write_text('{"id": "a"}\n{"id": "b", "ans')
    assert [r["id"] for r in read_jsonl(torn, repair_tail=True)] == ["a"]
    assert torn.read_text() == '{"id": "a"}\n'
    unterminated = tmp_path / "unterminated.jsonl"
    unterminated.write_text('{"id": "a"}')
    assert [r["id"] for r in read_jsonl(unterminated, repair_tail=True)] == ["a"]
    assert unterminated.read_text() == '{"id": "a"}\n'  # the next append starts a new line


def test_latest_study_is_the_last_written(settings):
    with pytest.raises(FileNotFoundError):
        latest_study(settings)
    for age, study in enumerate(("new", "old")):
        path = results_path(study, "hirag", settings)
        path.parent.mkdir(parents=True)
        path.write_text('{"id": "a", "method": "hirag"}\n')
        os.utime(path, (1_000_000 - age, 1_000_000 - age))
    assert latest_study(settings) == "new"


def test_rescore_reextracts_answers_from_stored_generations(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    run("hirag", "toy", 8, settings=settings, llm=llm, graph=toy_graph, limit=2, progress=False)
    path = results_path("toy-n8-s0", "hirag", settings)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[0]["raw"] = "Reasoning: x\nResult: [Brinemouth] [/Brinemouth]"
    records[0]["answer"], records[0]["em"] = "", 0.0
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert rescore("toy-n8-s0", settings) == {"hirag": 1}
    again = load_results("toy-n8-s0", settings)
    first = again[again["id"] == records[0]["id"]].iloc[0]
    assert first["answer"] == "Brinemouth"
    assert first["em"] == exact_match("Brinemouth", list(first["gold"]))


def test_a_torn_multibyte_tail_is_cut_in_place(tmp_path):
    """A crash can end a file inside a UTF-8 character; reading it used to raise and block the
    resume. The cut truncates the file where it stands (no rewrite a second crash could tear)."""
    path = tmp_path / "r.jsonl"
    torn = json.dumps({"id": "b", "answer": "Zürich"}, ensure_ascii=False).encode()
    path.write_bytes(b'{"id": "a", "answer": "\xc3\x98rsted"}\n' + torn[: torn.index(b"\xc3") + 1])
    inode = path.stat().st_ino
    assert [r["id"] for r in read_jsonl(path, repair_tail=True)] == ["a"]
    assert path.read_bytes() == b'{"id": "a", "answer": "\xc3\x98rsted"}\n'
    assert path.stat().st_ino == inode
    path.write_bytes(path.read_bytes() + b'{"id": "x", "answer": "\xc3')
    with pytest.raises(ResultsError, match="corrupt line 2"):
        read_jsonl(path)  # without repair a torn tail is an error, not a crash


def test_cut_torn_tail_leaves_whole_lines_and_ends_the_file_on_a_newline(tmp_path):
    path = tmp_path / "e.jsonl"
    cut_torn_tail(path)  # no file: nothing to do
    path.write_text('{"id": "a"}\n{"id": "b", "err')
    cut_torn_tail(path)
    assert path.read_text() == '{"id": "a"}\n'
    cut_torn_tail(path)
    assert path.read_text() == '{"id": "a"}\n'
    path.write_text('{"id": "a"}\n{"id": "b"}')
    cut_torn_tail(path)
    assert path.read_text() == '{"id": "a"}\n{"id": "b"}\n'


def test_concurrent_manifest_writes_do_not_collide(tmp_path):
    """Every writer used one temporary name: a second writer's rename found it gone."""
    from concurrent.futures import ThreadPoolExecutor

    from ace_lab.eval.study import _write_json_atomic

    path = tmp_path / "manifest.json"
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: _write_json_atomic(path, {"writer": i}), range(400)))
    assert json.loads(path.read_text())["writer"] in range(400)
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]


def test_a_resumed_run_keeps_the_methods_first_start(settings, tmp_path):
    from ace_lab.eval.study import update_manifest

    llm = LLM(settings, client=ScriptedClient(ace_reply))
    common = {"slice_info": {"dataset": "toy", "n": 8}, "llm": llm, "graph_model": "m"}
    update_manifest(tmp_path, "hirag", entry={"started": "first"}, **common)
    update_manifest(tmp_path, "hirag", entry={"records": 2, "last_run": {"started": "first"}},
                    **common)  # fmt: skip
    update_manifest(tmp_path, "hirag", entry={"started": "second"}, **common)
    method = json.loads((tmp_path / "manifest.json").read_text())["methods"]["hirag"]
    assert method["started"] == "first" and method["records"] == 2
