"""Tests for ace_lab.data.registry: the set table, finding the data directory, listing sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from ace_lab.data import (
    DATASETS,
    DOCUMENTS,
    TOY,
    DataError,
    default_task,
    list_datasets,
    resolve_data_dir,
)
from ace_lab.data.registry import dataset_dir, get_spec
from tests.support.datasets import FAKE_PASSAGES, FAKE_QUESTION, fake_dataset_dir


def test_registry_table_and_lookup() -> None:
    assert next(iter(DATASETS)) == TOY
    assert get_spec("ultradomain_mix").anchored and get_spec("ultradomain_mix").setting == DOCUMENTS
    assert get_spec("musique_dev_sample292").passages_per_question == 20
    with pytest.raises(KeyError, match="unknown dataset"):
        get_spec("no_such_set")


def test_fake_data_dir_lists_its_sets(tmp_path: Path) -> None:
    fake_dataset_dir(tmp_path, FAKE_PASSAGES, [FAKE_QUESTION])
    assert list_datasets(tmp_path) == ["toy", "hotpotqa_dev_sample200"]


def test_resolve_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_data_dir(tmp_path) == tmp_path.resolve()
    monkeypatch.setenv("ACE_LAB_DATA", str(tmp_path))
    assert resolve_data_dir() == tmp_path.resolve()
    with pytest.raises(DataError, match="does not exist"):
        resolve_data_dir(tmp_path / "missing")


def test_graphragbench_sets_are_answered_in_sentences_the_others_as_spans():
    assert default_task("graphragbench_medical") == default_task("graphragbench_novel") == "open"
    assert {default_task(n) for n in DATASETS if not n.startswith("graphragbench")} == {"qa"}
    with pytest.raises(KeyError, match="unknown dataset"):
        default_task("nope")


def test_a_pooled_view_is_listed_where_its_set_is_present(tmp_path: Path) -> None:
    # a view has no files of its own: CI's data tests found the pooled slices "missing"
    base = get_spec("hotpotqa_train_sample100_hipporag")
    folder = dataset_dir(base, tmp_path)
    folder.mkdir(parents=True)
    (folder / base.question_files[0]).write_text("[]", encoding="utf-8")
    listed = list_datasets(tmp_path)
    assert listed[-2:] == [
        "hotpotqa_train_sample100_hipporag",
        "hotpotqa_train_sample100_hipporag_pooled",
    ]
    assert "musique_train_sample100_hipporag_pooled" not in listed  # its set is absent
