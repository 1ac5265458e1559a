"""Tests for ace_lab.data.loaders: every set loads into the typed records, errors name the
file, record and field (shared sets are skipped when absent)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ace_lab.data import DATASETS, DataError, load_dataset
from tests.support.datasets import FAKE_PASSAGES, FAKE_QUESTION, fake_dataset_dir, need_dataset

SHARED_SETS = [name for name in DATASETS if name != "toy"]


# --- toy ---------------------------------------------------------------------------------------


def test_toy_loads_and_supports_exist() -> None:
    ds = load_dataset("toy")
    assert len(ds.passages) == 16
    assert len(ds.questions) == 8
    assert len({q.id for q in ds.questions}) == 8
    for q in ds.questions:
        assert q.answer and q.dataset == "toy"
        assert len(q.supporting_ids) >= 2
        for pid in q.supporting_ids:
            assert ds.passage(pid).id == pid
    assert {q.type for q in ds.questions} == {"bridge", "comparison", "yes_no", "summary"}


def test_toy_is_cached_and_unknown_names_fail() -> None:
    assert load_dataset("toy") is load_dataset("toy")
    with pytest.raises(KeyError, match="unknown dataset"):
        load_dataset("no_such_set")


# --- shared benchmark sets ----------------------------------------------------------------------


@pytest.mark.parametrize("name", SHARED_SETS)
def test_shared_set_loads(name: str) -> None:
    need_dataset(name)
    ds = load_dataset(name)
    assert ds.passages and ds.questions
    assert len({q.id for q in ds.questions}) == len(ds.questions)
    assert len(ds.passage_by_id) == len(ds.passages)
    for q in ds.questions:
        assert q.question.strip()
        assert all(pid in ds.passage_by_id for pid in q.supporting_ids)
    has_gold = name.startswith(("hotpotqa", "musique", "2wiki", "graphragbench", "multihoprag"))
    assert all((q.answer is not None) == has_gold for q in ds.questions)


def test_ultradomain_second_question_file() -> None:
    need_dataset("ultradomain_mix")
    ds = load_dataset("ultradomain_mix", questions_file="questions_lightrag_generated.json")
    assert ds.questions and all(q.answer is None for q in ds.questions)
    assert "task" in ds.questions[0].extra


# --- errors ------------------------------------------------------------------------------------


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    folder = fake_dataset_dir(tmp_path, FAKE_PASSAGES, None)
    with pytest.raises(DataError, match=re.escape(str(folder / "questions.json"))):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_corrupt_json_names_the_file(tmp_path: Path) -> None:
    folder = fake_dataset_dir(tmp_path, '[{"id": "p1",', [FAKE_QUESTION])
    with pytest.raises(DataError, match=re.escape(str(folder / "corpus.json")) + ".*corrupt JSON"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_missing_field_names_file_record_and_field(tmp_path: Path) -> None:
    corpus = [FAKE_PASSAGES[0], {"id": "p2", "title": "B"}]
    fake_dataset_dir(tmp_path, corpus, [FAKE_QUESTION])
    with pytest.raises(DataError, match=r"corpus\.json: record 1: missing required field 'text'"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_unknown_support_is_an_error(tmp_path: Path) -> None:
    bad = {**FAKE_QUESTION, "supporting_passage_ids": ["nope"]}
    fake_dataset_dir(tmp_path, FAKE_PASSAGES, [bad])
    with pytest.raises(DataError, match=r"questions\.json: record 0: .*nope"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_fake_data_dir_loads(tmp_path: Path) -> None:
    fake_dataset_dir(tmp_path, FAKE_PASSAGES, [FAKE_QUESTION])
    ds = load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)
    assert ds.questions[0].supporting_ids == ("p1",)


# --- hostile files (issue 13): a DataError naming file and record, never another exception ------


def test_empty_corpus_is_an_error_not_a_bm25_crash(tmp_path: Path) -> None:
    folder = fake_dataset_dir(tmp_path, [], [{**FAKE_QUESTION, "supporting_passage_ids": []}])
    with pytest.raises(DataError, match=re.escape(str(folder / "corpus.json")) + ".*empty"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_directory_named_corpus_json_is_a_data_error(tmp_path: Path) -> None:
    folder = fake_dataset_dir(tmp_path, None, [FAKE_QUESTION])
    (folder / "corpus.json").mkdir()
    with pytest.raises(DataError, match=re.escape(str(folder / "corpus.json")) + ".*directory"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_deeply_nested_json_names_file_and_record(tmp_path: Path) -> None:
    deep = "[" * 50_000 + "]" * 50_000
    questions = f'[{json.dumps(FAKE_QUESTION)}, {{"id": "q2", "x": {deep}}}]'
    folder = fake_dataset_dir(tmp_path, FAKE_PASSAGES, questions)
    with pytest.raises(DataError, match=re.escape(str(folder / "questions.json")) + ".*record 1"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_truncated_and_non_utf8_files_name_the_record(tmp_path: Path) -> None:
    text = json.dumps([*FAKE_PASSAGES, {"id": "p3", "title": "C", "text": "gamma"}])
    folder = fake_dataset_dir(tmp_path, text[: text.index('"p3"') + 6], [FAKE_QUESTION])
    with pytest.raises(DataError, match=r"corpus\.json: corrupt JSON .*record 2"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)
    (folder / "corpus.json").write_bytes(text.replace("gamma", "gam\xffma").encode("latin-1"))
    with pytest.raises(DataError, match=r"corpus\.json: not UTF-8 .*record 2"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)


def test_lone_surrogate_is_an_error_naming_the_record(tmp_path: Path) -> None:
    corpus = json.dumps([FAKE_PASSAGES[0], {"id": "p2", "title": "B", "text": "x\ud800"}])
    fake_dataset_dir(tmp_path, corpus, [FAKE_QUESTION])
    with pytest.raises(DataError, match=r"corpus\.json: record 1 \(id 'p2'\): a lone surrogate"):
        load_dataset("hotpotqa_dev_sample200", data_dir=tmp_path)
