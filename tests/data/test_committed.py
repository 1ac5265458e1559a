"""ace_lab.data.committed and ace_lab.data.access: the committed slice files are exactly what the
full sets give, and load_slice serves a slice from the full set or, without it, from its file.

The comparisons with the full sets skip where those are absent (and fail on CI,
``need_dataset``); everything else runs on the committed files alone, as on a fresh clone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ace_lab.data import (
    DataError,
    Slice,
    dataset_overview,
    load_available,
    load_dataset,
    load_slice,
    make_slice,
    presence,
)
from ace_lab.data.access import FULL, SLICES, first_questions
from ace_lab.data.committed import (
    COMMITTED_SLICES,
    committed_slices,
    derive_slice,
    read_slice_file,
    slice_path,
    slice_text,
    write_slices,
)
from ace_lab.data.graphragbench import DEFAULT_DISTRACTORS as GRB_DISTRACTORS
from ace_lab.data.graphragbench import QUESTION_TYPES, slice_summary
from ace_lab.data.registry import get_spec, pooled_base
from tests.support.datasets import FAKE_PASSAGES, FAKE_QUESTION, fake_dataset_dir, need_dataset

IDS = [f"{name}-n{n}-s{seed}" for name, n, seed in COMMITTED_SLICES]
#: Smaller slices served from a committed one (per_question and shared sets nest).
NESTED = [
    ("hotpotqa_dev_sample200", 5),
    ("2wikimultihopqa_hipporag1000", 7),
    ("musique_dev_sample292", 10),
    ("hotpotqa_train_sample100_hipporag_pooled", 30),
]


def _everything(sl: Slice) -> tuple:
    """Every field of a slice, including what Passage/Question equality skips (meta, extra)."""
    return (
        sl.slice_id,
        sl.dataset_name,
        sl.n,
        sl.seed,
        sl.setting,
        sl.variant,
        [(q, dict(q.extra)) for q in sl.questions],
        [(p, dict(p.meta)) for p in sl.passages],
        list(sl.question_passage_ids.items()),
    )


@pytest.fixture
def no_full_sets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """ACE_LAB_DATA names an empty directory: no full set but the toy corpus is here."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("ACE_LAB_DATA", str(empty))
    return empty


# ------------------------------------------------------------------ the files themselves
def test_every_committed_slice_has_its_file_and_nothing_else_is_there() -> None:
    assert committed_slices() == sorted(COMMITTED_SLICES)
    for slice_id in IDS:
        assert slice_path(slice_id).is_file(), slice_id


@pytest.mark.parametrize("slice_id", IDS)
def test_file_reads_back_to_its_own_text(slice_id: str) -> None:
    path = slice_path(slice_id)
    sl = read_slice_file(path)
    assert sl.slice_id == slice_id and len(sl.questions) == sl.n
    assert path.read_text(encoding="utf-8") == slice_text(sl)  # stable: regeneration is exact
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["source"] and record["licence"]
    fetched = pooled_base(sl.dataset_name)  # a pooled view is derived from its set's files
    assert record["regenerate"].startswith(f"ace-lab data fetch {fetched} && ")
    assert slice_id in record["regenerate"]


@pytest.mark.parametrize("slice_id", IDS)
def test_file_holds_every_question_with_its_passages(slice_id: str) -> None:
    sl = read_slice_file(slice_path(slice_id))
    ids = set(sl.passage_ids)
    assert list(sl.question_passage_ids) == [q.id for q in sl.questions]
    assert set().union(*map(set, sl.question_passage_ids.values())) == ids
    for q in sl.questions:
        assert set(q.supporting_ids) <= set(sl.question_passage_ids[q.id]), q.id
    spec = get_spec(sl.dataset_name)
    if spec.passages_per_question:
        assert all(len(g) == spec.passages_per_question for g in sl.question_passage_ids.values())


