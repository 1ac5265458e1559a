"""Reading a benchmark set from disk: JSON files normalised into :class:`Passage` and
:class:`Question` records, one question parser per source schema, cached per file version.

Every error names the file, the record and the field, so a broken download is found at once:
a missing file, corrupt JSON, a record that is not an object, a missing or mistyped field, a
supporting id that is not in the corpus. Loads are cached in-process by the files' modification
time and size, so an edited file is picked up and an unchanged one is parsed once.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from ace_lab.data.graphragbench import split_evidence
from ace_lab.data.jsonfile import file_stamp, read_json, records
from ace_lab.data.records import DataError, Dataset, Passage, Question
from ace_lab.data.registry import DatasetSpec, dataset_dir, get_spec

# --------------------------------------------------------------------------------------------
# Validating fields
# --------------------------------------------------------------------------------------------


def _field(
    rec: dict[str, Any], name: str, path: Path, index: int, kind: type | tuple[type, ...] = str
) -> Any:
    if name not in rec:
        raise DataError(f"{path}: record {index}: missing required field {name!r}")
    value = rec[name]
    if not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        expected = " or ".join(k.__name__ for k in kinds)
        raise DataError(
            f"{path}: record {index}: field {name!r} must be {expected}, got {type(value).__name__}"
        )
    return value


def _strings(rec: dict[str, Any], name: str, path: Path, index: int) -> tuple[str, ...]:
    """An optional list-of-strings field as a tuple (absent or null: empty)."""
    value = rec.get(name) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DataError(f"{path}: record {index}: field {name!r} must be a list of strings")
    return tuple(value)


def _optional_str(rec: dict[str, Any], name: str, path: Path, index: int) -> str | None:
    value = rec.get(name)
    if value is not None and not isinstance(value, str):
        raise DataError(f"{path}: record {index}: field {name!r} must be a string or null")
    return value


def _rest(rec: dict[str, Any], used: Iterable[str]) -> dict[str, Any]:
    skip = set(used)
    return {k: v for k, v in rec.items() if k not in skip}


# --------------------------------------------------------------------------------------------
# Corpus normalisation
# --------------------------------------------------------------------------------------------


def _content_id(title: str, text: str) -> str:
    """The id convention of the multi-hop sets, reused for sets whose documents have none."""
    return hashlib.sha1(f"{title}\n{text}".encode()).hexdigest()[:16]


def _passage(rec: dict[str, Any], path: Path, i: int, schema: str) -> Passage:
    if schema == "multihoprag":
        title = _field(rec, "title", path, i)
        body = _field(rec, "body", path, i)
        meta = {k: str(v) for k, v in rec.items() if k not in ("title", "body") and v is not None}
        return Passage(_content_id(title, body), title, body, meta)
    pid = _field(rec, "id", path, i)
    text = _field(rec, "text", path, i)
    if schema == "user":  # a user corpus (ace_lab.data.corpora) keeps each document's file
        source = _optional_str(rec, "source", path, i)
        return Passage(pid, _field(rec, "title", path, i), text, {"source": source or ""})
    if schema in ("msgraphrag", "ultradomain"):
        # These documents only have a file-like id; its stem is the most readable title.
        title = rec.get("title") or PurePosixPath(pid).stem
        return Passage(pid, str(title), text)
    return Passage(pid, _field(rec, "title", path, i), text)


def _load_corpus(path: Path, schema: str) -> list[Passage]:
    """Passages in file order; exact duplicates are dropped, conflicting ids are an error, and
    so is an empty corpus (there is nothing to retrieve from, and BM25 cannot index it)."""
    passages: dict[str, Passage] = {}
    rows = records(read_json(path), path)
    if not rows:
        raise DataError(f"{path}: the corpus is empty (no passage records)")
    for i, rec in enumerate(rows):
        passage = _passage(rec, path, i, schema)
        seen = passages.get(passage.id)
        if seen is None:
            passages[passage.id] = passage
        elif (seen.title, seen.text) != (passage.title, passage.text):
            raise DataError(f"{path}: record {i}: id {passage.id!r} reused for different text")
    return list(passages.values())


# --------------------------------------------------------------------------------------------
# Question normalisation (one function per source schema)
# --------------------------------------------------------------------------------------------

_QuestionParser = Callable[[dict[str, Any], Path, int, str, "_CorpusIndex"], Question]


@dataclass(frozen=True)
class _CorpusIndex:
    """What question parsers may need to know about the corpus (ids, url/title lookups)."""

    ids: frozenset[str]
    by_url: Mapping[str, str]
    by_title: Mapping[str, str]


def _standard_question(rec: dict, path: Path, i: int, name: str, corpus: _CorpusIndex) -> Question:
    used = ("id", "question", "answer", "answer_aliases", "supporting_passage_ids", "type")
    return Question(
        id=_field(rec, "id", path, i),
        question=_field(rec, "question", path, i),
        answer=_field(rec, "answer", path, i),
        aliases=_strings(rec, "answer_aliases", path, i),
        supporting_ids=_strings(rec, "supporting_passage_ids", path, i),
        type=_optional_str(rec, "type", path, i),
        dataset=name,
        extra=_rest(rec, used),
    )


def _musique_question(rec: dict, path: Path, i: int, name: str, corpus: _CorpusIndex) -> Question:
    q = _standard_question(rec, path, i, name, corpus)
    # MuSiQue ids encode the reasoning shape: 2hop, 3hop1, 3hop2, 4hop1, ...
    shape = q.id.split("__", 1)[0] if "__" in q.id else None
    return Question(**{**_as_kwargs(q), "type": rec.get("type") or shape})


def _2wiki_question(rec: dict, path: Path, i: int, name: str, corpus: _CorpusIndex) -> Question:
    used = ("id", "question", "answer", "answer_aliases", "supporting_passage_ids_derived", "type")
    return Question(
        id=_field(rec, "id", path, i),
        question=_field(rec, "question", path, i),
        answer=_field(rec, "answer", path, i),
        aliases=_strings(rec, "answer_aliases", path, i),
        supporting_ids=_strings(rec, "supporting_passage_ids_derived", path, i),
        type=_optional_str(rec, "type", path, i),
        dataset=name,
        extra=_rest(rec, used),
    )


def _graphragbench_question(
    rec: dict, path: Path, i: int, name: str, corpus: _CorpusIndex
) -> Question:
    source = _field(rec, "source", path, i)
    try:  # the gold evidence statements, for Evidence Recall (ace_lab.data.graphragbench)
        statements = split_evidence(rec.get("evidence"))
    except TypeError:
        raise DataError(
            f"{path}: record {i}: field 'evidence' must be a string or a list of strings"
        ) from None
    return Question(
        id=_field(rec, "id", path, i),
        question=_field(rec, "question", path, i),
        answer=_field(rec, "answer", path, i),
        aliases=(),
        supporting_ids=(source,),
        type=_optional_str(rec, "question_type", path, i),
        dataset=name,
        extra={
            **_rest(rec, ("id", "question", "answer", "question_type")),
            "evidence_statements": list(statements),
        },
    )


def _user_question(rec: dict, path: Path, i: int, name: str, corpus: _CorpusIndex) -> Question:
    """A user corpus's question (ace_lab.data.user_questions): the answer may be absent."""
    return Question(
        id=_field(rec, "id", path, i),
        question=_field(rec, "question", path, i),
        answer=_optional_str(rec, "answer", path, i),
        aliases=_strings(rec, "answer_aliases", path, i),
        supporting_ids=(),
        type=_optional_str(rec, "type", path, i),
        dataset=name,
        extra=_rest(rec, ("id", "question", "answer", "answer_aliases", "type")),
    )


