"""A folder (or one file) read into a corpus: walked, each unusable file skipped with one line,
and merged with the documents the corpus already has.

The walk is recursive in sorted name order. Hidden files and folders (a leading ``.``) are not
read. Symbolic links are followed while they resolve: a broken link, a link that loops on itself
and a folder link back to one of its own ancestors are each skipped with one line, and a folder
reached a second time through another link is read once.

Merging keeps what is there: a document whose id is already in the corpus with the same text is
*unchanged*; the same text under another file name or id is a *duplicate* (kept once, the skip
line names the first); an id already used for a different text is skipped. New documents are
appended, so existing documents keep their ids and order and a graph build over the corpus
resumes, extracting only the new chunks. A file whose size and modification time match the
last add, and that gave no skip then, is not read again.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from tqdm.auto import tqdm

from ace_lab.data.documents import (
    DEFAULT_MAX_BYTES,
    Document,
    FileResult,
    SkipFile,
    content_id,
    read_document_file,
)


@dataclass
class IngestReport:
    """What one :func:`~ace_lab.data.corpora.add_corpus` did.

    ``added``: the new documents; ``skipped``: ``(file or FILE#INDEX, reason)`` for every file,
    record or question not taken; ``unchanged``: documents already in the corpus; ``notes``:
    remarks on files that were read (a fallback decoding, a file changed since the last add).
    The totals describe the corpus after the add.
    """

    name: str
    folder: Path
    added: list[Document] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unchanged: int = 0
    notes: list[tuple[str, str]] = field(default_factory=list)
    hidden: int = 0
    documents: int = 0
    questions: int = 0
    task: str = "qa"
    answers: str = "none"  # "spans", "sentences" or "none" (no gold answers)

    def summary(self) -> str:
        """A headline, then one line per skipped file or record and per note."""
        gold = {
            "spans": "short answers",
            "sentences": "sentence answers",
            "none": "no gold answers: judged by pairwise preference",
        }[self.answers]
        lines = [
            f"corpus {self.name!r}: {len(self.added)} added, {self.unchanged} unchanged, "
            f"{len(self.skipped)} skipped; now {self.documents} documents, {self.questions} "
            f"questions ({gold}; default task {self.task})"
        ]
        lines += [f"  skipped {source}: {reason}" for source, reason in self.skipped]
        lines += [f"  note {source}: {remark}" for source, remark in self.notes]
        if self.hidden:
            lines.append(f"  {self.hidden} hidden file(s) or folder(s) not read")
        lines.append(f"  stored in {self.folder}")
        return "\n".join(lines)


#: One entry of a walk: ``(source name, path to read, None)`` or ``(source name, None, why not)``.
Entry = tuple[str, Path | None, str | None]


def walk(path: Path) -> tuple[list[Entry], int]:
    """The entries under ``path`` in walk order, and how many hidden ones were passed over.

    Source names are POSIX paths relative to ``path`` (a single file: its name).
    """
    if not path.is_dir():
        return [(path.name, path, None)], 0
    entries: list[Entry] = []
    hidden = 0
    top = path.resolve()
    walked: dict[Path, str] = {top: "."}

    def visit(folder: Path, rel: PurePosixPath, ancestors: dict[Path, str]) -> None:
        nonlocal hidden
        try:
            listing = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            entries.append((rel.as_posix(), None, f"unreadable folder: {exc.strerror or exc}"))
            return
        for entry in listing:
            source = (rel / entry.name).as_posix()
            if entry.name.startswith("."):
                hidden += 1
                continue
            target = Path(entry.path)
            try:
                real = target.resolve(strict=True)
            except RuntimeError:
                entries.append((source, None, "symlink loop (the link resolves to itself)"))
                continue
            except OSError as exc:
                broken = entry.is_symlink() and isinstance(exc, FileNotFoundError)
                why = "broken symlink (its target does not exist)" if broken else exc.strerror
                entries.append((source, None, why or str(exc)))
                continue
            if not real.is_dir():
                entries.append((source, target, None))
            elif real in ancestors:
                entries.append((source, None, f"symlink loop (links back to {ancestors[real]})"))
            elif real in walked:
                entries.append((source, None, f"same folder as {walked[real]} (read once)"))
            else:
                walked[real] = source
                visit(real, rel / entry.name, {**ancestors, real: source})

    visit(top, PurePosixPath(), {top: "."})
    return entries, hidden


def ingest(
    path: Path,
    report: IngestReport,
    existing: list[Document],
    previous_files: dict[str, dict[str, Any]],
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: bool = True,
) -> dict[str, dict[str, Any]]:
    """Read ``path`` into ``report`` (added, unchanged, skipped, notes, hidden) against the
    ``existing`` documents; returns the per-file records for the corpus metadata.

    ``previous_files`` are those records from the last add (keyed by absolute file path).
    """
    entries, report.hidden = walk(path)
    merge = _Merge(existing, report)
    records: dict[str, dict[str, Any]] = {}
    for source, file, why_not in _progress(entries, report.name, progress):
        if file is None:
            report.skipped.append((source, why_not or "not read"))
            continue
        key = str(file)
        try:
            info = file.stat()
            previous = previous_files.get(key)
            if previous and _same_file(previous, info, merge.known):
                report.unchanged += len(previous["ids"])
                merge.claim(previous["ids"])
                records[key] = previous
                continue
            result = read_document_file(file, source, max_bytes)
        except SkipFile as exc:
            report.skipped.append((source, str(exc)))
            continue
        except OSError as exc:
            report.skipped.append((source, f"cannot read: {exc.strerror or exc}"))
            continue
        records[key] = merge.file(result, source, info, previous)
    return records


def _progress(entries: list[Entry], name: str, show: bool) -> Iterator[Entry]:
    yield from tqdm(
        entries, desc=f"reading {name}", unit="file", disable=not show or len(entries) < 2
    )


def _same_file(previous: dict[str, Any], info: os.stat_result, known: dict[str, Document]) -> bool:
    """Unchanged since the last add (size and mtime), clean then, and its documents still here."""
    return (
        previous.get("size") == info.st_size
        and previous.get("mtime_ns") == info.st_mtime_ns
        and previous.get("clean") is True
        and all(i in known for i in previous.get("ids", []))
    )


class _Merge:
    """New documents merged into the known ones (module docstring), one file at a time."""

    def __init__(self, existing: list[Document], report: IngestReport) -> None:
        self.report = report
        self.known: dict[str, Document] = {d.id: d for d in existing}
        self.by_text: dict[str, str] = {content_id(d.text): d.source for d in existing}
        self.claimed: set[str] = set()  # existing ids met again in this add

    def claim(self, ids: list[str]) -> None:
        self.claimed.update(ids)

    def file(
        self, result: FileResult, source: str, info: os.stat_result, previous: dict | None
    ) -> dict[str, Any]:
        """Merge one file's documents; its record for the corpus metadata."""
        report = self.report
        report.skipped.extend(result.skipped)
        report.notes.extend(result.notes)
        ids: list[str] = []
        clean = not result.skipped
        added_before = len(report.added)
        for doc in result.documents:
            problem = self._problem(doc)
            if problem:
                report.skipped.append((doc.source, problem))
                clean = False
            elif doc.id in self.known:  # the same text from the same source: already in
                report.unchanged += 1
                self.claimed.add(doc.id)
                ids.append(doc.id)
            else:
                report.added.append(doc)
                self.known[doc.id] = doc
                self.by_text[content_id(doc.text)] = doc.source
                self.claimed.add(doc.id)
                ids.append(doc.id)
        changed = previous is not None and previous.get("sha256") != result.sha256
        if changed and len(report.added) > added_before:
            report.notes.append((source, "changed since the last add: new text added, old kept"))
        return {
            "source": source,
            "size": info.st_size,
            "mtime_ns": info.st_mtime_ns,
            "sha256": result.sha256,
            "ids": ids,
            "clean": clean,
        }

    def _problem(self, doc: Document) -> str | None:
        """Why ``doc`` is not taken (a duplicate, an id clash), or None."""
        prior = self.known.get(doc.id)
        if prior is not None:
            if prior.text != doc.text:
                return f"id {doc.id!r} is already used by {prior.source} for a different text"
            if prior.source != doc.source or doc.id in self.claimed:
                return f"duplicate of {prior.source}"
            return None
        twin = self.by_text.get(content_id(doc.text))
        return f"duplicate of {twin}" if twin is not None else None