@pytest.mark.parametrize("name", ["graphragbench_medical", "graphragbench_novel"])
def test_graphragbench_files_hold_evidence_and_distractor_chunks(name: str) -> None:
    sl = read_slice_file(slice_path(f"{name}-n20-s0"))
    assert {q.type for q in sl.questions} == set(QUESTION_TYPES)
    for q in sl.questions:
        source = q.extra["source_ids"][0]
        assert q.supporting_ids and all(c.startswith(f"{source}#c") for c in q.supporting_ids)
        assert len(q.extra["evidence_chunk_ids"]) == len(q.extra["evidence_statements"])
        assert len(q.extra["distractor_ids"]) == GRB_DISTRACTORS
    summary = slice_summary(sl)
    assert summary["distractor_chunks"] == 20 * GRB_DISTRACTORS
    assert summary["chunks"] == summary["evidence_chunks"] + summary["distractor_chunks"]
    assert all(p.meta["doc_id"] == p.id.split("#c")[0] for p in sl.passages)


# ------------------------------------------------------------------ full set == committed file
@pytest.mark.parametrize("slice_id", IDS)
def test_committed_file_is_what_the_full_set_gives(slice_id: str, tmp_path: Path) -> None:
    name, n, seed = COMMITTED_SLICES[IDS.index(slice_id)]
    need_dataset(name)
    full = make_slice(load_dataset(name), n, seed=seed)
    committed = load_slice(name, n, seed, data_dir=tmp_path)  # no full set in tmp_path
    assert _everything(full) == _everything(committed)
    assert _everything(load_slice(name, n, seed)) == _everything(committed)
    assert slice_text(full) == slice_path(slice_id).read_text(encoding="utf-8")


@pytest.mark.parametrize(("name", "n"), NESTED)
def test_a_smaller_slice_of_a_nesting_set_is_what_the_full_set_gives(
    name: str, n: int, tmp_path: Path
) -> None:
    committed = load_slice(name, n, data_dir=tmp_path)
    assert committed.slice_id == f"{name}-n{n}-s0" and len(committed.questions) == n
    need_dataset(name)
    assert _everything(make_slice(load_dataset(name), n)) == _everything(committed)


def test_write_slices_is_byte_identical_where_the_full_sets_are_here() -> None:
    for name, _, _ in COMMITTED_SLICES:
        need_dataset(name)
    assert write_slices(check=True) == []


# ------------------------------------------------------------------ without the full sets
def test_without_full_sets_load_slice_reads_the_committed_files(no_full_sets: Path) -> None:
    for (name, n, seed), slice_id in zip(COMMITTED_SLICES, IDS, strict=True):
        assert presence(name) == SLICES
        sl = load_slice(name, n, seed)
        assert _everything(sl) == _everything(read_slice_file(slice_path(slice_id)))
    assert presence("toy") == FULL and load_slice("toy", 3).slice_id == "toy-n3-s0"


def test_n_none_is_the_committed_slice(no_full_sets: Path) -> None:
    assert load_slice("musique_dev_sample292").slice_id == "musique_dev_sample292-n20-s0"
    assert load_slice("ultradomain_mix").slice_id == "ultradomain_mix-n8-s0"
    assert load_slice("toy").n == 8  # a full set without committed slices: every question


@pytest.mark.parametrize(
    ("name", "n", "seed"),
    [
        ("hotpotqa_dev_sample200", 20, 1),  # another seed
        ("musique_dev_sample292", 21, 0),  # more questions than committed
        ("graphragbench_medical", 10, 0),  # document sets do not nest
        ("ultradomain_mix", 4, 0),
        ("msgraphrag_podcast", 5, 0),  # nothing committed
    ],
)
def test_a_slice_not_committed_names_the_fetch_command(
    name: str, n: int, seed: int, no_full_sets: Path
) -> None:
    with pytest.raises(DataError) as err:
        load_slice(name, n, seed)
    message = str(err.value)
    assert "\n" not in message and f"ace-lab data fetch {name}" in message


def test_out_of_range_n_is_a_data_error(no_full_sets: Path) -> None:
    with pytest.raises(DataError, match="n must be >= 1"):
        load_slice("hotpotqa_dev_sample200", 0)
    with pytest.raises(DataError, match="more than its 8 questions"):
        load_slice("toy", 9)
    with pytest.raises((KeyError, DataError), match="unknown dataset"):
        load_slice("no_such_set", 5)
    sl = load_slice("hotpotqa_dev_sample200", 20)
    with pytest.raises(DataError, match="cannot take n=21"):
        first_questions(sl, 21)


