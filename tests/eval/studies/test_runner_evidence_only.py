"""ace_lab.eval.studies.runner with ``evidence=True`` and ace_lab.methods.generate.evidence_only:
methods stop at their final context, their own planning calls still made."""

from __future__ import annotations

import pytest

from ace_lab.data import load_dataset, make_slice
from ace_lab.eval.studies.runner import EVIDENCE_SUFFIX, evidence_study, run
from ace_lab.eval.studies.study import read_jsonl, read_manifest, results_path
from ace_lab.llm import LLM
from ace_lab.methods.generate import EVIDENCE_ONLY_NOTE, evidence_only, generate, is_evidence_only
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient


@pytest.fixture(scope="module")
def toy_slice_id() -> str:
    return make_slice(load_dataset("toy"), 8).slice_id


def test_evidence_only_generate_makes_no_call_but_a_draft_does(settings):
    client = ScriptedClient(ace_reply)
    llm = LLM(settings, client=client)
    assert not is_evidence_only()
    with evidence_only():
        assert is_evidence_only()
        skipped = generate(llm, "q?", "some context")
        draft = generate(llm, "q?", "some context", final=False)
    assert not is_evidence_only()
    assert (skipped.raw, skipped.answer) == ("", "")
    assert draft.answer == "Brinemouth"
    assert len(client.requests) == 1  # only the draft reached the model
    assert EVIDENCE_ONLY_NOTE.startswith("evidence only")


def test_evidence_run_records_contexts_without_answers(settings, toy_graph, toy_slice_id):
    client = ScriptedClient(ace_reply)
    llm = LLM(settings, client=client)
    kwargs = {"settings": settings, "llm": llm, "graph": toy_graph, "progress": False}
    frame = run("ace-full", "toy", 8, limit=3, evidence=True, **kwargs)
    assert frame.attrs["study"] == evidence_study(toy_slice_id) == toy_slice_id + EVIDENCE_SUFFIX
    records = read_jsonl(results_path(frame.attrs["study"], "ace-full", settings))
    assert len(records) == 3
    for rec in records:
        assert rec["evidence_only"] is True
        assert rec["answer"] is None and rec["em"] is None and rec["f1"] is None
        assert rec["context_ids"] and rec["context_tokens"] > 0
        assert rec["context_has_answer"] is not None  # coverage needs no answer
        assert [s["name"] for s in rec["steps"]][-1] == "generate"
    # ACE's planner ran for every question, its answer call for none
    planner = [c for c in client.requests if "Retrieval Planner" in c["messages"][0]["content"]]
    assert len(planner) == 3 and len(client.requests) == 3
    assert read_manifest(frame.attrs["study"], settings)["evidence_only"] is True
    # the answered study of the slice stays untouched
    answered = run("hirag", "toy", 8, limit=1, **kwargs)
    assert answered.attrs["study"] == toy_slice_id
    assert read_jsonl(results_path(toy_slice_id, "hirag", settings))[0]["answer"] == "Brinemouth"
