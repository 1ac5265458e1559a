"""Reading a benchmark JSON file: every way it can be broken becomes a :class:`DataError`.

A data file comes from a download or a hand edit, so anything may be wrong with it: missing,
a directory or a pipe where a file should be, bytes that are not UTF-8, truncated or corrupt
JSON, nesting deep enough to exhaust Python's recursion limit, numbers too long to convert,
lone UTF-16 surrogates (``"\\ud800"`` is valid JSON but not Unicode text, and would crash later
when the text is hashed or written). Each is reported as a ``DataError`` naming the file and,
where one can be found, the record (its index in the top-level list, and its id). Parsed files
are cached in-process by (path, mtime, size), so an edited file is picked up.
"""

from __future__ import annotations

import json
import re
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any

from ace_lab.data.records import DataError

#: Deepest nesting of lists and objects a data file may have. Benchmark records need a handful
#: of levels; far deeper values load but crash whatever later encodes them recursively.
MAX_DEPTH = 64

# Tokens that matter for locating a record in raw JSON text: whole strings and brackets/commas.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{},]', re.DOTALL)
_OPEN, _CLOSE = ("[", "{"), ("]", "}")
_LONG_NUMBER = re.compile(r"\d{4000,}")
# A \uD800-\uDFFF escape: the only way raw UTF-8 JSON text can hold a surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def file_stamp(path: Path) -> tuple[int, int]:
    """``(mtime_ns, size)`` of a regular file; a DataError for anything else at ``path``."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise DataError(f"{path}: is a directory, expected a JSON file")
    if not stat.S_ISREG(info.st_mode):
        raise DataError(f"{path}: not a regular file, expected a JSON file")
    return info.st_mtime_ns, info.st_size


def read_json(path: Path) -> Any:
    """Parsed JSON of ``path``, validated (module docstring) and cached until the file changes."""
    mtime_ns, size = file_stamp(path)
    return _read_json_cached(str(path), mtime_ns, size)


@lru_cache(maxsize=64)
def _read_json_cached(path: str, mtime_ns: int, size: int) -> Any:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        prefix = raw[: exc.start].decode("utf-8", "replace")
        where = _where(prefix, len(prefix))
        raise DataError(
            f"{path}: not UTF-8 text: byte {exc.start} (line {line}{where}): {exc.reason}"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = _where(text, exc.pos)
        raise DataError(
            f"{path}: corrupt JSON at line {exc.lineno} column {exc.colno}{where}: {exc.msg}"
        ) from None
    except RecursionError:
        raise DataError(
            f"{path}: JSON nested too deeply to parse{_where(text, _deepest(text))}; "
            f"at most {MAX_DEPTH} levels are allowed"
        ) from None
    except ValueError as exc:  # an integer literal longer than Python converts
        digits = _LONG_NUMBER.search(text)
        where = _where(text, digits.start()) if digits else ""
        raise DataError(f"{path}: invalid JSON value{where}: {exc}") from None
    _check_values(data, path, surrogates=_SURROGATE_ESCAPE.search(text) is not None)
    return data


def records(data: Any, path: Path) -> list[dict[str, Any]]:
    """``data`` as a list of objects (a DataError naming the first record that is not one)."""
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of records, got {type(data).__name__}")
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise DataError(f"{path}: record {i} is {type(rec).__name__}, expected an object")
    return data


# --------------------------------------------------------------------------------------------
# Checks on parsed data
# --------------------------------------------------------------------------------------------


def _label(key: Any, value: Any, top_is_list: bool) -> str:
    """``record 3 (id 'p3')`` for a list element, ``key 'x'`` for a top-level object member."""
    if not top_is_list:
        return f"key {_safe(key)}"
    rid = value.get("id") if isinstance(value, dict) else None
    return f"record {key}" + (f" (id {_safe(rid)})" if isinstance(rid, str | int) else "")


def _safe(value: Any) -> str:
    """``repr`` that never carries a lone surrogate into an error message."""
    return repr(value).encode("utf-8", "backslashreplace").decode("utf-8")


def _check_values(data: Any, path: Path, surrogates: bool) -> None:
    """Every record nests at most :data:`MAX_DEPTH` levels and, when the raw text had surrogate
    escapes, holds only encodable strings."""
    if isinstance(data, list):
        items: Any = enumerate(data)
    elif isinstance(data, dict):
        items = data.items()
    else:
        items = [(None, data)]
    for key, value in items:
        problem = _problem(value, MAX_DEPTH - 1, surrogates)
        if problem:
            raise DataError(f"{path}: {_label(key, value, isinstance(data, list))}: {problem}")


def _problem(value: Any, depth_left: int, surrogates: bool) -> str | None:
    """What is wrong with ``value`` (too deep, a lone surrogate), or None; iterative."""
    if not isinstance(value, list | dict):
        return _bad_string(value) if surrogates else None
    stack: list[tuple[Any, int]] = [(value, depth_left)]
    while stack:
        item, left = stack.pop()
        if left <= 0:
            return f"nested deeper than {MAX_DEPTH} levels"
        children = list(item.values()) if isinstance(item, dict) else item
        if surrogates:
            keys = list(item) if isinstance(item, dict) else []
            for text in (*keys, *children):
                problem = _bad_string(text)
                if problem:
                    return problem
        stack.extend((child, left - 1) for child in children if isinstance(child, list | dict))
    return None


def _bad_string(value: Any) -> str | None:
    if isinstance(value, str) and not encodable(value):
        return f"a lone surrogate in {_safe(value[:60])}: not valid Unicode text"
    return None


def encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# Locating a position of raw text in the top-level list (error path only)
# --------------------------------------------------------------------------------------------


def _where(text: str, pos: int) -> str:
    """``", in record 3"`` when ``pos`` lies inside element 3 of a top-level list, else ``""``."""
    index = _record_at(text, pos)
    return "" if index is None else f", in record {index}"


def _record_at(text: str, pos: int) -> int | None:
    """Index of the top-level list element whose text contains ``pos`` (None outside one)."""
    depth, index, top_list = 0, 0, False
    for match in _TOKENS.finditer(text, 0, pos):
        token = match.group()
        if token in _OPEN:
            top_list = top_list or (depth == 0 and token == "[")
            depth += 1
        elif token in _CLOSE:
            depth -= 1
        elif token == "," and depth == 1:
            index += 1
    return index if top_list and depth >= 2 else None


def _deepest(text: str) -> int:
    """Position of the first bracket that opens the deepest nesting level of ``text``."""
    depth, best, best_pos = 0, 0, 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in _OPEN:
            depth += 1
            if depth > best:
                best, best_pos = depth, match.end()
        elif token in _CLOSE:
            depth -= 1
    return best_pos