def test_deriving_a_slice_needs_the_full_set(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="ace-lab data fetch hotpotqa_dev_sample200"):
        derive_slice("hotpotqa_dev_sample200", 20, data_dir=tmp_path)
    with pytest.raises(DataError, match="not a slice id"):
        write_slices(["hotpotqa"], data_dir=tmp_path, folder=tmp_path)


def test_a_present_but_broken_full_set_is_an_error_not_a_fallback(tmp_path: Path) -> None:
    fake_dataset_dir(tmp_path, "[{", [FAKE_QUESTION])
    with pytest.raises(DataError, match=r"corpus\.json"):
        load_slice("hotpotqa_dev_sample200", 20, seed=1, data_dir=tmp_path)  # not committed


def test_a_committed_slice_comes_from_its_file_and_any_other_from_the_full_set(
    tmp_path: Path,
) -> None:
    """A committed id always names the committed questions, even beside another full set (a
    complete upstream set can order other questions first); other slices need the full set."""
    fake_dataset_dir(tmp_path, FAKE_PASSAGES, [FAKE_QUESTION])
    assert presence("hotpotqa_dev_sample200", tmp_path) == FULL
    committed = read_slice_file(slice_path("hotpotqa_dev_sample200-n20-s0"))
    sl = load_slice("hotpotqa_dev_sample200", 20, data_dir=tmp_path)
    assert _everything(sl) == _everything(committed)
    assert (
        load_slice("hotpotqa_dev_sample200", 3, data_dir=tmp_path).questions
        == (committed.questions[:3])
    )
    other = load_slice("hotpotqa_dev_sample200", 1, seed=5, data_dir=tmp_path)
    assert [q.id for q in other.questions] == ["q1"]


def test_an_explicit_data_dir_that_does_not_exist_stays_an_error(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="does not exist"):
        load_slice("hotpotqa_dev_sample200", 20, data_dir=tmp_path / "typo")


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda r: r.pop("questions"), "field 'questions' must be list"),
        (lambda r: r["questions"][0].update(answer=3), r"questions\[0\]: field 'answer'"),
        (lambda r: r["passages"][0].pop("text"), r"passages\[0\]: field 'text'"),
        (lambda r: r["question_passage_ids"].popitem(), "question_passage_ids"),
        (lambda r: r["passages"].pop(), "names passages the file does not hold"),
        (lambda r: r.update(n=19), "holds hotpotqa_dev_sample200-n19-s0 with 20 questions"),
    ],
)
def test_a_broken_committed_file_is_a_one_line_error_naming_it(tmp_path, edit, match) -> None:
    slice_id = "hotpotqa_dev_sample200-n20-s0"
    record = json.loads(slice_path(slice_id).read_text(encoding="utf-8"))
    edit(record)
    path = tmp_path / f"{slice_id}.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(DataError, match=match) as err:
        read_slice_file(path)
    assert str(err.value).startswith(str(path)) and "\n" not in str(err.value)


# ------------------------------------------------------------------ overview
def test_overview_marks_slice_only_sets(no_full_sets: Path) -> None:
    overview = dataset_overview().set_index("name")
    assert overview.loc["toy", "present"] == FULL
    row = overview.loc["hotpotqa_dev_sample200"]
    assert row["present"] == SLICES and row["questions"] == 20 and row["passages"] == 200
    assert row["slices"] == "hotpotqa_dev_sample200-n20-s0"
    assert "msgraphrag_podcast" not in overview.index  # neither full nor committed
    ds = load_available("graphragbench_novel")
    assert len(ds.questions) == 20 and all("#c" in p.id for p in ds.passages)
    with pytest.raises(DataError, match="ace-lab data fetch msgraphrag_podcast"):
        load_available("msgraphrag_podcast")


def test_a_user_corpus_slice_is_the_whole_corpus(tmp_path, monkeypatch) -> None:
    from ace_lab.data.corpora import add_corpus

    monkeypatch.setenv("ACE_LAB_USER_DATA", str(tmp_path / "user"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Whales sing long songs in the ocean.", encoding="utf-8")
    (docs / "b.txt").write_text("Comets carry ice around the sun.", encoding="utf-8")
    add_corpus("h1notes", docs, progress=False)
    for n in (None, 5):
        sl = load_slice("h1notes", n)
        assert sl.slice_id == "h1notes" and len(sl.passages) == 2
    assert presence("h1notes") == FULL
