"""Reading one file of a user's folder into documents, or saying in one line why it is skipped.

Formats, by extension (case-insensitive):

* ``.txt``, ``.md``, ``.markdown``: the text as it is; the title is a Markdown file's first
  ``#`` heading, else the file name without its extension.
* ``.html``, ``.htm``: the page's main text, extracted by ``trafilatura`` (navigation, scripts,
  styles and footers dropped; nothing in the page is executed or fetched); the title is the
  ``<title>``, else the first heading, else the file name.
* ``.pdf``: the text layer, read with ``pypdf``; the title is the PDF's title metadata, else the
  file name. Encrypted PDFs and PDFs without a text layer (scanned pages) are skipped.
* ``.json`` (a list of records, or one record), ``.jsonl`` (one record a line), ``.csv`` (a
  header row): records ``{"id", "title", "text"}``, only ``text`` required. A malformed record
  is skipped alone, named ``FILE#INDEX`` (0-based among the file's records); the rest are read.

Text files are decoded as UTF-8 (a byte-order mark is dropped; UTF-16 with a byte-order mark is
read too). Text that is not UTF-8 is decoded as **cp1252** (Windows Latin-1, a superset of
ISO-8859-1's printable characters: what a Windows editor saves) when every byte decodes and no
control characters result, and the report says so; anything else is skipped as binary. A file
with NUL bytes is binary.

A document's id is the ``id`` its record gives, else :func:`content_id` of its text, so the same
content gets the same id on every machine (with the pinned extractor versions).
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
import logging
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ace_lab.data.jsonfile import encodable

#: Files larger than this are skipped unread (``add_corpus(max_bytes=...)`` changes it).
DEFAULT_MAX_BYTES = 50 * 1024 * 1024

TEXT_SUFFIXES = (".txt", ".md", ".markdown")
HTML_SUFFIXES = (".html", ".htm")
RECORD_SUFFIXES = (".json", ".jsonl", ".csv")
SUPPORTED_SUFFIXES = (*TEXT_SUFFIXES, *HTML_SUFFIXES, ".pdf", *RECORD_SUFFIXES)

# Control characters no text file has (tab, newline, form feed and carriage return are fine).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Document:
    """One document: its id, title, text, and where it came from (``path`` or ``path#index``)."""

    id: str
    title: str
    text: str
    source: str


class SkipFile(Exception):
    """A file that is not read; the message is the one-line reason."""


@dataclass
class FileResult:
    """What one file gave: documents, skipped records ``(FILE#INDEX, reason)``, and remarks
    ``(FILE, remark)`` about a file that was read (a fallback decoding)."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)
    sha256: str = ""


def content_id(text: str) -> str:
    """The id of a document without one: the first 16 hex digits of SHA-1 of its text."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def clean_text(text: str) -> str:
    """Line endings made ``\\n`` and surrounding whitespace removed (nothing else changes)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


def describe_size(size: int) -> str:
    """``52.4 MB``, ``3.1 KB`` or ``20 bytes``."""
    if size >= 1024**2:
        return f"{size / 1024**2:.1f} MB"
    return f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} bytes"


def read_bytes(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of a regular file no larger than ``max_bytes``; SkipFile otherwise.

    The size is checked before anything is read and the read is bounded, so a huge file costs
    nothing and one that grows while being read is still caught.
    """
    try:
        info = path.stat()
    except OSError as exc:
        raise SkipFile(f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise SkipFile("not a regular file (a device, pipe or socket)")
    if info.st_size > max_bytes:
        limit = describe_size(max_bytes)
        raise SkipFile(f"too large: {describe_size(info.st_size)} > the {limit} cap")
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise SkipFile(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise SkipFile(f"too large: over the {describe_size(max_bytes)} cap")
    if not data.strip():
        raise SkipFile("empty file")
    return data


def decode_text(data: bytes) -> tuple[str, str | None]:
    """``data`` as text and a remark when a fallback decoding was used (module docstring)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16"), "UTF-16 text"
        except UnicodeDecodeError:
            raise SkipFile("binary file (a UTF-16 mark, then undecodable bytes)") from None
    if b"\x00" in data:
        raise SkipFile("binary file (NUL bytes)")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        position = exc.start
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        raise SkipFile(f"binary file (not UTF-8 text: byte {position} undecodable)") from None
    if _CONTROL.search(text):
        raise SkipFile(f"binary file (not UTF-8 text: byte {position}; control bytes)")
    return text, f"not UTF-8 (byte {position}): decoded as cp1252 (Windows Latin-1)"


def read_document_file(path: Path, source: str, max_bytes: int = DEFAULT_MAX_BYTES) -> FileResult:
    """The documents in the file at ``path``, named ``source`` in ids' provenance and messages.

    Raises SkipFile with the reason when the file as a whole cannot be used.
    """
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise SkipFile(unsupported_reason(suffix))
    data = read_bytes(path, max_bytes)
    result = FileResult(sha256=hashlib.sha256(data).hexdigest())
    stem = PurePosixPath(source).stem or source
    if suffix == ".pdf":
        title, text = _read_pdf(data)
        result.documents.append(_document(title or stem, text, source))
        return result
    text, note = decode_text(data)
    if note:
        result.notes.append((source, note))
    if suffix in TEXT_SUFFIXES:
        body = clean_text(text)
        heading = _MD_HEADING.search(body) if suffix != ".txt" else None
        result.documents.append(_document(heading.group(1) if heading else stem, body, source))
    elif suffix in HTML_SUFFIXES:
        title, body = _read_html(text)
        result.documents.append(_document(title or stem, body, source))
    else:
        rows = {".json": json_rows, ".jsonl": jsonl_rows, ".csv": csv_rows}[suffix](text)
        _read_records(rows, source, stem, result)
        if not result.documents:
            raise SkipFile(f"no usable records ({len(result.skipped)} malformed)")
    return result


def unsupported_reason(suffix: str) -> str:
    kinds = " ".join(SUPPORTED_SUFFIXES)
    what = f"'{suffix}'" if suffix else "without an extension"
    return f"unsupported file type {what} (read: {kinds})"


def _document(title: str, text: str, source: str) -> Document:
    # an extractor may hand back a lone surrogate, which no file can store: make it "?"
    text = clean_text(text).encode("utf-8", "replace").decode("utf-8")
    if not text:
        raise SkipFile("no text")
    return Document(content_id(text), " ".join(title.split()), text, source)


# --------------------------------------------------------------------------------------------
# HTML and PDF
# --------------------------------------------------------------------------------------------


def _read_html(html: str) -> tuple[str, str]:
    """The title (<title>, else the first heading) and the main text of a page."""
    import trafilatura
    from lxml import etree
    from lxml import html as lxml_html

    title = ""
    try:
        tree = lxml_html.document_fromstring(html)
    except (ValueError, etree.LxmlError):
        tree = None
    if tree is not None:
        heads = [tree.findtext(".//title") or ""]
        heads += [h.text_content() for h in tree.iter("h1", "h2", "h3", "h4", "h5", "h6")][:1]
        title = next((" ".join(h.split()) for h in heads if h.strip()), "")
    body = trafilatura.extract(html, include_comments=False, include_tables=True) or ""
    if not body.strip():  # too little for trafilatura's main-text heuristics: plain page text
        body = trafilatura.html2txt(html) or ""
    if not body.strip():
        raise SkipFile("HTML page without text")
    return title, body


def _read_pdf(data: bytes) -> tuple[str, str]:
    """The title metadata and the text layer of a PDF (pages separated by blank lines)."""
    import pypdf

    log = logging.getLogger("pypdf")  # its warnings on odd files would print past the report
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise SkipFile("encrypted PDF (save an unencrypted copy to add it)")
        pages = [page.extract_text() or "" for page in reader.pages]
        meta = reader.metadata
        title = str(meta.title) if meta is not None and meta.title else ""
    except SkipFile:
        raise
    except Exception as exc:  # pypdf raises many kinds on a corrupt file; any one means skip
        raise SkipFile(f"unreadable PDF ({type(exc).__name__}: {exc})") from None
    finally:
        log.setLevel(level)
    text = "\n\n".join(clean_text(p) for p in pages if p.strip())
    if not text:
        raise SkipFile(f"image-only PDF: no text layer in {len(pages)} page(s) (OCR it first)")
    return title, text


# --------------------------------------------------------------------------------------------
# Record files: rows of (index, record, problem)
# --------------------------------------------------------------------------------------------

Row = tuple[int, Any, str | None]  # index, record, what is wrong with the raw row (or None)


def json_rows(text: str) -> list[Row]:
    """The records of a JSON list (one object: a list of one); SkipFile if it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SkipFile(f"corrupt JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise SkipFile("JSON nested too deeply to parse") from None
    except ValueError as exc:  # an integer literal longer than Python converts
        raise SkipFile(f"unparseable JSON ({exc})") from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise SkipFile(f"JSON holds a {type(data).__name__}, expected a list of records")
    return [(i, rec, None) for i, rec in enumerate(data)]


def jsonl_rows(text: str) -> list[Row]:
    """One record per non-blank line; a corrupt line is a row with its problem."""
    rows: list[Row] = []
    # split on "\n" only: U+2028 and friends may stand raw inside JSON strings
    lines = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    for i, (number, line) in enumerate(lines):
        try:
            rows.append((i, json.loads(line), None))
        except json.JSONDecodeError as exc:
            rows.append((i, None, f"line {number}: corrupt JSON: {exc.msg}"))
        except (RecursionError, ValueError) as exc:
            rows.append((i, None, f"line {number}: unparseable JSON ({type(exc).__name__})"))
    return rows


def csv_rows(text: str, required: str = "text") -> list[Row]:
    """Rows of a CSV with a header that names the ``required`` column; empty cells dropped."""
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))  # one document's text may be long
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [(h or "").strip() for h in reader.fieldnames or []]
        if required not in header:
            columns = ", ".join(header) or "none"
            raise SkipFile(f"CSV without a {required!r} column (columns: {columns})")
        reader.fieldnames = header
        rows: list[Row] = []
        for i, row in enumerate(reader):
            if None in row or None in row.values():
                got = len(row.get(None) or []) + sum(v is not None for k, v in row.items() if k)
                problem = f"line {reader.line_num}: {got} fields, the header has {len(header)}"
                rows.append((i, None, problem))
            else:
                rows.append((i, {k: v for k, v in row.items() if v != "" or k == required}, None))
        return rows
    except csv.Error as exc:
        raise SkipFile(f"malformed CSV: {exc}") from None
    finally:
        csv.field_size_limit(limit)


def _read_records(rows: Iterable[Row], source: str, stem: str, result: FileResult) -> None:
    for index, rec, problem in rows:
        name = f"{source}#{index}"
        problem = problem or _record_problem(rec)
        if problem:
            result.skipped.append((name, problem))
            continue
        text = clean_text(rec["text"])
        given = rec.get("id")
        rid = str(given).strip() if given is not None else ""
        title = " ".join(str(rec.get("title") or "").split()) or f"{stem} {index}"
        result.documents.append(Document(rid or content_id(text), title, text, name))


def _record_problem(rec: Any) -> str | None:
    """What makes ``rec`` unusable as a document record, or None."""
    if not isinstance(rec, dict):
        return f"a {type(rec).__name__}, expected an object with a 'text' field"
    text = rec.get("text")
    if not isinstance(text, str):
        return "no 'text' field" if text is None else "field 'text' must be a string"
    if not text.strip():
        return "empty 'text'"
    given = rec.get("id")
    if given is not None and (isinstance(given, bool) or not isinstance(given, str | int)):
        return "field 'id' must be a string or an integer"
    title = rec.get("title")
    if title is not None and not isinstance(title, str):
        return "field 'title' must be a string"
    for value in (text, title, given):
        if isinstance(value, str) and not encodable(value):
            return "not valid Unicode (a lone surrogate escape)"
    return None
