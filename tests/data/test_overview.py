"""Tests for ace_lab.data.overview: the per-set summary table and its helpers."""

from __future__ import annotations

from pathlib import Path

from ace_lab.data import dataset_overview, load_dataset, passage_lengths, question_type_counts
from tests.support.datasets import FAKE_PASSAGES, FAKE_QUESTION, fake_dataset_dir


def test_overview_helpers_on_toy() -> None:
    ds = load_dataset("toy")
    counts = question_type_counts(ds)
    assert counts["bridge"] == 4 and counts.sum() == 8
    lengths = passage_lengths(ds)
    assert lengths.shape == (16,) and (lengths > 20).all()


def test_overview_of_a_fake_data_dir(tmp_path: Path) -> None:
    fake_dataset_dir(tmp_path, FAKE_PASSAGES, [FAKE_QUESTION])
    overview = dataset_overview(tmp_path)
    full = overview[overview["present"] == "full set"]
    assert list(full["name"]) == ["toy", "hotpotqa_dev_sample200"]
    # The other sets of data/slices are listed as committed slices only.
    rest = overview[overview["present"] != "full set"]
    assert set(rest["present"]) == {"committed slices"}
    assert "2wikimultihopqa_hipporag1000" in set(rest["name"])


def test_an_unreadable_corpus_is_a_row_saying_why_not_a_failure(tmp_path, monkeypatch):
    from ace_lab.data import add_corpus, dataset_overview

    monkeypatch.setenv("ACE_LAB_USER_DATA", str(tmp_path / "user"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Alpha founded the Beta works.\n")
    add_corpus("broken", docs, progress=False)
    add_corpus("fine", docs, progress=False)
    (tmp_path / "user" / "corpora" / "broken" / "corpus.json").write_text('[{"id": ')
    rows = dataset_overview().set_index("name")
    assert rows.loc["broken", "present"].startswith("unreadable: ")
    assert "corpus.json" in rows.loc["broken", "present"]
    assert rows.loc["fine", "present"] == "user corpus"
