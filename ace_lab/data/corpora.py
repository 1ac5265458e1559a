"""User corpora: any folder of documents registered as a data set under a name.

``add_corpus("notes", "~/notes", questions="~/notes-questions.csv")`` reads the folder
(:mod:`ace_lab.data.ingest`, formats in :mod:`ace_lab.data.documents`) and stores it normalised
in the user data folder (:mod:`ace_lab.data.userdir`); from then on ``notes`` is a data set like
the benchmarks: ``get_spec``, ``load_dataset`` and ``make_slice`` know it (its slice is the whole
corpus with all its questions, slice id ``notes``). Adding again, the same folder or more files,
keeps every document and its id and appends only new ones, so a graph build resumes and
extracts only the new chunks. Questions are optional (:mod:`ace_lab.data.user_questions`);
without them the corpus can still be built and asked free-text questions.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from filelock import FileLock

from ace_lab.data.documents import DEFAULT_MAX_BYTES, Document
from ace_lab.data.ingest import IngestReport, ingest
from ace_lab.data.loaders import load_dataset
from ace_lab.data.records import DataError
from ace_lab.data.registry import DATASETS
from ace_lab.data.slices import Slice, make_slice
from ace_lab.data.user_questions import answer_style, read_questions
from ace_lab.data.userdir import (
    CORPUS_FILE,
    META_FILE,
    NAME_PATTERN,
    QUESTIONS_FILE,
    corpora_root,
    corpus_folder,
    is_valid_name,
    read_meta,
    registered_corpora,
    user_data_dir,
)

__all__ = [
    "CorpusInfo",
    "IngestReport",
    "add_corpus",
    "check_name",
    "corpus_slice",
    "list_corpora",
    "remove_corpus",
    "user_data_dir",
]

#: Version of the stored layout (``corpus_meta.json`` ``format``).
FORMAT = 1


@dataclass(frozen=True)
class CorpusInfo:
    """A registered corpus as ``list_corpora`` describes it (from its metadata, not its text)."""

    name: str
    folder: Path
    documents: int
    questions: int
    task: str
    answers: str
    sources: tuple[str, ...]
    updated: str


def check_name(name: str) -> str:
    """``name`` if it can name a new or existing corpus; a one-line DataError otherwise."""
    if not is_valid_name(name):
        raise DataError(
            f"bad corpus name {name!r}: use letters, digits, '_', '-' and '.', starting with a "
            f"letter or digit, at most 64 characters (pattern {NAME_PATTERN.pattern})"
        )
    clash = next((known for known in DATASETS if known.casefold() == name.casefold()), None)
    if clash is not None:
        raise DataError(f"corpus name {name!r} is taken by the benchmark set {clash!r}")
    return name


def add_corpus(
    name: str,
    path: Path | str,
    questions: Path | str | None = None,
    root: Path | None = None,
    progress: bool = True,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> IngestReport:
    """Register the documents at ``path`` (a folder or one file) as corpus ``name``, or add them
    to it; ``questions`` (JSON, JSONL or CSV) replaces its questions when given.

    ``root`` stores the corpus elsewhere than the user data folder (``get_spec`` and
    ``load_dataset`` look only there; set ``ACE_LAB_USER_DATA`` to move it as a whole). Files
    over ``max_bytes`` are skipped unread. Unusable files and records are skipped, each
    named with its reason in the report; a DataError (one line) when the path does not exist,
    the name is not allowed, or the corpus would hold no document at all.
    """
    check_name(name)
    source = Path(path).expanduser()
    if not source.exists():
        raise DataError(f"{source}: no such file or folder")
    source = source.absolute()
    base = corpora_root(root)
    folder = base / name
    if questions is not None:  # read first: a broken questions file changes nothing
        question_path = Path(questions).expanduser()
        asked, question_skips = read_questions(question_path, max_bytes)
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / ".lock")):
        meta = read_meta(folder) if (folder / META_FILE).is_file() else {}
        existing = _read_documents(folder / CORPUS_FILE) if meta else []
        report = IngestReport(name, folder)
        files = ingest(source, report, existing, meta.get("files", {}), max_bytes, progress)
        documents = existing + report.added
        if not documents:
            if not meta:
                shutil.rmtree(folder, ignore_errors=True)
            raise DataError(f"{source}: no documents to add ({_reasons(report)})")
        if questions is not None:
            report.skipped.extend(question_skips)
            questions_from = str(question_path.absolute())
        else:
            asked = _read_json_list(folder / QUESTIONS_FILE) if meta else []
            questions_from = meta.get("questions_from")
        report.task, report.answers = answer_style(asked)
        report.documents, report.questions = len(documents), len(asked)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        _write_json(folder / CORPUS_FILE, [_record(d) for d in documents])
        _write_json(folder / QUESTIONS_FILE, asked)
        _write_json(
            folder / META_FILE,
            {
                "format": FORMAT,
                "name": name,
                "created": meta.get("created", now),
                "updated": now,
                "sources": list(dict.fromkeys([*meta.get("sources", []), str(source)])),
                "questions_from": questions_from,
                "documents": len(documents),
                "questions": len(asked),
                "task": report.task,
                "answers": report.answers,
                "max_bytes": max_bytes,
                "files": {**meta.get("files", {}), **files},
                "skipped": [list(s) for s in report.skipped],
            },
        )
    return report


def list_corpora(root: Path | None = None) -> list[CorpusInfo]:
    """The registered corpora under ``root`` (default: the user data folder), by name."""
    out = []
    for name in registered_corpora(root):
        folder = corpora_root(root) / name
        meta = read_meta(folder)
        out.append(
            CorpusInfo(
                name=name,
                folder=folder,
                documents=int(meta.get("documents", 0)),
                questions=int(meta.get("questions", 0)),
                task=str(meta.get("task", "qa")),
                answers=str(meta.get("answers", "none")),
                sources=tuple(meta.get("sources", ())),
                updated=str(meta.get("updated", "")),
            )
        )
    return out


def corpus_slice(name: str) -> Slice:
    """The slice of registered corpus ``name``: every document and question, slice id ``name``."""
    return make_slice(load_dataset(name), 1)


def remove_corpus(name: str, root: Path | None = None) -> bool:
    """Delete registered corpus ``name`` (its stored copy only, never the files it was read
    from); False when there is none by that name."""
    folder = corpus_folder(name, root)
    if folder is None:
        return False
    shutil.rmtree(folder)
    return True


# --------------------------------------------------------------------------------------------
# Stored files
# --------------------------------------------------------------------------------------------


def _record(doc: Document) -> dict[str, str]:
    return {"id": doc.id, "title": doc.title, "text": doc.text, "source": doc.source}


def _read_json_list(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise DataError(f"{path}: unreadable stored corpus file: {exc}") from None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DataError(f"{path}: expected a JSON list of records")
    return data


def _read_documents(path: Path) -> list[Document]:
    try:
        return [
            Document(r["id"], r["title"], r["text"], r.get("source", ""))
            for r in _read_json_list(path)
        ]
    except KeyError as exc:
        raise DataError(f"{path}: a stored document lacks field {exc.args[0]!r}") from None


def _write_json(path: Path, data: Any) -> None:
    """Written to a temporary file and renamed, so a crash never leaves half a file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _reasons(report: IngestReport) -> str:
    """The first few skip reasons, for the one-line error of an add that found nothing."""
    if not report.skipped:
        return "no files found" + (
            f"; {report.hidden} hidden entries not read" if report.hidden else ""
        )
    shown = "; ".join(f"{s}: {r}" for s, r in report.skipped[:3])
    more = f"; and {len(report.skipped) - 3} more" if len(report.skipped) > 3 else ""
    return f"{len(report.skipped)} skipped: {shown}{more}"
