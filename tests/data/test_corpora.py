"""Tests for ace_lab.data.corpora: a folder of mixed files registered, re-added, found by name
through the registry, loaded, sliced, listed and removed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ace_lab.data import (
    CORPUS,
    DataError,
    add_corpus,
    chunk_passages,
    dataset_overview,
    default_task,
    list_corpora,
    list_datasets,
    load_dataset,
    make_slice,
    remove_corpus,
    user_data_dir,
)
from ace_lab.data.registry import dataset_dir, get_spec
from tests.support.documents import PAGE, make_pdf
from tests.support.toy_mixed import OUT as TOY_MIXED
from tests.support.toy_mixed import mixed_files


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user"
    monkeypatch.setenv("ACE_LAB_USER_DATA", str(folder))
    return folder


def mixed_folder(root: Path) -> Path:
    """Markdown, HTML (script, navigation), PDF, JSON, JSONL and CSV: 8 documents."""
    docs = root / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "alpha.md").write_text("# Alpha\n\nAlpha is the first letter.")
    (docs / "sub" / "page.html").write_text(PAGE)
    (docs / "sub" / "bio.pdf").write_bytes(make_pdf("Ilse Marrin was born in Kesterholm."))
    (docs / "recs.json").write_text(json.dumps([{"id": "r1", "title": "R", "text": "rho"}]))
    (docs / "recs.jsonl").write_text('{"text": "sigma"}\n{"title": "T", "text": "tau"}\n')
    (docs / "recs.csv").write_text("title,text\nU,upsilon\nP,phi\n")
    return docs


def test_user_data_dir_follows_the_environment(user_dir: Path) -> None:
    assert user_data_dir() == user_dir


def test_a_mixed_folder_becomes_a_data_set(user_dir: Path, tmp_path: Path) -> None:
    report = add_corpus("notes", mixed_folder(tmp_path), progress=False)
    assert len(report.added) == 8 and report.skipped == [] and report.unchanged == 0
    assert report.folder == user_dir / "corpora" / "notes"
    stored = json.loads((report.folder / "corpus.json").read_text())
    assert {r["source"] for r in stored} == {
        "alpha.md",
        "recs.csv#0",
        "recs.csv#1",
        "recs.json#0",
        "recs.jsonl#0",
        "recs.jsonl#1",
        "sub/bio.pdf",
        "sub/page.html",
    }
    spec = get_spec("notes")
    assert (spec.setting, spec.schema, dataset_dir(spec)) == (CORPUS, "user", report.folder)
    ds = load_dataset("notes")
    assert ds.setting == CORPUS and len(ds.passages) == 8 and ds.questions == []
    assert ds.passage("r1").text == "rho" and ds.passage("r1").meta["source"] == "recs.json#0"
    sl = make_slice(ds, 50, seed=3)
    assert sl.slice_id == "notes" and sl.passages == ds.passages and sl.questions == []
    assert "notes" in list_datasets() and default_task("notes") == "open"
    overview = dataset_overview().set_index("name")
    assert overview.loc["notes", "present"] == "user corpus"
    assert overview.loc["notes", "passages"] == 8


def test_every_hostile_file_is_one_skip_line_and_the_rest_is_read(tmp_path, user_dir) -> None:
    docs = mixed_folder(tmp_path)
    (docs / "empty.txt").write_bytes(b"")
    (docs / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (docs / "windows.txt").write_bytes("Caf\xe9 cr\xe8me".encode("cp1252"))
    (docs / "locked.pdf").write_bytes(make_pdf(password="secret"))
    (docs / "scan.pdf").write_bytes(make_pdf(None))
    with open(docs / "huge.txt", "wb") as fh:
        fh.truncate(200 * 1024 * 1024)
    (docs / "loop").symlink_to(docs)
    (docs / "slides.pptx").write_bytes(b"PK\x03\x04")
    (docs / "copy-of-alpha.md").write_text("# Alpha\n\nAlpha is the first letter.\n")
    (docs / "bad.jsonl").write_text('{"text": "chi"}\n{"title": "no text"}\n')
    (docs / ".DS_Store").write_bytes(b"\x00\x01")
    report = add_corpus("hostile", docs, progress=False)
    assert report.skipped == [
        ("bad.jsonl#1", "no 'text' field"),
        ("binary.md", "binary file (NUL bytes)"),
        ("copy-of-alpha.md", "duplicate of alpha.md"),
        ("empty.txt", "empty file"),
        ("huge.txt", "too large: 200.0 MB > the 50.0 MB cap"),
        ("locked.pdf", "encrypted PDF (save an unencrypted copy to add it)"),
        ("loop", "symlink loop (links back to .)"),
        ("scan.pdf", "image-only PDF: no text layer in 1 page(s) (OCR it first)"),
        ("slides.pptx", report.skipped[8][1]),
    ]
    assert report.skipped[8][1].startswith("unsupported file type '.pptx'")
    assert report.notes == [
        ("windows.txt", "not UTF-8 (byte 3): decoded as cp1252 (Windows Latin-1)")
    ]
    assert len(report.added) == 8 + 2 and report.hidden == 1  # + chi, + the cp1252 file
    summary = report.summary().splitlines()
    assert len(summary) == 1 + 9 + 1 + 1 + 1  # headline, skips, note, hidden, folder
    meta = json.loads((report.folder / "corpus_meta.json").read_text())
    assert meta["skipped"][2] == ["copy-of-alpha.md", "duplicate of alpha.md"]


def test_adding_again_keeps_ids_and_appends_only_new_documents(tmp_path, user_dir) -> None:
    docs = mixed_folder(tmp_path)
    first = add_corpus("grow", docs, progress=False)
    before = make_slice(load_dataset("grow"), 1)
    (docs / "sub" / "new.md").write_text("Omega is the last letter.")
    again = add_corpus("grow", docs, progress=False)
    assert [d.source for d in again.added] == ["sub/new.md"]
    assert again.unchanged == len(first.added) and again.skipped == []
    after = make_slice(load_dataset("grow"), 1)
    assert after.slice_id == before.slice_id == "grow"
    assert [p.id for p in after.passages][:-1] == [p.id for p in before.passages]
    # a graph build keyed by chunk id finds every earlier chunk again: only the new one is new
    old_chunks = [c.id for c in chunk_passages(before.passages)]
    new_chunks = [c.id for c in chunk_passages(after.passages)]
    assert new_chunks[: len(old_chunks)] == old_chunks and len(new_chunks) == len(old_chunks) + 1
    one_file = tmp_path / "extra.txt"
    one_file.write_text("Psi, added as a single file.")
    assert [d.source for d in add_corpus("grow", one_file, progress=False).added] == ["extra.txt"]
    assert list_corpora()[0].sources == (str(docs), str(one_file))


def test_questions_are_stored_and_set_the_default_task(tmp_path, user_dir) -> None:
    docs = mixed_folder(tmp_path)
    questions = tmp_path / "q.csv"
    questions.write_text("question,answer,answer_aliases\nWho was born in Kesterholm?,Ilse|I. M.\n")
    questions.write_text(
        "question,answer,answer_aliases\nWho was born in Kesterholm?,Ilse Marrin,Ilse|I. M.\n"
    )
    report = add_corpus("asked", docs, questions=questions, progress=False)
    assert (report.questions, report.task, report.answers) == (1, "qa", "spans")
    (q,) = load_dataset("asked").questions
    assert (q.answer, q.aliases, q.supporting_ids) == ("Ilse Marrin", ("Ilse", "I. M."), ())
    assert make_slice(load_dataset("asked"), 1).questions == [q]
    assert default_task("asked") == "qa"
    # adding more files keeps the questions; a new questions file replaces them
    (docs / "more.md").write_text("More text.")
    assert add_corpus("asked", docs, progress=False).questions == 1
    long_answers = tmp_path / "q.jsonl"
    long_answers.write_text(
        json.dumps({"question": "What happened?", "answer": "A long answer " * 4}) + "\n"
    )
    report = add_corpus("asked", docs, questions=long_answers, progress=False)
    assert (report.questions, report.task, report.answers) == (1, "open", "sentences")
    assert default_task("asked") == "open"


def test_a_broken_questions_file_changes_nothing(tmp_path, user_dir) -> None:
    docs = mixed_folder(tmp_path)
    (tmp_path / "q.json").write_text("[{")
    with pytest.raises(DataError, match="corrupt JSON"):
        add_corpus("never", docs, questions=tmp_path / "q.json", progress=False)
    assert list_corpora() == [] and not (user_dir / "corpora" / "never").exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../escape", "bad corpus name"),
        ("two words", "bad corpus name"),
        ("", "bad corpus name"),
        (".hidden", "bad corpus name"),
        ("toy", "taken by the benchmark set 'toy'"),
        ("HotpotQA_dev_sample200", "taken by the benchmark set 'hotpotqa_dev_sample200'"),
    ],
)
def test_names_are_checked(tmp_path, user_dir, name: str, message: str) -> None:
    with pytest.raises(DataError, match=message) as info:
        add_corpus(name, mixed_folder(tmp_path), progress=False)
    assert "\n" not in str(info.value)
    assert not (user_dir / "corpora").exists() or list_corpora() == []


def test_paths_without_documents_are_one_line_errors(tmp_path, user_dir) -> None:
    with pytest.raises(DataError, match="no such file or folder"):
        add_corpus("c", tmp_path / "missing", progress=False)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "a.bin").write_bytes(b"\x00")
    (bad / "b.txt").write_bytes(b"")
    with pytest.raises(DataError, match=r"no documents to add \(2 skipped: a.bin: unsupported"):
        add_corpus("c", bad, progress=False)
    assert list_corpora() == []


def test_unknown_names_list_the_benchmarks_and_the_user_corpora(tmp_path, user_dir) -> None:
    add_corpus("mine", mixed_folder(tmp_path), progress=False)
    with pytest.raises(
        DataError, match=r"unknown dataset 'nope'; known: toy, .*your corpora: mine"
    ):
        get_spec("nope")
    with pytest.raises(KeyError):  # still a KeyError, as unknown names always were
        load_dataset("nope")


def test_list_and_remove(tmp_path, user_dir) -> None:
    docs = mixed_folder(tmp_path)
    add_corpus("b-set", docs, progress=False)
    add_corpus("a.set", docs, progress=False)
    infos = list_corpora()
    assert [i.name for i in infos] == ["a.set", "b-set"]
    assert (infos[0].documents, infos[0].questions, infos[0].answers) == (8, 0, "none")
    assert remove_corpus("a.set") is True and remove_corpus("a.set") is False
    assert remove_corpus("../user") is False and user_dir.is_dir()
    assert [i.name for i in list_corpora()] == ["b-set"] and docs.is_dir()
    with pytest.raises(DataError, match=r"unknown dataset 'a\.set'"):
        get_spec("a.set")


def test_root_puts_corpora_elsewhere(tmp_path, user_dir) -> None:
    root = tmp_path / "elsewhere"
    add_corpus("c", mixed_folder(tmp_path), root=root, progress=False)
    assert [i.name for i in list_corpora(root)] == ["c"] and list_corpora() == []
    assert remove_corpus("c", root=root)


def test_the_committed_toy_mixed_folder_is_what_the_generator_writes(tmp_path, user_dir) -> None:
    files = mixed_files()
    committed = {
        p.relative_to(TOY_MIXED).as_posix(): p.read_bytes()
        for p in sorted(TOY_MIXED.rglob("*"))
        if p.is_file()
    }
    assert committed == files  # regenerate with: .venv/bin/python -m tests.toy_mixed
    assert sum(len(b) for b in files.values()) < 200_000
    report = add_corpus(
        "toy_mixed",
        TOY_MIXED / "documents",
        questions=TOY_MIXED / "questions.csv",
        progress=False,
    )
    assert (len(report.added), report.skipped, report.questions) == (16, [], 3)
    toy = {
        p["title"]: " ".join(p["text"].split())
        for p in json.loads((TOY_MIXED.parent / "toy" / "corpus.json").read_text())
    }
    for passage in load_dataset("toy_mixed").passages:
        body = " ".join(passage.text.split()).replace("–", "-")
        assert body.endswith(toy[passage.title].replace("–", "-")), passage.meta["source"]
