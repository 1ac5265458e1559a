"""A user's questions file read into question records, and the answer task they imply.

Formats: a JSON list of objects (or ``{"questions": [...]}``), JSONL (one object a line) or CSV
(a header row). Fields: ``question`` (required), and optionally ``id``, ``answer``,
``answer_aliases`` (a list, or ``|``-separated text as CSV has it) and ``type``. A question
without an id gets ``q-`` and 12 hex digits of SHA-1 of its text, stable on every machine. A
malformed record, or a repeat of a question or an id, is skipped alone with one line naming
``FILE#INDEX``; a file that cannot be read at all is a :class:`DataError`.

The default answer task follows the gold answers: none at all means the questions are judged by
pairwise preference (answered in sentences, task ``open``); a median gold answer longer than
:data:`SENTENCE_WORDS` words means sentence answers (``open``); otherwise short spans (``qa``).
"""

from __future__ import annotations

import hashlib
import statistics
from pathlib import Path
from typing import Any

from ace_lab.data.documents import (
    DEFAULT_MAX_BYTES,
    SkipFile,
    csv_rows,
    decode_text,
    json_rows,
    jsonl_rows,
    read_bytes,
)
from ace_lab.data.records import DataError

#: Median gold-answer length (words) above which answers count as sentences (task ``open``).
SENTENCE_WORDS = 8
QUESTION_SUFFIXES = (".json", ".jsonl", ".csv")


def question_id(question: str) -> str:
    """The id of a question without one: ``q-`` and 12 hex digits of SHA-1 of its text."""
    return "q-" + hashlib.sha1(question.encode("utf-8")).hexdigest()[:12]


def read_questions(
    path: Path, max_bytes: int = DEFAULT_MAX_BYTES
) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """Question records ``{"id", "question", "answer", "answer_aliases", "type"}`` in file
    order, and the records skipped ``(FILE#INDEX, reason)``."""
    suffix = path.suffix.lower()
    if suffix not in QUESTION_SUFFIXES:
        raise DataError(f"{path}: questions must be .json, .jsonl or .csv, not {suffix!r}")
    try:
        text, _ = decode_text(read_bytes(path, max_bytes))
        if suffix == ".csv":
            rows = csv_rows(text, required="question")
        else:
            rows = json_rows(_unwrap(text)) if suffix == ".json" else jsonl_rows(text)
    except SkipFile as exc:
        raise DataError(f"{path}: {exc}") from None
    questions: list[dict[str, Any]] = []
    skipped: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for index, rec, problem in rows:
        name = f"{path.name}#{index}"
        problem = problem or _problem(rec)
        if problem:
            skipped.append((name, problem))
            continue
        q = _normalise(rec)
        first = seen.setdefault(q["id"], index)
        if first != index:
            skipped.append((name, f"repeats record {first} (same id {q['id']!r})"))
            continue
        questions.append(q)
    return questions, skipped


def answer_style(questions: list[dict[str, Any]]) -> tuple[str, str]:
    """``(task, answers)``: ``("qa", "spans")``, ``("open", "sentences")`` or
    ``("open", "none")`` (module docstring)."""
    lengths = [len(q["answer"].split()) for q in questions if q.get("answer")]
    if not lengths:
        return "open", "none"
    return ("open", "sentences") if statistics.median(lengths) > SENTENCE_WORDS else ("qa", "spans")


def _unwrap(text: str) -> str:
    """``{"questions": [...]}`` as its list (as JSON text); anything else unchanged."""
    import json

    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return text
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text  # reported by the row parser
    inner = data.get("questions") if isinstance(data, dict) else None
    return json.dumps(inner) if isinstance(inner, list) else text


def _problem(rec: Any) -> str | None:
    if not isinstance(rec, dict):
        return f"a {type(rec).__name__}, expected an object with a 'question' field"
    question = rec.get("question")
    if not isinstance(question, str) or not question.strip():
        return "no 'question' text"
    for name in ("id", "answer", "type"):
        value = rec.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, str | int)):
            return f"field {name!r} must be a string"
    aliases = rec.get("answer_aliases")
    if aliases is not None and not isinstance(aliases, str | list):
        return "field 'answer_aliases' must be a list of strings or '|'-separated text"
    if isinstance(aliases, list) and not all(isinstance(a, str) for a in aliases):
        return "field 'answer_aliases' must be a list of strings"
    return None


def _normalise(rec: dict[str, Any]) -> dict[str, Any]:
    question = " ".join(rec["question"].split())
    answer = str(rec["answer"]).strip() if rec.get("answer") is not None else ""
    aliases = rec.get("answer_aliases") or []
    if isinstance(aliases, str):
        aliases = aliases.split("|")
    given = str(rec["id"]).strip() if rec.get("id") is not None else ""
    kind = str(rec["type"]).strip() if rec.get("type") is not None else ""
    return {
        "id": given or question_id(question),
        "question": question,
        "answer": answer or None,
        "answer_aliases": [a.strip() for a in aliases if a.strip()],
        "type": kind or None,
    }
