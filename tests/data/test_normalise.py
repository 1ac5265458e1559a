"""Normalisers against real upstream records (tests/data/fetch) and the shared normalised sets.

The fixtures are the first records of each set's upstream files (see tests/data/fetch/README.md);
what they normalise to must be exactly what ../shared/data holds. When a set's complete upstream
files are in ``../shared/data/<set>/raw/``, the whole set is normalised and compared byte for
byte with the shared corpus (those tests skip otherwise, as they do without ../shared).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from ace_lab.data.fetch_manifest import FETCHABLE, load_fetch_manifest
from ace_lab.data.normalise import (
    NORMALISERS,
    hipporag_musique,
    migres_hotpotqa,
    passage_id,
    serialise,
)
from ace_lab.data.records import DataError
from tests.support.paths import REPO, TEST_DATA

FIXTURES = TEST_DATA / "fetch"
SHARED = REPO.parent / "shared" / "data"


def _normalise(name: str, folder: Path) -> dict[str, list[dict[str, Any]]]:
    normaliser, roles = FETCHABLE[name]
    files = {role: (folder / raw).read_bytes() for raw, role in roles.items()}
    return NORMALISERS[normaliser](files)


def _shared(name: str, file: str) -> list[dict[str, Any]]:
    path = SHARED / name / file
    if not path.is_file():
        pytest.skip(f"{path} not present (no ../shared/data beside the repository)")
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(FETCHABLE))
def test_upstream_records_normalise_to_the_shared_records(name: str) -> None:
    out = _normalise(name, FIXTURES / name)
    corpus = _shared(name, "corpus.json")
    position = {p["id"]: i for i, p in enumerate(corpus)}
    places = [position.get(p["id"]) for p in out["corpus.json"]]
    assert None not in places, "a normalised passage is not in the shared corpus"
    assert [corpus[i] for i in places] == out["corpus.json"]
    assert places == sorted(places), "passages must keep the shared corpus order"
    shared = {q["id"]: q for q in _shared(name, "questions.json")}
    assert out["questions.json"], "the fixture has no questions"
    for question in out["questions.json"]:
        assert question == shared[question["id"]]


@pytest.mark.parametrize("name", sorted(FETCHABLE))
def test_complete_upstream_files_reproduce_the_shared_set(name: str) -> None:
    raw = SHARED / name / "raw"
    _, roles = FETCHABLE[name]
    if not all((raw / file).is_file() for file in roles):
        pytest.skip(f"the upstream files of {name} are not in {raw}")
    out = _normalise(name, raw)
    corpus = serialise(out["corpus.json"])
    assert corpus == (SHARED / name / "corpus.json").read_bytes()
    shared = {q["id"]: q for q in _shared(name, "questions.json")}
    produced = {q["id"]: q for q in out["questions.json"]}
    assert set(shared) <= set(produced)
    assert all(produced[i] == q for i, q in shared.items())
    recorded = {o["name"]: o["sha256"] for o in load_fetch_manifest()["sets"][name]["outputs"]}
    for file, records in out.items():
        assert hashlib.sha256(serialise(records)).hexdigest() == recorded[file]


def test_passage_ids_and_serialisation() -> None:
    assert passage_id("A", "b") == hashlib.sha1(b"A\nb").hexdigest()[:16]
    assert serialise([{"t": "é"}]) == '[\n {\n  "t": "é"\n }\n]'.encode()


def _hotpot_line(qid: str, context: list, facts: list) -> str:
    record = {"_id": qid, "question": "?", "answer": "a", "type": "bridge", "level": "easy"}
    return json.dumps({**record, "supporting_facts": facts, "context": context})


def test_migres_corpus_is_the_union_of_contexts_in_first_seen_order() -> None:
    # Synthetic records in the upstream shape: a paragraph shared by two questions is kept once.
    a, b, c = ["A", ["a1", " a2"]], ["B", ["b"]], ["C", ["c"]]
    lines = [_hotpot_line("q1", [a, b], [["B", 0]]), "", _hotpot_line("q2", [c, a], [["A", 1]])]
    out = migres_hotpotqa({"questions": "\n".join(lines).encode()})
    assert [p["title"] for p in out["corpus.json"]] == ["A", "B", "C"]
    assert out["corpus.json"][0]["text"] == "a1 a2"
    assert out["questions.json"][1]["supporting_passage_ids"] == [passage_id("A", "a1 a2")]


def test_bad_upstream_records_are_one_line_data_errors() -> None:
    with pytest.raises(DataError, match="supporting title 'Z' not in its context"):
        migres_hotpotqa({"questions": _hotpot_line("q", [["A", ["a"]]], [["Z", 0]]).encode()})
    with pytest.raises(DataError, match="line 1: bad JSON"):
        migres_hotpotqa({"questions": b"{nope"})
    with pytest.raises(DataError, match="no upstream corpus file"):
        hipporag_musique({"questions": b"[]"})
    with pytest.raises(DataError, match="corpus record 0: missing field 'text'"):
        hipporag_musique({"questions": b"[]", "corpus": b'[{"title": "A"}]'})
    paragraph = {"title": "A", "paragraph_text": "a", "is_supporting": True}
    record = {
        "id": "q",
        "question": "?",
        "answer": "a",
        "answer_aliases": [],
        "answerable": True,
        "question_decomposition": [],
        "paragraphs": [paragraph],
    }
    with pytest.raises(DataError, match="supporting passage not in corpus"):
        hipporag_musique({"questions": json.dumps([record]).encode(), "corpus": b"[]"})
