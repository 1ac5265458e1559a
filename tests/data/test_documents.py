"""Tests for ace_lab.data.documents: each format read into documents, each bad file one reason."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ace_lab.data import documents
from ace_lab.data.documents import (
    SkipFile,
    content_id,
    decode_text,
    read_document_file,
)
from tests.support.documents import PAGE, make_pdf


def read(tmp_path: Path, name: str, content: str | bytes) -> documents.FileResult:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return read_document_file(path, name)


def skip_reason(tmp_path: Path, name: str, content: str | bytes, **kwargs: int) -> str:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    with pytest.raises(SkipFile) as info:
        read_document_file(path, name, **kwargs)
    return str(info.value)


def test_text_and_markdown_are_read_as_they_are(tmp_path: Path) -> None:
    (doc,) = read(tmp_path, "notes.txt", "Line one.\r\nLine two.\n").documents
    assert (doc.title, doc.text, doc.source) == ("notes", "Line one.\nLine two.", "notes.txt")
    (md,) = read(tmp_path, "a.md", "Intro line\n\n## The Heading ##\n\nBody *text*.").documents
    assert md.title == "The Heading" and md.text.endswith("Body *text*.")
    assert md.id == content_id(md.text) and len(md.id) == 16


def test_html_main_text_without_scripts_navigation_or_footer(tmp_path: Path) -> None:
    (doc,) = read(tmp_path, "page.html", PAGE).documents
    assert doc.title == "Lantern Works"
    assert "founded in 1889 by Ilse Marrin" in doc.text and "Brinemouth" in doc.text
    for boilerplate in ("SCRIPT-TEXT", "NAV-TEXT", "FOOTER-TEXT", "color: red"):
        assert boilerplate not in doc.text
    untitled = PAGE.replace("<title>Lantern Works</title>", "")
    assert read(tmp_path, "b.htm", untitled).documents[0].title == "The Varrowmere Lantern Works"
    tiny = "<html><body><p>Only a line.</p></body></html>"
    assert read(tmp_path, "c.html", tiny).documents[0].text == "Only a line."


def test_pdf_text_layer_and_title(tmp_path: Path) -> None:
    data = make_pdf("Ilse Marrin was born in Kesterholm in 1861.", title="Marrin")
    (doc,) = read(tmp_path, "bio.pdf", data).documents
    assert doc.title == "Marrin" and doc.text == "Ilse Marrin was born in Kesterholm in 1861."
    assert read(tmp_path, "untitled.pdf", make_pdf()).documents[0].title == "untitled"


def test_records_in_json_jsonl_and_csv(tmp_path: Path) -> None:
    recs = [{"id": "a1", "title": "A", "text": "alpha"}, {"text": "beta"}, {"id": 7, "text": "g"}]
    docs = read(tmp_path, "r.json", json.dumps(recs)).documents
    assert [(d.id, d.title, d.source) for d in docs] == [
        ("a1", "A", "r.json#0"),
        (content_id("beta"), "r 1", "r.json#1"),
        ("7", "r 2", "r.json#2"),
    ]
    single = read(tmp_path, "one.json", '{"title": "T", "text": "solo"}').documents
    assert [(d.title, d.text) for d in single] == [("T", "solo")]
    lines = '{"text": "one"}\n\n{"id": "x", "text": "two\\u2028still two"}\n'
    assert [d.id for d in read(tmp_path, "r.jsonl", lines).documents] == [content_id("one"), "x"]
    table = 'id,title,text\n,First,"one, with a comma"\nk2,,"two\nlines"\n'
    docs = read(tmp_path, "r.csv", table).documents
    assert [(d.id, d.title, d.text) for d in docs] == [
        (content_id("one, with a comma"), "First", "one, with a comma"),
        ("k2", "r 1", "two\nlines"),
    ]


def test_malformed_records_are_skipped_alone_named_by_file_and_index(tmp_path: Path) -> None:
    recs = [{"text": "good"}, {"title": "no text"}, "a string", {"text": 5}, {"text": "\ud800"}]
    result = read(tmp_path, "r.json", json.dumps(recs))
    assert [d.text for d in result.documents] == ["good"]
    assert [s for s, _ in result.skipped] == ["r.json#1", "r.json#2", "r.json#3", "r.json#4"]
    assert "no 'text' field" in result.skipped[0][1]
    assert "lone surrogate" in result.skipped[3][1]
    result = read(tmp_path, "r.jsonl", '{"text": "ok"}\n{broken\n')
    assert result.skipped == [
        ("r.jsonl#1", "line 2: corrupt JSON: Expecting property name enclosed in double quotes")
    ]
    result = read(tmp_path, "r.csv", "title,text\nA,fine\nB,too,many\n")
    assert result.skipped == [("r.csv#1", "line 3: 3 fields, the header has 2")]


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.txt", b"", "empty file"),
        ("blank.md", b"  \n\t\n", "empty file"),
        ("nul.txt", b"text\x00with a NUL", "binary file (NUL bytes)"),
        ("junk.txt", bytes([0x81, 0x8D, 0x01, 0x02]) * 8, "binary file (not UTF-8 text"),
        ("control.md", b"\xff\x01\x02\x03 bytes", "control bytes"),
        ("page.html", b"<html><body><script>x()</script></body></html>", "HTML page without text"),
        ("bad.json", b'[{"text": "a"},', "corrupt JSON at line 1"),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply to parse"),
        ("dict.json", b'"just a string"', "JSON holds a str"),
        ("none.json", b'[{"title": "x"}]', "no usable records (1 malformed)"),
        ("cols.csv", b"title,body\nA,b\n", "CSV without a 'text' column (columns: title, body)"),
        ("doc.docx", b"PK\x03\x04", "unsupported file type '.docx'"),
        ("Makefile", b"all:\n", "unsupported file type without an extension"),
        ("broken.pdf", b"%PDF-1.4 not really", "unreadable PDF"),
    ],
)
def test_each_bad_file_gives_its_reason(tmp_path: Path, name: str, content: bytes, reason: str):
    assert reason in skip_reason(tmp_path, name, content)


def test_encrypted_and_image_only_pdfs_are_skipped(tmp_path: Path) -> None:
    assert "encrypted PDF" in skip_reason(tmp_path, "locked.pdf", make_pdf(password="pw"))
    scanned = skip_reason(tmp_path, "scan.pdf", make_pdf(None))
    assert scanned == "image-only PDF: no text layer in 1 page(s) (OCR it first)"


def test_a_huge_file_is_skipped_without_being_read(tmp_path, monkeypatch) -> None:
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as fh:
        fh.truncate(200 * 1024 * 1024)  # sparse: takes no disk space

    def no_open(*args: object, **kwargs: object) -> None:
        raise AssertionError("the huge file was opened")

    monkeypatch.setattr(documents, "open", no_open, raising=False)
    with pytest.raises(SkipFile, match=r"too large: 200.0 MB > the 50.0 MB cap"):
        read_document_file(huge, "huge.txt")
    small = tmp_path / "small.txt"
    small.write_text("twenty bytes of text")
    with pytest.raises(SkipFile, match="too large: 20 bytes > the 10 bytes cap"):
        read_document_file(small, "small.txt", max_bytes=10)


def test_a_pipe_is_not_read(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.txt"
    os.mkfifo(pipe)
    with pytest.raises(SkipFile, match="not a regular file"):
        read_document_file(pipe, "pipe.txt")  # would block forever if it were opened


def test_decoding_utf8_bom_utf16_and_the_cp1252_fallback(tmp_path: Path) -> None:
    assert decode_text("\ufeffcafé".encode()) == ("café", None)
    assert decode_text("café".encode("utf-16")) == ("café", "UTF-16 text")
    text, note = decode_text("café crème – naïve".encode("cp1252"))
    assert text == "café crème – naïve" and note is not None and "cp1252" in note
    result = read(tmp_path, "latin.txt", "Caf\xe9 in Kesterholm".encode("latin-1"))
    assert result.documents[0].text == "Café in Kesterholm"
    assert result.notes == [
        ("latin.txt", "not UTF-8 (byte 3): decoded as cp1252 (Windows Latin-1)")
    ]


def test_ids_depend_only_on_the_text(tmp_path: Path) -> None:
    a = read(tmp_path, "a.txt", "same words").documents[0]
    b = read(tmp_path, "b.md", "same words\n").documents[0]
    assert a.id == b.id == content_id("same words") == "93b287590ee25237"  # on every machine