def _ultradomain_question(
    rec: dict, path: Path, i: int, name: str, corpus: _CorpusIndex
) -> Question:
    return Question(
        id=_field(rec, "id", path, i),
        question=_field(rec, "question", path, i),
        answer=None,
        aliases=(),
        supporting_ids=(),
        type=None,
        dataset=name,
        extra=_rest(rec, ("id", "question")),
    )


def _msgraphrag_question(
    rec: dict, path: Path, i: int, name: str, corpus: _CorpusIndex
) -> Question:
    group = rec.get("_group")  # set by _msgraphrag_records for the grouped MSFT file
    qid = str(_field(rec, "question_id", path, i, (str, int)))
    return Question(
        id=f"{group}-{qid}" if group else qid,
        question=_field(rec, "question_text", path, i),
        answer=None,
        aliases=(),
        supporting_ids=(),
        type=group,
        dataset=name,
        extra=_rest(rec, ("question_id", "question_text", "_group")),
    )


def _multihoprag_question(
    rec: dict, path: Path, i: int, name: str, corpus: _CorpusIndex
) -> Question:
    evidence = _field(rec, "evidence_list", path, i, list)
    supports: list[str] = []
    for j, item in enumerate(evidence):
        if not isinstance(item, dict):
            raise DataError(f"{path}: record {i}: evidence_list[{j}] must be an object")
        doc = corpus.by_url.get(item.get("url", "")) or corpus.by_title.get(item.get("title", ""))
        if doc is None:
            raise DataError(f"{path}: record {i}: evidence_list[{j}] matches no corpus article")
        if doc not in supports:
            supports.append(doc)
    return Question(
        id=f"{name}-{i:03d}",  # the source has no ids; file position is stable
        question=_field(rec, "query", path, i),
        answer=_field(rec, "answer", path, i),
        aliases=(),
        supporting_ids=tuple(supports),
        type=_optional_str(rec, "question_type", path, i),
        dataset=name,
        extra=_rest(rec, ("query", "answer", "question_type")),
    )


