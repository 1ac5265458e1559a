"""ace_lab.eval.studies.reread and ``ace-lab reread``: stored contexts re-answered by a reader,
one scripted call per record, into a study of their own (the old records stay)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ace_lab.cli_commands.reading import READER_CHOICES
from ace_lab.eval.reporting.tables import main_table
from ace_lab.eval.studies.reread import kind_of, reread, reread_study, stored_context
from ace_lab.eval.studies.study import load_results
from ace_lab.methods.reader import READERS, SHORT_TAG, short_grammar
from tests.support.replies import QA_REPLY
from tests.support.scripted import ScriptedClient, scripted_llm


def _write_study(settings, name: str = "s1", task: str = "qa") -> Path:
    directory = Path(settings.results_dir) / name
    directory.mkdir(parents=True)
    manifest = {"dataset": "toy", "n": 3, "seed": 0, "slice_id": "toy-n3-s0", "task": task}
    (directory / "manifest.json").write_text(json.dumps(manifest))
    base = {
        "method": "hirag",
        "gold": ["Paris"],
        "raw": QA_REPLY,
        "answer": "y",
        "em": 0.0,
        "f1": 0.0,
    }
    records = [
        base | {"id": "q1", "question": "Capital?", "context_ids": ["p1", "ent:paris"],
                "context_texts": ["France's capital is Paris.", "Paris: a city"]},
        base | {"id": "q2", "question": "River?", "context_ids": ["p2"],
                "context_texts": ["The Seine."], "gold": ["Seine"]},
        base | {"id": "q3", "question": "Old?"},  # written before contexts were stored
    ]  # fmt: skip
    (directory / "hirag.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return directory


def test_stored_context_is_rendered_by_kind_in_order() -> None:
    text = stored_context(["p1", "ent:e", "rel:r", "p2"], ["a", "b", "c", "d"])
    assert text == "### passage\n- a\n\n### entity\n- b\n\n### relation\n- c\n\n### passage\n- d"
    kinds = ["sum:1:2", "com:3", "path:x", "w:edge:k", "entity:e", "odd:x", "Hotpot#c1"]
    assert [kind_of(i) for i in kinds] == [
        "summary",
        "report",
        "path",
        "row",
        "entity",
        "passage",
        "passage",
    ]


def test_reread_answers_each_stored_context_once_into_its_own_study(settings) -> None:
    source = _write_study(settings)
    before = (source / "hirag.jsonl").read_text()
    llm = scripted_llm(settings, ["Paris", "Loire"])
    counts = reread("s1", "short", settings=settings, llm=llm)
    assert counts == {"hirag": {"reread": 2, "kept": 0, "skipped": 1}}
    assert (source / "hirag.jsonl").read_text() == before  # the old records stay
    target = Path(settings.results_dir) / reread_study("s1", "short")
    assert target.name == "s1-reread-short"
    records = [json.loads(line) for line in (target / "hirag.jsonl").read_text().splitlines()]
    assert [(r["id"], r["answer"], r["em"], r["reader"]) for r in records] == [
        ("q1", "Paris", 1.0, "short"),
        ("q2", "Loire", 0.0, "short"),
    ]
    assert records[0]["reread_from"] == "s1" and records[0]["evidence_only"] is False
    assert records[0]["reader_output_tokens"] == 1  # the scripted reply's one word
    sent = llm.client().requests
    assert len(sent) == 2 and all(r["extra_body"] == {"grammar": short_grammar()} for r in sent)
    assert "### entity\n- Paris: a city" in sent[0]["messages"][1]["content"]
    assert [c.tag for c in llm.ledger.calls] == [SHORT_TAG, SHORT_TAG]
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["reread_from"] == "s1" and manifest["reader"] == "short"
    # a rerun keeps what is there and calls nothing
    again = reread("s1", "short", settings=settings, llm=scripted_llm(settings, []))
    assert again == {"hirag": {"reread": 0, "kept": 2, "skipped": 1}}


def test_tables_say_which_reader_produced_each_row(settings) -> None:
    _write_study(settings)
    reread("s1", "short", settings=settings, llm=scripted_llm(settings, ["Paris", "Seine"]))
    old = main_table(load_results("s1", settings)).set_index("method")
    new = main_table(load_results("s1-reread-short", settings)).set_index("method")
    assert old.loc["hirag", "reader"] == "tagged" and new.loc["hirag", "reader"] == "short"
    assert new.loc["hirag", "format_compliance"] == 1.0
    assert old.loc["hirag", "format_compliance"] == 1.0  # QA_REPLY is a proper tag pair


def test_reread_refuses_unknown_readers_methods_and_non_qa_studies(settings) -> None:
    _write_study(settings)
    _write_study(settings, "grb", task="open")
    llm = scripted_llm(settings, [])
    with pytest.raises(ValueError, match="unknown reader"):
        reread("s1", "long", settings=settings, llm=llm)
    with pytest.raises(ValueError, match="no records of mosaic"):
        reread("s1", "short", ["mosaic"], settings=settings, llm=llm)
    with pytest.raises(ValueError, match="task 'open'"):
        reread("grb", "short", settings=settings, llm=llm)
    assert not ScriptedClient([]).requests and not llm.client().requests


def test_the_command_offers_every_reader() -> None:
    assert READER_CHOICES == READERS


def test_a_bare_method_name_stands_for_the_study_s_one_run_of_it(settings) -> None:
    directory = _write_study(settings)
    runs = {"naive:b1500": "naive_b1500", "mosaic:b300": "mosaic_b300", "mosaic:b600": "m600",
            "hipporag:b1500@hierarchical": "hipporag_b1500_hierarchical"}  # fmt: skip
    for run, stem in runs.items():
        record = {"method": run, "id": "q1", "question": "Capital?", "gold": ["Paris"],
                  "context_ids": ["p1"], "context_texts": ["Paris is the capital."]}  # fmt: skip
        (directory / f"{stem}.jsonl").write_text(json.dumps(record) + "\n")
    llm = scripted_llm(settings, ["Paris"])
    counts = reread("s1", "short", ["naive"], settings=settings, llm=llm, progress=False)
    assert counts == {"naive:b1500": {"reread": 1, "kept": 0, "skipped": 0}}
    with pytest.raises(ValueError, match="several runs of mosaic: mosaic:b300, mosaic:b600"):
        reread("s1", "short", ["mosaic"], settings=settings, llm=llm)
    with pytest.raises(ValueError, match="no records of naive:b300"):
        reread("s1", "short", ["naive:b300"], settings=settings, llm=llm)
    # the graph family is part of the method: a name keeps it and drops only the variant
    llm = scripted_llm(settings, ["Paris"])
    counts = reread("s1", "short", ["hipporag@hierarchical"], settings=settings, llm=llm)
    assert counts == {"hipporag:b1500@hierarchical": {"reread": 1, "kept": 0, "skipped": 0}}
    with pytest.raises(ValueError, match="no records of hipporag;"):
        reread("s1", "short", ["hipporag"], settings=settings, llm=llm)
