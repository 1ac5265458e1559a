"""Normalisers: a benchmark set's upstream files in, the project's corpus and question records out.

One pure function per upstream format (no files, no network): it takes the raw bytes of the
set's upstream files keyed by *role* (``"questions"``, ``"corpus"``; see the fetch manifest) and
returns ``{"corpus.json": [...], "questions.json": [...]}`` in the schema of the data
directory's README. :func:`serialise` writes records the way the data directory's files are
written, so a normalised set is byte-identical to the one ``MANIFEST.json`` records.

Multi-hop passages get ``id = sha1(title + "\\n" + text)[:16]`` (:func:`passage_id`); a
question's ``supporting_passage_ids`` are the passages its gold facts point at.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ace_lab.data.records import DataError

#: Records by output file name (``corpus.json``, ``questions.json``).
Normalised = dict[str, list[dict[str, Any]]]
Normaliser = Callable[[Mapping[str, bytes]], Normalised]

CORPUS = "corpus.json"
QUESTIONS = "questions.json"


def passage_id(title: str, text: str) -> str:
    """The stable id of a multi-hop passage: the first 16 hex digits of sha1(title \\n text)."""
    return hashlib.sha1(f"{title}\n{text}".encode()).hexdigest()[:16]


def serialise(records: list[dict[str, Any]]) -> bytes:
    """Records as the data directory writes them: UTF-8 JSON, one-space indent, no newline."""
    return json.dumps(records, ensure_ascii=False, indent=1).encode("utf-8")


# --------------------------------------------------------------------------------------------
# Reading raw files and fields
# --------------------------------------------------------------------------------------------


def _raw(files: Mapping[str, bytes], role: str) -> bytes:
    if role not in files:
        raise DataError(f"no upstream {role} file given to the normaliser")
    return files[role]


def _json(files: Mapping[str, bytes], role: str) -> Any:
    try:
        return json.loads(_raw(files, role).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"upstream {role} file is not valid UTF-8 JSON: {exc}") from None


def _jsonl(files: Mapping[str, bytes], role: str) -> list[Any]:
    try:
        lines = _raw(files, role).decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise DataError(f"upstream {role} file is not valid UTF-8: {exc}") from None
    found = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            try:
                found.append(json.loads(line))
            except ValueError as exc:
                raise DataError(f"upstream {role} file, line {number}: bad JSON: {exc}") from None
    return found


def _list(value: Any, role: str) -> list[Any]:
    if not isinstance(value, list):
        raise DataError(f"upstream {role} file: expected a JSON list, got {type(value).__name__}")
    return value


def _field(record: Any, name: str, role: str, index: int) -> Any:
    if not isinstance(record, dict):
        raise DataError(f"upstream {role} record {index}: not an object")
    if name not in record:
        raise DataError(f"upstream {role} record {index}: missing field {name!r}")
    return record[name]


def _unique(items: Iterable[str]) -> list[str]:
    """``items`` without repeats, first occurrence order."""
    return list(dict.fromkeys(items))


def _passage(title: str, text: str) -> dict[str, str]:
    return {"id": passage_id(title, text), "title": title, "text": text}


def _sentences_text(sentences: Any, role: str, index: int) -> str:
    """A HotpotQA paragraph: its sentences joined as they are (each carries its own space)."""
    if not isinstance(sentences, list) or not all(isinstance(s, str) for s in sentences):
        raise DataError(f"upstream {role} record {index}: sentences must be a list of strings")
    return "".join(sentences)


# --------------------------------------------------------------------------------------------
# HotpotQA
# --------------------------------------------------------------------------------------------


def _hotpot_question(
    record: Any, index: int, passage_of: Callable[[str], str], origin: str
) -> dict[str, Any]:
    """A HotpotQA question; ``passage_of(title)`` is the id of the supporting passage."""

    def get(name: str) -> Any:
        return _field(record, name, "questions", index)

    facts = get("supporting_facts")
    if not isinstance(facts, list) or not all(isinstance(f, list) and f for f in facts):
        raise DataError(f"upstream questions record {index}: bad supporting_facts")
    titles = _unique(fact[0] for fact in facts)
    return {
        "id": get("_id"),
        "question": get("question"),
        "answer": get("answer"),
        "answer_aliases": [],
        "type": get("type"),
        "level": get("level"),
        "supporting_facts": facts,
        "supporting_titles": titles,
        "supporting_passage_ids": [passage_of(title) for title in titles],
        "origin": origin,
    }


def _lookup(ids: Mapping[str, str], where: str, index: int) -> Callable[[str], str]:
    def passage_of(title: str) -> str:
        try:
            return ids[title]
        except KeyError:
            raise DataError(
                f"upstream questions record {index}: supporting title {title!r} not in {where}"
            ) from None

    return passage_of


def hipporag_hotpotqa(files: Mapping[str, bytes]) -> Normalised:
    """HippoRAG v1's HotpotQA sample (legacy ``data/hotpotqa_train*.json``).

    ``corpus``: an object ``{title: [sentences]}``, one passage per title in file order.
    ``questions``: a list of HotpotQA records; supporting passages found by title in the corpus.
    """
    raw_corpus = _json(files, "corpus")
    if not isinstance(raw_corpus, dict):
        raise DataError("upstream corpus file: expected an object {title: sentences}")
    corpus = [
        _passage(title, _sentences_text(sentences, "corpus", index))
        for index, (title, sentences) in enumerate(raw_corpus.items())
    ]
    ids = {p["title"]: p["id"] for p in corpus}
    origin = "HippoRAG legacy data/hotpotqa_train.json (HotpotQA train)"
    questions = [
        _hotpot_question(record, index, _lookup(ids, "the corpus", index), origin)
        for index, record in enumerate(_list(_json(files, "questions"), "questions"))
    ]
    return {CORPUS: corpus, QUESTIONS: questions}


def migres_hotpotqa(files: Mapping[str, bytes]) -> Normalised:
    """MIGRES' HotpotQA dev-distractor sample (``data/hotpot.json``, JSON lines).

    Each question brings its own ten ``context`` paragraphs ``[title, [sentences]]``; the corpus
    is their union in order of first appearance, and a question's supporting passages are the
    paragraphs of its own context with the supporting titles.
    """
    corpus: list[dict[str, str]] = []
    seen: set[str] = set()
    questions = []
    origin = "MIGRES data/hotpot.json (HotpotQA dev distractor)"
    for index, record in enumerate(_jsonl(files, "questions")):
        context = _field(record, "context", "questions", index)
        own: dict[str, str] = {}
        for pair in _list(context, "questions"):
            if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
                raise DataError(f"upstream questions record {index}: bad context paragraph")
            passage = _passage(pair[0], _sentences_text(pair[1], "questions", index))
            own.setdefault(passage["title"], passage["id"])
            if passage["id"] not in seen:
                seen.add(passage["id"])
                corpus.append(passage)
        lookup = _lookup(own, "its context", index)
        questions.append(_hotpot_question(record, index, lookup, origin))
    return {CORPUS: corpus, QUESTIONS: questions}


# --------------------------------------------------------------------------------------------
# MuSiQue
# --------------------------------------------------------------------------------------------


def _musique_question(record: Any, index: int, origin: str) -> dict[str, Any]:
    """A MuSiQue-Ans record; supporting passages: its ``is_supporting`` paragraphs in order."""

    def get(name: str) -> Any:
        return _field(record, name, "questions", index)

    supporting = []
    for paragraph in _list(get("paragraphs"), "questions"):
        if _field(paragraph, "is_supporting", "questions", index):
            title = _field(paragraph, "title", "questions", index)
            supporting.append(
                _passage(title, _field(paragraph, "paragraph_text", "questions", index))
            )
    return {
        "id": get("id"),
        "question": get("question"),
        "answer": get("answer"),
        "answer_aliases": get("answer_aliases"),
        "answerable": get("answerable"),
        "question_decomposition": get("question_decomposition"),
        "supporting_passage_ids": [p["id"] for p in supporting],
        "supporting_titles": [p["title"] for p in supporting],
        "origin": origin,
    }


def hipporag_musique(files: Mapping[str, bytes]) -> Normalised:
    """HippoRAG v1's MuSiQue sample (legacy ``data/musique_train*.json``).

    ``corpus``: a list of ``{"title", "text"}`` (repeats dropped, first kept). ``questions``: a
    list of MuSiQue-Ans records whose supporting paragraphs must all be in the corpus.
    """
    corpus: list[dict[str, str]] = []
    seen: set[str] = set()
    for index, record in enumerate(_list(_json(files, "corpus"), "corpus")):
        title = _field(record, "title", "corpus", index)
        passage = _passage(title, _field(record, "text", "corpus", index))
        if passage["id"] not in seen:
            seen.add(passage["id"])
            corpus.append(passage)
    origin = "HippoRAG legacy data/musique_train.json (MuSiQue train)"
    questions = []
    for index, record in enumerate(_list(_json(files, "questions"), "questions")):
        question = _musique_question(record, index, origin)
        missing = [i for i in question["supporting_passage_ids"] if i not in seen]
        if missing:
            raise DataError(f"upstream questions record {index}: supporting passage not in corpus")
        questions.append(question)
    return {CORPUS: corpus, QUESTIONS: questions}


#: Every normaliser by the name the fetch manifest gives it.
NORMALISERS: dict[str, Normaliser] = {
    "hipporag_hotpotqa": hipporag_hotpotqa,
    "migres_hotpotqa": migres_hotpotqa,
    "hipporag_musique": hipporag_musique,
}