_QUESTION_PARSERS: dict[str, _QuestionParser] = {
    "standard": _standard_question,
    "musique": _musique_question,
    "2wiki": _2wiki_question,
    "graphragbench": _graphragbench_question,
    "ultradomain": _ultradomain_question,
    "msgraphrag": _msgraphrag_question,
    "multihoprag": _multihoprag_question,
    "user": _user_question,
}


def _as_kwargs(q: Question) -> dict[str, Any]:
    return {name: getattr(q, name) for name in Question.__dataclass_fields__}


def _question_records(data: Any, path: Path, schema: str) -> list[dict[str, Any]]:
    """The MSFT transcript questions are grouped by kind; flatten them with a ``_group`` tag."""
    if schema == "msgraphrag" and isinstance(data, dict):
        flat: list[Any] = []
        for group, items in data.items():
            rows = records(items, path)
            flat.extend({**row, "_group": group} for row in rows)
        return flat
    return records(data, path)


def _load_questions(path: Path, schema: str, name: str, corpus: _CorpusIndex) -> list[Question]:
    """Normalised questions in file order.

    A record whose question text is blank is skipped (the MSFT transcript file ends with one, a
    stray CSV row); it gives nothing to ask. Every supporting id must be in the corpus.
    """
    parse = _QUESTION_PARSERS[schema]
    questions: list[Question] = []
    seen: Counter[str] = Counter()
    for i, rec in enumerate(_question_records(read_json(path), path, schema)):
        q = parse(rec, path, i, name, corpus)
        if not q.question.strip():
            continue
        missing = [s for s in q.supporting_ids if s not in corpus.ids]
        if missing:
            raise DataError(f"{path}: record {i}: supporting ids not in the corpus: {missing}")
        seen[q.id] += 1
        if seen[q.id] > 1:
            # graphragbench_novel repeats one id for two different records; keep both, distinct.
            extra = {**q.extra, "duplicate_of": q.id}
            q = Question(**{**_as_kwargs(q), "id": f"{q.id}~{seen[q.id]}", "extra": extra})
        questions.append(q)
    return questions


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def load_dataset(
    name: str, data_dir: Path | None = None, questions_file: str | None = None
) -> Dataset:
    """Load a set by name (see :data:`DATASETS`); cached until one of its files changes.

    ``questions_file`` picks another question file of the set (``ultradomain_mix`` has two);
    the default is the first listed in the registry.
    """
    spec = get_spec(name)
    folder = dataset_dir(spec, data_dir)
    corpus_path = folder / "corpus.json"
    questions_path = folder / (questions_file or spec.question_files[0])
    stamps = tuple(file_stamp(p) for p in (corpus_path, questions_path))
    return _load_dataset_cached(spec, str(corpus_path), str(questions_path), stamps)


@lru_cache(maxsize=32)
def _load_dataset_cached(
    spec: DatasetSpec, corpus_path: str, questions_path: str, stamps: tuple
) -> Dataset:
    passages = _load_corpus(Path(corpus_path), spec.schema)
    corpus = _CorpusIndex(
        ids=frozenset(p.id for p in passages),
        by_url={p.meta["url"]: p.id for p in passages if "url" in p.meta},
        by_title={p.title: p.id for p in passages},
    )
    questions = _load_questions(Path(questions_path), spec.schema, spec.name, corpus)
    return Dataset(
        spec.name, passages, questions, spec.setting, spec.passages_per_question, spec.anchored
    )
