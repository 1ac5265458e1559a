"""ace_lab.eval.studies.study: a study's files read back (corrupt lines, torn tails, torn UTF-8),
rescoring, and one model and configuration per method (a run of another starts its own study
or is refused; ``identity_mix`` flags a mixed study)."""

from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from ace_lab.data import DataError
from ace_lab.eval.metrics import exact_match
from ace_lab.eval.studies.identity import config_hash
from ace_lab.eval.studies.runner import run
from ace_lab.eval.studies.study import (
    ResultsError,
    StudyMismatchError,
    cut_torn_tail,
    identity_mix,
    latest_study,
    load_results,
    read_jsonl,
    read_manifest,
    rescore,
    results_path,
    study_dir,
)
from ace_lab.llm import LLM
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient


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

    from ace_lab.eval.studies.study import _write_json_atomic

    path = tmp_path / "manifest.json"
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: _write_json_atomic(path, {"writer": i}), range(400)))
    assert json.loads(path.read_text())["writer"] in range(400)
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]


def test_a_resumed_run_keeps_the_methods_first_start(settings, tmp_path):
    from ace_lab.eval.studies.study import update_manifest

    llm = LLM(settings, client=ScriptedClient(ace_reply))
    common = {"slice_info": {"dataset": "toy", "n": 8}, "llm": llm, "graph_model": "m"}
    update_manifest(tmp_path, "hirag", entry={"started": "first"}, **common)
    update_manifest(
        tmp_path, "hirag", entry={"records": 2, "last_run": {"started": "first"}}, **common
    )
    update_manifest(tmp_path, "hirag", entry={"started": "second"}, **common)
    method = json.loads((tmp_path / "manifest.json").read_text())["methods"]["hirag"]
    assert method["started"] == "first" and method["records"] == 2


# ---------------------------------------------------------------------------- identities
def _run(settings, toy_graph, llm, limit=2, **kwargs):
    return run(
        "hirag",
        "toy",
        8,
        settings=settings,
        llm=llm,
        graph=toy_graph,
        progress=False,
        limit=limit,
        **kwargs,
    )


def test_another_model_starts_its_own_study_and_leaves_the_first_alone(settings, toy_graph):
    first = LLM(settings, client=ScriptedClient(ace_reply))
    _run(settings, toy_graph, first)
    manifest = study_dir("toy-n8-s0", settings) / "manifest.json"
    records = results_path("toy-n8-s0", "hirag", settings)
    before = (manifest.read_bytes(), records.read_bytes())
    assert {r["model_identity"] for r in read_jsonl(records)} == {first.model_identity}
    assert {r["config_hash"] for r in read_jsonl(records)} == {config_hash("hirag")}

    other = LLM(settings, client=ScriptedClient(ace_reply), model_identity="http://h/v1#other")
    frame = _run(settings, toy_graph, other, limit=3)
    assert frame.attrs["study"] == f"toy-n8-s0--{other.model}"
    assert len(frame) == 3 and set(frame["model_identity"]) == {"http://h/v1#other"}
    assert (manifest.read_bytes(), records.read_bytes()) == before  # the first model's, as it was
    entry = read_manifest(frame.attrs["study"], settings)["methods"]["hirag"]
    assert entry["model_identity"] == "http://h/v1#other"
    assert entry["config_hash"] == config_hash("hirag")


def test_an_explicit_study_of_another_model_is_refused(settings, toy_graph):
    _run(settings, toy_graph, LLM(settings, client=ScriptedClient(ace_reply)), study="mine")
    manifest = study_dir("mine", settings) / "manifest.json"
    before = manifest.read_bytes()
    other = LLM(settings, client=ScriptedClient(ace_reply), model_identity="other")
    with pytest.raises(StudyMismatchError, match=r"hirag was answered by .*not other") as caught:
        _run(settings, toy_graph, other, study="mine")
    assert isinstance(caught.value, DataError) and "\n" not in str(caught.value)
    assert manifest.read_bytes() == before


def test_a_changed_configuration_is_another_identity(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    _run(settings, toy_graph, llm, study="cfg")
    path = results_path("cfg", "hirag", settings)
    path.write_text(
        "".join(json.dumps(r | {"config_hash": "0" * 16}) + "\n" for r in read_jsonl(path))
    )
    with pytest.raises(StudyMismatchError, match=r"configuration 0{16}"):
        _run(settings, toy_graph, llm, study="cfg")
    assert identity_mix("cfg", settings) == []  # one configuration, one model: consistent


def test_records_without_identities_take_the_manifests(settings, toy_graph):
    """Committed records predate the fields: they count as the manifest's entry for the method."""
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    _run(settings, toy_graph, llm)
    path = results_path("toy-n8-s0", "hirag", settings)
    old = [
        {k: v for k, v in r.items() if k not in ("model_identity", "config_hash")}
        for r in read_jsonl(path)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in old))
    assert _run(settings, toy_graph, llm, limit=3).attrs["study"] == "toy-n8-s0"  # same model
    other = LLM(settings, client=ScriptedClient(ace_reply), model_identity="other")
    assert _run(settings, toy_graph, other).attrs["study"] == f"toy-n8-s0--{other.model}"


def test_a_study_of_another_model_takes_none_of_its_methods(settings, toy_graph):
    """A method the slice's study lacks is still not added to another model's study."""
    _run(settings, toy_graph, LLM(settings, client=ScriptedClient(ace_reply)))
    other = LLM(settings, client=ScriptedClient(ace_reply), model_identity="http://h/v1#gpt")
    other.model = "gpt/x"
    frame = run(
        "naive", "toy", 8, settings=settings, llm=other, graph=toy_graph, progress=False, limit=1
    )
    assert frame.attrs["study"] == "toy-n8-s0--gpt_x"
    assert not results_path("toy-n8-s0", "naive", settings).exists()


def test_identity_mix_flags_a_method_of_two_models(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    _run(settings, toy_graph, llm, study="mixed")
    assert identity_mix("mixed", settings) == []
    path = results_path("mixed", "hirag", settings)
    records = read_jsonl(path)
    records[0].pop("model_identity")  # an old record: the manifest's identity, the same model
    records[1]["model_identity"] = "another"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    (warning,) = identity_mix("mixed", settings)
    assert warning.startswith("hirag: records of 2 models") and "another (1)" in warning
    assert identity_mix(load_results("mixed", settings), settings) == [warning]  # a frame too
    assert identity_mix(pd.DataFrame()) == []
