"""Fixtures of the GraphRAG-Bench metric tests."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.grb_study import DATASET, QUESTIONS, document


@pytest.fixture
def private_embedding_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh cache folder for the test's embeddings (``ACE_LAB_CACHE_DIR``)."""
    monkeypatch.setenv("ACE_LAB_CACHE_DIR", str(tmp_path / "embed-cache"))


@pytest.fixture
def grb_settings(settings, tmp_path):
    """``settings`` whose data folder holds the study's set (:mod:`tests.support.grb_study`)."""
    folder = tmp_path / "data" / DATASET
    folder.mkdir(parents=True)
    corpus = [{"id": "Medical", "title": "Medical", "text": document()}]
    questions = [
        {
            "id": i,
            "source": "Medical",
            "question": q,
            "answer": a,
            "question_type": t,
            "evidence": e,
        }
        for i, t, q, a, e in QUESTIONS
    ]
    (folder / "corpus.json").write_text(json.dumps(corpus))
    (folder / "questions.json").write_text(json.dumps(questions))
    return replace(settings, data_dir=tmp_path / "data")
