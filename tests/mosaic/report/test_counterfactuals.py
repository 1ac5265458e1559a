"""ace_lab.mosaic.report.counterfactuals and .regenerate: §7.5's table from records replayed on
the toy graph (scripted model), and the committed tables' producer."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ace_lab.config import Settings, load_settings
from ace_lab.data import load_dataset
from ace_lab.eval.studies.record import record
from ace_lab.llm import LLM
from ace_lab.mosaic.counterfactual import FLIPS, Replayer
from ace_lab.mosaic.report import regenerate
from ace_lab.mosaic.report.counterfactuals import (
    RECORDED,
    TABLE_COLUMNS,
    counterfactual_rows,
    counterfactual_table,
)
from ace_lab.registry import make_method
from tests.support.replies import mosaic_reply
from tests.support.scripted import ScriptedClient


@pytest.fixture(scope="module")
def toy_records(toy_graph, tmp_path_factory):
    """Three toy questions answered by ``mosaic`` (scripted analyzer), as evaluation records."""
    settings = Settings(
        cache_dir=tmp_path_factory.mktemp("cache"), model_dir=load_settings().model_dir
    )
    llm = LLM(settings, client=ScriptedClient(mosaic_reply()))
    method = make_method("mosaic", toy_graph, llm)
    questions = load_dataset("toy").questions[:3]
    return [record(q, method.answer(q.question)) | {"method": "mosaic"} for q in questions]


def test_the_recorded_policy_replays_exactly_and_every_flip_is_compared(toy_graph, toy_records):
    rows = counterfactual_rows(toy_records, Replayer(toy_graph))
    recorded = rows[rows["flip"] == RECORDED]
    assert len(recorded) == 3 and not recorded["evidence_changed"].any()
    assert (recorded["passage_recall"] == recorded["base_passage_recall"]).all()
    assert set(rows["flip"]) - {RECORDED} <= {f.name for f in FLIPS}
    kept = rows[~rows["evidence_changed"]]  # an unchanged context keeps the record's answer
    assert (kept["answer"] == kept["id"].map({r["id"]: r["answer"] for r in toy_records})).all()
    assert rows[rows["evidence_changed"]]["answer"].isna().all()  # not computed: no answerer
    table = counterfactual_table(rows)
    assert list(table.columns) == TABLE_COLUMNS and table["flip"].iloc[0] == RECORDED
    assert table.loc[0, "evidence_changed"] == 0 and table.loc[0, "d_passage_recall"] == 0
    assert (table["answers"] == 0).all() and table["answer_changed"].isna().all()
    budget = table.set_index("flip").loc["evidence budget +4"]
    assert budget["n"] == 3 and budget["low"] <= budget["d_passage_recall"] <= budget["high"]


def test_a_context_that_no_longer_replays_is_flagged(toy_graph, toy_records):
    tampered = [toy_records[0] | {"context_ids": ["not-there"]}]
    table = counterfactual_table(counterfactual_rows(tampered, Replayer(toy_graph)))
    assert table.loc[0, "flip"] == RECORDED and table.loc[0, "evidence_changed"] == 1


def test_answers_count_only_where_computed_for_a_changed_context(toy_graph, toy_records):
    asked = []

    def answer(query, replay):
        asked.append(replay.flip)
        return None if replay.flip == "seeds +3" else "Somewhere else"

    rows = counterfactual_rows(toy_records, Replayer(toy_graph), answer=answer)
    table = counterfactual_table(rows).set_index("flip")
    changed = rows[rows["evidence_changed"] & (rows["flip"] != RECORDED)]
    assert sorted(asked) == sorted(changed["flip"])  # an unchanged context is never asked
    computed = changed[changed["flip"] != "seeds +3"]
    assert table["answers"].sum() == len(computed)
    for name, group in computed.groupby("flip"):
        assert table.loc[name, "answer_changed"] == 1.0
        assert table.loc[name, "d_em"] == -group["base_em"].mean()
    if "seeds +3" in table.index:
        assert table.loc["seeds +3", "answers"] == 0


def test_an_empty_slice_gives_an_empty_table_and_archives_are_per_study():
    assert list(counterfactual_table(pd.DataFrame()).columns) == TABLE_COLUMNS
    assert regenerate.archive_path("s1").name == "05_counterfactuals_s1.jsonl"
    assert regenerate.archive_path("s1").parent.name == "responses"


def test_answers_replay_as_the_records_model_and_a_live_other_model_is_named(tmp_path, capsys):
    recorded = "local:qwen1.5b:gguf:weights+llama-server:another-build"
    study = tmp_path / "s1"
    study.mkdir()
    manifest = {"dataset": "toy", "methods": {"mosaic": {"model_identity": recorded}}}
    (study / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    settings = Settings(
        results_dir=tmp_path, cache_dir=tmp_path / "cache", model_dir=load_settings().model_dir
    )
    # Replaying, the archive's keys are the records' model's whatever this machine's build is.
    assert regenerate.answering_llm("s1", settings, call_model=False).model_identity == recorded
    live = regenerate.answering_llm("s1", settings, call_model=True)
    assert live.model_identity != recorded
    assert f"not {recorded}, the model of its mosaic records" in capsys.readouterr().err


def test_answering_one_study_keeps_every_slice_in_the_policy_diversity(monkeypatch, tmp_path):
    monkeypatch.setattr(regenerate, "mosaic_studies", lambda settings: ["a", "b"])
    monkeypatch.setattr(regenerate, "study_rows", lambda study, settings, answer: pd.DataFrame())
    monkeypatch.setattr(regenerate, "_analyzer_records", lambda study, settings: study)
    monkeypatch.setattr(regenerate, "policy_diversity", lambda slices: sorted(slices))
    tables = regenerate.counterfactual_tables(Settings(results_dir=tmp_path), ["a"], "off")
    assert tables[regenerate.POLICY_DIVERSITY] == ["a", "b"]
    assert [stem for stem in tables if stem != regenerate.POLICY_DIVERSITY] == [
        f"a/{regenerate.COUNTERFACTUALS}"
    ]
