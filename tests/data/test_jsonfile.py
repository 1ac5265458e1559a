"""Tests for ace_lab.data.jsonfile: every broken file is a DataError naming file and record."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ace_lab.data import DataError
from ace_lab.data.jsonfile import MAX_DEPTH, file_stamp, read_json, records


def _write(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "corpus.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def _fails(path: Path, pattern: str) -> None:
    with pytest.raises(DataError, match=re.escape(str(path)) + pattern):
        read_json(path)


def test_reads_and_caches_until_the_file_changes(tmp_path: Path) -> None:
    path = _write(tmp_path, '[{"id": "a", "emoji": "\\ud83e\\udde8"}]')
    first = read_json(path)
    assert first == [{"id": "a", "emoji": "\U0001f9e8"}] and read_json(path) is first
    os.utime(path, ns=(1, 1))
    assert read_json(path) is not first
    assert records(first, path) is first


def test_not_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "dir.json").mkdir()
    _fails(tmp_path / "dir.json", ": is a directory")
    _fails(tmp_path / "none.json", ": file not found")
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(DataError, match="not a regular file"):
        file_stamp(tmp_path / "pipe.json")


def test_nesting_beyond_the_parser_names_the_record(tmp_path: Path) -> None:
    """Regression (issue 13): a RecursionError escaped json.load."""
    deep = "[" * 100_000 + "]" * 100_000
    _fails(_write(tmp_path, f'[{{"id": "a"}}, {{"id": "b"}}, {deep}]'), ": .*too deeply.*record 2")


def test_nesting_beyond_max_depth_names_the_record(tmp_path: Path) -> None:
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    path = _write(tmp_path, f'[{{"id": "a", "x": {deep}}}]')
    _fails(path, rf": record 0 \(id 'a'\): nested deeper than {MAX_DEPTH} levels")
    shallow = "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2)
    assert read_json(_write(tmp_path, f'[{{"id": "a", "x": {shallow}}}]'))


def test_lone_surrogates_in_values_and_keys(tmp_path: Path) -> None:
    _fails(_write(tmp_path, '[{"id": "a"}, {"text": "\\udc00"}]'), r": record 1: a lone surrogate")
    _fails(_write(tmp_path, '{"g": [{"\\ud800": 1}]}'), r": key 'g': a lone surrogate")


def test_bad_bytes_truncation_and_huge_numbers_name_the_record(tmp_path: Path) -> None:
    _fails(
        _write(tmp_path, b'[{"id": "a"},\n {"id": "b\xff"}]'), r": not UTF-8 .*line 2, in record 1"
    )
    _fails(
        _write(tmp_path, '[{"id": "a"}, {"id": "b", "t": "unterminated'), r": corrupt .*record 1"
    )
    _fails(_write(tmp_path, '[{"id": "a"}, {"n": ' + "9" * 5000 + "}]"), r": invalid .*record 1")
    _fails(_write(tmp_path, ""), r": corrupt JSON at line 1 column 1")


def test_records_must_be_a_list_of_objects(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    with pytest.raises(DataError, match=r"q\.json: expected a JSON list of records, got dict"):
        records({}, path)
    with pytest.raises(DataError, match=r"q\.json: record 1 is str, expected an object"):
        records([{}, "x"], path)
