"""Renaming a method's runs in a study: its records, its manifest entry and its judged lines.

A method's name is part of what a study stores about it (the record files and their ``method``
field, the manifest, the configuration hash, the verdicts and scores judged from its answers),
so when the registry gives a configuration another name — ``mosaic`` became the paper's
analyzer, the six-signal mapping ``mosaic:signals`` — the runs made under the old name are
renamed rather than rerun. :func:`rename_method` renames them only when the new name's
configuration made them: every record's configuration hash must equal the hash of the new
name's configuration described under the old name (the same settings, only the name differs).
Records from before configuration hashes cannot be checked; they are renamed, keep no hash, and
the result counts them as unchecked.

Rewritten, each file atomically: ``<old>.jsonl`` → ``<new>.jsonl`` (each record's ``method`` and
``config_hash``), ``<old>.errors.jsonl`` alike, the manifest entry (moved under the new name,
its hash and file updated, ``renamed_from`` added), and every line whose ``method`` is the old
name in the study's judged stores (the ``*.jsonl`` files of its subfolders: semantic verdicts,
GraphRAG-Bench scores). Nothing is written until every check has passed. Tables are not
touched: ``ace-lab report`` and ``make reproduce`` remake them from the records.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ace_lab.eval.studies.identity import config_hash, hash_of, method_configuration
from ace_lab.eval.studies.jsonl import ERRORS_SUFFIX, ResultsError, read_jsonl
from ace_lab.eval.studies.study import MANIFEST, _manifest_of, _write_json_atomic, safe_name


@dataclass(frozen=True)
class Renamed:
    """What one rename changed in a study."""

    old: str
    new: str
    records: int
    unchecked: int  # records without a configuration hash (made before hashes existed)
    judged: int  # lines of the judged stores renamed

    def line(self) -> str:
        """One line for the command line."""
        checked = self.records - self.unchecked
        note = f", {self.unchecked} from before configuration hashes" if self.unchecked else ""
        return (
            f"{self.old} → {self.new}: {self.records} records ({checked} checked against "
            f"{self.new}'s configuration{note}), {self.judged} judged lines"
        )


def hash_under(method: str, name: str) -> str:
    """The configuration hash ``method``'s configuration would have under the name ``name``."""
    return hash_of(method_configuration(method) | {"method": name})


def _write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text("".join(json.dumps(r, default=str, ensure_ascii=False) + "\n" for r in rows))
    os.replace(tmp, path)


def _renamed(rows: list[dict[str, Any]], old: str, new: str, new_hash: str) -> list[dict]:
    out = []
    for row in rows:
        row = dict(row)
        if row.get("method") == old:
            row["method"] = new
        if row.get("config_hash"):
            row["config_hash"] = new_hash
        out.append(row)
    return out


def _check_records(path: Path, records: list[dict], entry: dict, old: str, new: str) -> int:
    """The number of records without a hash; an error naming the first record that another
    configuration (or another method) made."""
    expected, unchecked = hash_under(new, old), 0
    for number, record in enumerate(records, 1):
        if record.get("method", old) != old:
            raise ResultsError(f"{path}: record {number} is {record['method']!r}, not {old!r}")
        found = record.get("config_hash") or entry.get("config_hash")
        if not found:
            unchecked += 1
        elif found != expected:
            raise ResultsError(
                f"{path}: record {number} ran with configuration {found}, not {new}'s "
                f"({expected} under the name {old}); rename only renames, rerun instead"
            )
    return unchecked


def _judged_stores(directory: Path, old: str, new: str) -> dict[Path, list[dict]]:
    """Each judged store of the study holding lines of ``old`` (an error if one already holds
    lines of ``new``: the two would merge)."""
    stores = {}
    for path in sorted(directory.glob("*/*.jsonl")):
        rows = read_jsonl(path)
        methods = {row.get("method") for row in rows}
        if new in methods and old in methods:
            raise ResultsError(f"{path}: holds lines of both {old!r} and {new!r}")
        if old in methods:
            stores[path] = rows
    return stores


def rename_method(directory: Path | str, old: str, new: str) -> Renamed:
    """Rename ``old``'s runs in the study folder ``directory`` to ``new`` (module docstring);
    a ``ResultsError`` (one line), with nothing written, when a check fails."""
    directory = Path(directory)
    source = directory / f"{safe_name(old)}.jsonl"
    target = directory / f"{safe_name(new)}.jsonl"
    errors = directory / f"{safe_name(old)}{ERRORS_SUFFIX}"
    errors_target = directory / f"{safe_name(new)}{ERRORS_SUFFIX}"
    if not source.is_file():
        raise FileNotFoundError(f"{source}: no records of {old!r} to rename")
    manifest = _manifest_of(directory)
    methods = manifest.get("methods", {})
    if target.is_file() or errors_target.is_file() or new in methods:
        raise ResultsError(f"{directory}: already holds runs of {new!r}; rename would merge them")
    entry = methods.get(old, {})
    records = read_jsonl(source)
    unchecked = _check_records(source, records, entry, old, new)
    stores = _judged_stores(directory, old, new)

    new_hash = config_hash(new)
    _write_lines(target, _renamed(records, old, new, new_hash))
    if errors.is_file():
        _write_lines(errors_target, _renamed(read_jsonl(errors), old, new, new_hash))
        errors.unlink()
    if old in methods:
        moved = dict(methods.pop(old), file=target.name, renamed_from=old)
        if moved.get("config_hash"):
            moved["config_hash"] = new_hash
        methods[new] = moved
        _write_json_atomic(directory / MANIFEST, manifest)
    judged = 0
    for path, rows in stores.items():
        judged += sum(row.get("method") == old for row in rows)
        _write_lines(
            path, [row | {"method": new} if row.get("method") == old else row for row in rows]
        )
    source.unlink()
    return Renamed(old, new, len(records), unchecked, judged)
