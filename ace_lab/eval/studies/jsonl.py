"""JSON-lines files of a study: reading records back, torn tails from a crash, corrupt lines.

A study's ``<method>.jsonl`` is appended to one record per line
(:mod:`ace_lab.eval.studies.runner`);
a crash can leave its last line torn. :func:`read_jsonl` reads the records (repairing a torn
tail when asked), :func:`cut_torn_tail` ends an append-only log on a whole line.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

ERRORS_SUFFIX = ".errors.jsonl"


class ResultsError(ValueError):
    """A results file is corrupt, or a study's manifest does not match the requested run."""


def record_files(directory: Path) -> list[Path]:
    """A study folder's record files (``<method>.jsonl``), error logs left out, sorted."""
    return sorted(p for p in directory.glob("*.jsonl") if not p.name.endswith(ERRORS_SUFFIX))


def read_jsonl(path: Path, *, repair_tail: bool = False) -> list[dict[str, Any]]:
    """Records of a JSON-lines file; a corrupt line raises ``ResultsError`` naming it.

    With ``repair_tail``, a final line without its newline that does not parse is a write
    torn by a crash: it is cut from the file (and logged) so the question is simply rerun.
    The file is read as bytes and each line decoded alone, since a torn write can end inside a
    multi-byte character; the cut truncates the file in place, so a crash during the repair
    itself cannot lose the records before it.
    """
    if not path.is_file():
        return []
    data = path.read_bytes()
    lines = data.split(b"\n")
    out: list[dict[str, Any]] = []
    offset = 0  # byte offset of the current line
    for number, raw in enumerate(lines, 1):
        start, offset = offset, offset + len(raw) + 1
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw.decode("utf-8"))
            if not isinstance(rec, dict):
                raise ValueError(f"expected a JSON object, got {type(rec).__name__}")
        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            torn = number == len(lines) and not data.endswith(b"\n")
            if repair_tail and torn:
                log.warning("%s: dropping a torn last line (%s); it will be rerun", path, exc)
                os.truncate(path, start)
                break
            raise ResultsError(f"{path}: corrupt line {number}: {exc}") from exc
        out.append(rec)
    else:
        if repair_tail and data and not data.endswith(b"\n"):
            # A complete last record without its newline: the next append would glue onto it.
            with path.open("ab") as fh:
                fh.write(b"\n")
    return out


def cut_torn_tail(path: Path) -> None:
    """End an append-only JSON-lines file on a whole line before appending to it.

    A last line without its newline is a write torn by a crash unless it parses (then only the
    newline is missing and is added); a torn one is cut, in place. Nothing else is read, so a
    log that is only appended to (the errors file) never blocks a run.
    """
    if not path.is_file() or path.stat().st_size == 0:
        return
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    start = data.rfind(b"\n") + 1
    try:
        whole = isinstance(json.loads(data[start:].decode("utf-8")), dict)
    except ValueError:
        whole = False
    if whole:
        with path.open("ab") as fh:
            fh.write(b"\n")
    else:
        log.warning("%s: dropping a torn last line", path)
        os.truncate(path, start)
