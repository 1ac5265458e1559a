"""Tests for ace_lab.data.ingest: the folder walk (order, hidden, links) and merging documents."""

from __future__ import annotations

import os
from pathlib import Path

from ace_lab.data.documents import Document, content_id
from ace_lab.data.ingest import IngestReport, ingest, walk


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def run(path: Path, existing: list[Document] | None = None) -> IngestReport:
    report = IngestReport("c", path)
    ingest(path, report, existing or [], {}, progress=False)
    return report


def test_walk_is_sorted_recursive_and_skips_hidden(tmp_path: Path) -> None:
    write(tmp_path, {"b.md": "b", "a/z.txt": "z", "a/c.txt": "c", ".git/x.txt": "x", ".h.md": "h"})
    entries, hidden = walk(tmp_path)
    assert [(source, why) for source, _, why in entries] == [
        ("a/c.txt", None),
        ("a/z.txt", None),
        ("b.md", None),
    ]
    assert hidden == 2
    single, _ = walk(tmp_path / "b.md")
    assert single == [("b.md", tmp_path / "b.md", None)]


def test_links_are_followed_unless_broken_or_looping(tmp_path: Path) -> None:
    write(tmp_path, {"docs/a.md": "a", "other/b.md": "b"})
    docs = tmp_path / "docs"
    (docs / "ancestor").symlink_to(docs)  # a folder link back to the walked folder
    (docs / "self.md").symlink_to(docs / "self.md")  # a link to itself
    (docs / "gone.md").symlink_to(docs / "missing.md")
    (docs / "other").symlink_to(tmp_path / "other")  # a good folder link
    (docs / "other-again").symlink_to(tmp_path / "other")
    (docs / "b-link.md").symlink_to(tmp_path / "other" / "b.md")  # a good file link
    entries, _ = walk(docs)
    assert [(source, why) for source, _, why in entries] == [
        ("a.md", None),
        ("ancestor", "symlink loop (links back to .)"),
        ("b-link.md", None),
        ("gone.md", "broken symlink (its target does not exist)"),
        ("other/b.md", None),
        ("other-again", "same folder as other (read once)"),
        ("self.md", "symlink loop (the link resolves to itself)"),
    ]


def test_duplicates_are_kept_once_and_named(tmp_path: Path) -> None:
    write(tmp_path, {"a.md": "same text", "b.txt": "same text\n", "c.jsonl": '{"text": "x"}\n'})
    (tmp_path / "d.json").write_text('[{"id": "mine", "text": "same text"}, {"text": "x"}]')
    report = run(tmp_path)
    assert [d.source for d in report.added] == ["a.md", "c.jsonl#0"]
    assert report.skipped == [
        ("b.txt", "duplicate of a.md"),
        ("d.json#0", "duplicate of a.md"),
        ("d.json#1", "duplicate of c.jsonl#0"),
    ]


def test_merging_keeps_existing_documents_and_refuses_id_clashes(tmp_path: Path) -> None:
    write(tmp_path, {"a.md": "alpha", "b.md": "beta"})
    (tmp_path / "r.json").write_text('[{"id": "k", "text": "new text for an old id"}]')
    old = [
        Document(content_id("alpha"), "a", "alpha", "a.md"),
        Document("k", "K", "kappa", "elsewhere.txt"),
    ]
    report = run(tmp_path, old)
    assert report.unchanged == 1 and [d.source for d in report.added] == ["b.md"]
    assert report.skipped == [
        ("r.json#0", "id 'k' is already used by elsewhere.txt for a different text")
    ]


def test_a_file_unchanged_since_the_last_add_is_not_read_again(tmp_path, monkeypatch) -> None:
    write(tmp_path, {"a.md": "alpha", "b.md": "beta"})
    report = IngestReport("c", tmp_path)
    records = ingest(tmp_path, report, [], {}, progress=False)
    assert set(records) == {str(tmp_path / "a.md"), str(tmp_path / "b.md")}
    reads: list[str] = []
    import ace_lab.data.ingest as ingest_module

    real = ingest_module.read_document_file
    monkeypatch.setattr(
        ingest_module,
        "read_document_file",
        lambda path, source, cap: reads.append(source) or real(path, source, cap),
    )
    (tmp_path / "b.md").write_text("beta, edited")
    os.utime(tmp_path / "b.md", ns=(1, 1))
    again = IngestReport("c", tmp_path)
    ingest(tmp_path, again, report.added, records, progress=False)
    assert reads == ["b.md"] and again.unchanged == 1
    assert [d.text for d in again.added] == ["beta, edited"]
    assert again.notes == [("b.md", "changed since the last add: new text added, old kept")]


def test_summary_has_one_line_per_skip_and_note(tmp_path: Path) -> None:
    write(tmp_path, {"a.md": "alpha", "b.xyz": "?"})
    (tmp_path / "c.txt").write_bytes("caf\xe9".encode("latin-1"))
    report = run(tmp_path)
    lines = report.summary().splitlines()
    assert lines[0].startswith("corpus 'c': 2 added, 0 unchanged, 1 skipped")
    assert lines[1].startswith("  skipped b.xyz: unsupported file type '.xyz'")
    assert lines[2].startswith("  note c.txt: not UTF-8") and len(lines) == 4
