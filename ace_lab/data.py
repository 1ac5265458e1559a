"""Benchmark data: locate it, load every set into one typed schema, slice it, chunk it.

Every benchmark set is normalised into :class:`Passage` and :class:`Question` records so the rest
of ace_lab never sees a set's own field names. :data:`DATASETS` says where each set lives and
which *setting* it is evaluated in:

``per_question``
    HotpotQA (10 passages per question) and MuSiQue (20): the distractor setting, where every
    question comes with its own small group of candidate passages.
``shared``
    2WikiMultihopQA (and the toy corpus): one corpus shared by all questions; a slice takes each
    question's supporting passages plus BM25-ranked hard distractors.
``documents``
    GraphRAG-Bench, UltraDomain, the MS GraphRAG sets and MultiHop-RAG: whole documents that a
    pipeline chunks and indexes as one corpus.

*Anchored* document sets (UltraDomain) slice by document: their questions carry no supporting
documents but each is about one, so each question is anchored to the document BM25 ranks first
for it, and a slice of ``n`` questions takes whole documents in order of characters per anchored
question (the cheapest graph per question) until they anchor ``n`` questions. Small slices are
therefore biased towards short documents; ``n`` = every question gives the whole corpus.

How the per-question groups are recovered. The HotpotQA/MuSiQue ``corpus.json`` files hold no
per-question field, but they are the de-duplicated concatenation of each question's candidate
block, in the source question order (held-out questions included): supporting passages of
consecutive questions sit in consecutive windows of ~10 (HotpotQA) or ~20 (MuSiQue) positions.
De-duplication shortens later blocks, so block boundaries drift and have to be estimated:

* the *home* supporting passages of a question are those within one block length of its last
  supporting passage (a support outside that range was de-duplicated into an earlier block);
* MuSiQue records each support's index inside the question's 20 paragraphs
  (``question_decomposition[*].paragraph_support_idx``), so the block starts at
  ``max(position - index)`` over the home supports;
* HotpotQA has no paragraph index, so among the windows that cover the home supports we take the
  one whose passages are most similar (BM25) to the question; the candidate distractors were
  retrieved by similarity to the question, so the true block stands out. On the training sample
  (no held-out questions) this matches the ten-passage grid for 98 of 100 questions.

A question's group is its supporting passages plus the nearest passages of that window, exactly
``passages_per_question`` of them, so supporting passages are always present.
"""

from __future__ import annotations

import hashlib
import json
import os
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from ace_lab.config import REPO_ROOT
from ace_lab.tokens import count_tokens, token_spans

PER_QUESTION = "per_question"
SHARED = "shared"
DOCUMENTS = "documents"
TOY = "toy"
DEFAULT_DISTRACTORS = 8


class DataError(ValueError):
    """A benchmark file is missing, is not valid JSON, or has a record without a needed field."""


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passage:
    """One retrievable unit: a Wikipedia paragraph for the multi-hop sets, else a whole document.

    ``meta`` keeps per-document metadata some questions depend on (MultiHop-RAG asks about a news
    article's source and publication date, which are not in its body).
    """

    id: str
    title: str
    text: str
    meta: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Question:
    """A question with its gold data; ``answer`` is None for sets judged pairwise (no gold).

    ``extra`` carries every source field that has no place of its own (HotpotQA
    ``supporting_facts``, MuSiQue ``question_decomposition``, GraphRAG-Bench ``evidence``, ...).
    """

    id: str
    question: str
    answer: str | None
    aliases: tuple[str, ...]
    supporting_ids: tuple[str, ...]
    type: str | None
    dataset: str
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def answers(self) -> tuple[str, ...]:
        """The answer followed by its aliases (empty when there is no gold answer)."""
        return () if self.answer is None else (self.answer, *self.aliases)


@dataclass(frozen=True)
class DatasetSpec:
    """Where a set lives and how it is evaluated (see the module docstring for ``setting``)."""

    name: str
    folder: str
    question_files: tuple[str, ...]
    setting: str
    schema: str
    passages_per_question: int | None = None
    description: str = ""
    anchored: bool = False  # documents set sliced by each question's BM25-best document


def _spec(name: str, setting: str, schema: str, **kwargs: Any) -> DatasetSpec:
    files = kwargs.pop("question_files", ("questions.json",))
    return DatasetSpec(name, kwargs.pop("folder", name), files, setting, schema, **kwargs)


#: Every known set by name. ``toy`` lives in the repository's ``data/toy``; the others in the
#: benchmark data directory (:func:`resolve_data_dir`).
DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        _spec(TOY, SHARED, "standard", description="hand-written fictional corpus for tests"),
        _spec(
            "hotpotqa_dev_sample200",
            PER_QUESTION,
            "standard",
            passages_per_question=10,
            description="HotpotQA dev, distractor setting",
        ),
        _spec(
            "hotpotqa_train_sample100_hipporag",
            PER_QUESTION,
            "standard",
            passages_per_question=10,
            description="HotpotQA train sample (HippoRAG v1)",
        ),
        _spec(
            "musique_dev_sample292",
            PER_QUESTION,
            "musique",
            passages_per_question=20,
            description="MuSiQue-Ans dev, 20 paragraphs per question",
        ),
        _spec(
            "musique_train_sample100_hipporag",
            PER_QUESTION,
            "musique",
            passages_per_question=20,
            description="MuSiQue train sample (HippoRAG v1)",
        ),
        _spec(
            "2wikimultihopqa_hipporag1000",
            SHARED,
            "2wiki",
            description="2WikiMultihopQA, HippoRAG shared corpus, derived supports",
        ),
        _spec("graphragbench_medical", DOCUMENTS, "graphragbench", description="one medical doc"),
        _spec("graphragbench_novel", DOCUMENTS, "graphragbench", description="20 novels"),
        _spec(
            "ultradomain_mix",
            DOCUMENTS,
            "ultradomain",
            question_files=("questions_ultradomain130.json", "questions_lightrag_generated.json"),
            description="UltraDomain mix, no gold answers (pairwise judging)",
            anchored=True,
        ),
        _spec("msgraphrag_podcast", DOCUMENTS, "msgraphrag", description="podcast transcripts"),
        _spec(
            "msgraphrag_msft_transcripts",
            DOCUMENTS,
            "msgraphrag",
            description="earnings-call transcripts, single/multi-transcript questions",
        ),
        _spec("multihoprag_small20", DOCUMENTS, "multihoprag", description="news articles"),
    )
}


@dataclass(frozen=True, eq=False)
class Dataset:
    """A loaded set. Loads are cached and shared, so treat the lists as read-only."""

    name: str
    passages: list[Passage]
    questions: list[Question]
    setting: str = SHARED
    passages_per_question: int | None = None
    anchored: bool = False

    @cached_property
    def passage_by_id(self) -> dict[str, Passage]:
        return {p.id: p for p in self.passages}

    @cached_property
    def question_by_id(self) -> dict[str, Question]:
        return {q.id: q for q in self.questions}

    @cached_property
    def position(self) -> dict[str, int]:
        """Corpus position of each passage id (slices keep passages in corpus order)."""
        return {p.id: i for i, p in enumerate(self.passages)}

    def passage(self, passage_id: str) -> Passage:
        try:
            return self.passage_by_id[passage_id]
        except KeyError:
            raise KeyError(f"{self.name}: no passage with id {passage_id!r}") from None

    def question(self, question_id: str) -> Question:
        try:
            return self.question_by_id[question_id]
        except KeyError:
            raise KeyError(f"{self.name}: no question with id {question_id!r}") from None

    def __repr__(self) -> str:
        return (
            f"Dataset({self.name!r}, passages={len(self.passages)}, "
            f"questions={len(self.questions)}, setting={self.setting!r})"
        )


# --------------------------------------------------------------------------------------------
# Locating the data
# --------------------------------------------------------------------------------------------


def _repo_root() -> Path:
    """The checkout root; falls back to the package's parent when pyproject.toml is absent."""
    return REPO_ROOT or Path(__file__).resolve().parent.parent


def resolve_data_dir(settings_data_dir: Path | None = None) -> Path:
    """The benchmark data directory.

    Order: ``settings_data_dir``, else ``ACE_LAB_DATA``; then ``../shared/data`` next to the
    repository root and next to the working directory; then the repository's own ``data/``
    (which holds only the toy corpus). An explicit directory that does not exist is an error
    rather than a silent fallback, so a typo never evaluates on the wrong data.
    """
    explicit = settings_data_dir or (Path(v) if (v := os.environ.get("ACE_LAB_DATA")) else None)
    if explicit is not None:
        explicit = Path(explicit).expanduser()
        if not explicit.is_dir():
            raise DataError(f"data directory {explicit} does not exist (explicit or ACE_LAB_DATA)")
        return explicit.resolve()
    tried = [
        _repo_root().parent / "shared" / "data",
        Path.cwd().parent / "shared" / "data",
        _repo_root() / "data",
    ]
    for candidate in tried:
        if candidate.is_dir():
            return candidate.resolve()
    listing = ", ".join(str(p) for p in tried)
    raise DataError(f"no benchmark data directory found; set ACE_LAB_DATA. Tried: {listing}")


def _dataset_dir(spec: DatasetSpec, data_dir: Path | None) -> Path:
    if spec.name == TOY:
        return _repo_root() / "data" / spec.folder
    return resolve_data_dir(data_dir) / spec.folder


def _get_spec(name: str) -> DatasetSpec:
    try:
        return DATASETS[name]
    except KeyError:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}") from None


def list_datasets(data_dir: Path | None = None) -> list[str]:
    """Names of the sets present on this machine, in :data:`DATASETS` order (toy always)."""
    return [
        name
        for name, spec in DATASETS.items()
        if (_dataset_dir(spec, data_dir) / spec.question_files[0]).is_file()
    ]


# --------------------------------------------------------------------------------------------
# Reading and validating JSON
# --------------------------------------------------------------------------------------------


def _read_json(path: Path) -> Any:
    """Parsed JSON, cached in-process by (path, mtime, size) so edits are picked up."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    return _read_json_cached(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=64)
def _read_json_cached(path: str, mtime_ns: int, size: int) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise DataError(
            f"{path}: corrupt JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from exc
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text: {exc}") from exc


def _records(data: Any, path: Path) -> list[dict[str, Any]]:
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of records, got {type(data).__name__}")
    for i, rec in enumerate(data):
        if not isinstance(rec, dict):
            raise DataError(f"{path}: record {i} is {type(rec).__name__}, expected an object")
    return data


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
    if schema in ("msgraphrag", "ultradomain"):
        # These documents only have a file-like id; its stem is the most readable title.
        title = rec.get("title") or PurePosixPath(pid).stem
        return Passage(pid, str(title), text)
    return Passage(pid, _field(rec, "title", path, i), text)


def _load_corpus(path: Path, schema: str) -> list[Passage]:
    """Passages in file order; exact duplicates are dropped, conflicting ids are an error."""
    passages: dict[str, Passage] = {}
    for i, rec in enumerate(_records(_read_json(path), path)):
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
    return Question(
        id=_field(rec, "id", path, i),
        question=_field(rec, "question", path, i),
        answer=_field(rec, "answer", path, i),
        aliases=(),
        supporting_ids=(source,),
        type=_optional_str(rec, "question_type", path, i),
        dataset=name,
        extra=_rest(rec, ("id", "question", "answer", "question_type")),
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
}


def _as_kwargs(q: Question) -> dict[str, Any]:
    return {name: getattr(q, name) for name in Question.__dataclass_fields__}


def _question_records(data: Any, path: Path, schema: str) -> list[dict[str, Any]]:
    """The MSFT transcript questions are grouped by kind; flatten them with a ``_group`` tag."""
    if schema == "msgraphrag" and isinstance(data, dict):
        flat: list[Any] = []
        for group, items in data.items():
            rows = _records(items, path)
            flat.extend({**row, "_group": group} for row in rows)
        return flat
    return _records(data, path)


def _load_questions(path: Path, schema: str, name: str, corpus: _CorpusIndex) -> list[Question]:
    """Normalised questions in file order.

    A record whose question text is blank is skipped (the MSFT transcript file ends with one, a
    stray CSV row); it gives nothing to ask. Every supporting id must be in the corpus.
    """
    parse = _QUESTION_PARSERS[schema]
    questions: list[Question] = []
    seen: Counter[str] = Counter()
    for i, rec in enumerate(_question_records(_read_json(path), path, schema)):
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
    spec = _get_spec(name)
    folder = _dataset_dir(spec, data_dir)
    corpus_path = folder / "corpus.json"
    questions_path = folder / (questions_file or spec.question_files[0])
    stamps = tuple(_stamp(p) for p in (corpus_path, questions_path))
    return _load_dataset_cached(spec, str(corpus_path), str(questions_path), stamps)


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    return stat.st_mtime_ns, stat.st_size


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


# --------------------------------------------------------------------------------------------
# BM25 (distractors for shared corpora, block scoring for HotpotQA)
# --------------------------------------------------------------------------------------------

_MEMO: weakref.WeakKeyDictionary[Dataset, dict[str, Any]] = weakref.WeakKeyDictionary()


def _memo(dataset: Dataset, key: str, build: Callable[[], Any]) -> Any:
    """Per-dataset derived data (BM25 index, question groups), freed with the dataset."""
    store = _MEMO.setdefault(dataset, {})
    if key not in store:
        store[key] = build()
    return store[key]


class _Bm25:
    """BM25 over a dataset's passages (title + text); scores one query against every passage."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        import bm25s  # deferred: only slicing needs it

        self._bm25s = bm25s
        self.size = len(passages)
        corpus = [f"{p.title} {p.text}" for p in passages]
        tokens = bm25s.tokenize(corpus, stopwords="en", show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(tokens, show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        tokens = self._bm25s.tokenize(
            [query], stopwords="en", show_progress=False, return_ids=False
        )[0]
        if not tokens:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self.retriever.get_scores(tokens), dtype=np.float32)


def _bm25(dataset: Dataset) -> _Bm25:
    return _memo(dataset, "bm25", lambda: _Bm25(dataset.passages))


def _id_rank(dataset: Dataset) -> np.ndarray:
    """Rank of each passage id in sorted order: the deterministic tie-break for equal scores."""

    def build() -> np.ndarray:
        order = sorted(range(len(dataset.passages)), key=lambda i: dataset.passages[i].id)
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank

    return _memo(dataset, "id_rank", build)


# --------------------------------------------------------------------------------------------
# Per-question passages
# --------------------------------------------------------------------------------------------


def question_passages(
    dataset: Dataset, question: Question, distractors: int = DEFAULT_DISTRACTORS
) -> list[Passage]:
    """The passages the question's setting provides, supporting passages always included.

    ``per_question``: its own candidate group (module docstring). ``shared``: its supports plus
    ``distractors`` hard distractors (highest BM25 score to the question, ties by id).
    ``documents``: every document.
    """
    if dataset.setting == DOCUMENTS:
        return list(dataset.passages)
    if dataset.setting == PER_QUESTION:
        ids = _memo(dataset, f"group:{question.id}", lambda: _group_ids(dataset, question))
    else:
        ids = _with_distractors(dataset, question, distractors)
    return [dataset.passage(pid) for pid in ids]


def _with_distractors(dataset: Dataset, question: Question, k: int) -> tuple[str, ...]:
    if k < 0:
        raise ValueError(f"distractors must be >= 0, got {k}")
    supports = [dataset.position[s] for s in question.supporting_ids]
    scores = _bm25(dataset).scores(question.question)
    candidates = np.setdiff1d(np.arange(len(dataset.passages)), supports)
    order = np.lexsort((_id_rank(dataset)[candidates], -scores[candidates]))
    chosen = candidates[order[:k]].tolist()
    return tuple(dataset.passages[i].id for i in [*supports, *chosen])


def anchor_documents(dataset: Dataset) -> dict[str, str]:
    """Question id -> the document BM25 ranks first for the question (ties by document id)."""

    def build() -> dict[str, str]:
        bm25, rank = _bm25(dataset), _id_rank(dataset)
        anchors = {}
        for q in dataset.questions:
            best = np.lexsort((rank, -bm25.scores(q.question)))[0]
            anchors[q.id] = dataset.passages[best].id
        return anchors

    return _memo(dataset, "anchors", build)


def cheapest_documents(dataset: Dataset, n: int) -> list[str]:
    """Fewest characters per anchored question first, until the documents anchor ``n`` questions."""
    anchored = Counter(anchor_documents(dataset).values())
    order = sorted(anchored, key=lambda d: (len(dataset.passage(d).text) / anchored[d], d))
    chosen, covered = [], 0
    for doc in order:
        if covered >= n:
            break
        chosen.append(doc)
        covered += anchored[doc]
    return chosen


def _group_ids(dataset: Dataset, question: Question) -> tuple[str, ...]:
    """Supports plus the rest of the question's estimated candidate block, in corpus order."""
    size = dataset.passages_per_question or 10
    total = len(dataset.passages)
    supports = sorted({dataset.position[s] for s in question.supporting_ids})
    if not supports:
        window = _best_window(dataset, question, range(0, max(1, total - size + 1)), size)
    else:
        last = supports[-1]
        home = [p for p in supports if p > last - size]
        lowest, highest = max(0, last - size + 1), max(0, min(home[0], total - size))
        starts = range(lowest, max(lowest, highest) + 1)
        hinted = _start_from_paragraph_index(dataset, question, size)
        if hinted is not None:
            window = min(max(hinted, starts[0]), starts[-1])
        else:
            window = _best_window(dataset, question, starts, size)
    fill = [i for i in range(window, min(window + size, total)) if i not in supports]
    group = sorted(supports + fill[: max(0, size - len(supports))])
    return tuple(dataset.passages[i].id for i in group)


def _start_from_paragraph_index(dataset: Dataset, question: Question, size: int) -> int | None:
    """MuSiQue: block start implied by the supports' paragraph indices (None if not usable).

    ``supporting_ids`` are in paragraph order, so they pair with the sorted indices. De-duplicated
    passages before a support shift it left, so each pair gives a lower bound; take the largest.
    """
    steps = question.extra.get("question_decomposition")
    if not isinstance(steps, list):
        return None
    indices = sorted(
        s["paragraph_support_idx"]
        for s in steps
        if isinstance(s, dict) and isinstance(s.get("paragraph_support_idx"), int)
    )
    if len(indices) != len(question.supporting_ids):
        return None
    positions = [dataset.position[s] for s in question.supporting_ids]
    last = max(positions)
    bounds = [p - k for p, k in zip(positions, indices, strict=True) if p > last - size]
    return max(bounds) if bounds else None


def _best_window(dataset: Dataset, question: Question, starts: range, size: int) -> int:
    """Start of the window of ``size`` passages most similar to the question (earliest on ties)."""
    scores = _bm25(dataset).scores(question.question)
    sums = np.concatenate(([0.0], np.cumsum(scores, dtype=np.float64)))
    total = len(scores)
    window_sums = [sums[min(s + size, total)] - sums[s] for s in starts]
    return starts[int(np.argmax(window_sums))]


# --------------------------------------------------------------------------------------------
# Slices
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Slice:
    """A deterministic evaluation subset: ``n`` questions and the passages they need.

    ``question_passage_ids`` maps each question to its own passages (see
    :func:`question_passages`); ``passages`` is their union in corpus order.
    """

    dataset_name: str
    questions: list[Question]
    passages: list[Passage]
    seed: int
    n: int
    setting: str = SHARED
    question_passage_ids: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    variant: str = ""  # suffix for non-default options, part of slice_id

    @property
    def slice_id(self) -> str:
        return f"{self.dataset_name}-n{self.n}-s{self.seed}{self.variant}"

    @property
    def passage_ids(self) -> list[str]:
        return [p.id for p in self.passages]


def selection_key(question_id: str, seed: int) -> str:
    """Sort key that orders questions for a slice: SHA-256 of ``"{seed}:{id}"``.

    A hash rank, not ``random``, because it is identical on every machine and Python version,
    gives nested slices (the first 20 of a seed are the first 20 of its n=50 slice), and a
    question's rank does not move when other questions are added to or removed from the file.
    """
    return hashlib.sha256(f"{seed}:{question_id}".encode()).hexdigest()


def make_slice(
    dataset: Dataset,
    n: int,
    seed: int = 0,
    distractors: int = DEFAULT_DISTRACTORS,
    doc_ids: Sequence[str] | None = None,
) -> Slice:
    """``n`` questions ordered by :func:`selection_key`, with the passages their setting gives.

    For document sets ``doc_ids`` restricts the corpus to those documents and the candidate
    questions to those whose supporting documents are all among them. An *anchored* set
    (module docstring) without ``doc_ids`` takes :func:`cheapest_documents`.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if distractors < 0:
        raise ValueError(f"distractors must be >= 0, got {distractors}")
    if dataset.anchored and doc_ids is None:
        pool, documents, variant = _slice_scope(dataset, cheapest_documents(dataset, n))
        variant = ""  # the default scope of an anchored set: the slice id stays plain
    else:
        pool, documents, variant = _slice_scope(dataset, doc_ids)
    if n > len(pool):
        scope = " within the given doc_ids" if doc_ids is not None else ""
        raise ValueError(
            f"cannot slice n={n} questions from {dataset.name}: only {len(pool)} available{scope}"
        )
    questions = sorted(pool, key=lambda q: (selection_key(q.id, seed), q.id))[:n]
    if dataset.setting == DOCUMENTS:
        doc_tuple = tuple(p.id for p in documents)
        groups = {q.id: doc_tuple for q in questions}
    else:
        groups = {
            q.id: tuple(p.id for p in question_passages(dataset, q, distractors)) for q in questions
        }
        if dataset.setting == SHARED and distractors != DEFAULT_DISTRACTORS:
            variant = f"-k{distractors}"
    wanted = {pid for ids in groups.values() for pid in ids}
    passages = [p for p in dataset.passages if p.id in wanted]
    return Slice(dataset.name, questions, passages, seed, n, dataset.setting, groups, variant)


def _slice_scope(
    dataset: Dataset, doc_ids: Sequence[str] | None
) -> tuple[list[Question], list[Passage], str]:
    """Eligible questions, the documents in scope, and the slice-id suffix for ``doc_ids``."""
    if doc_ids is None:
        return list(dataset.questions), list(dataset.passages), ""
    if dataset.setting != DOCUMENTS:
        raise ValueError(f"doc_ids applies to document sets; {dataset.name} is {dataset.setting}")
    unknown = [d for d in doc_ids if d not in dataset.passage_by_id]
    if unknown:
        raise ValueError(f"{dataset.name}: unknown doc ids {unknown}")
    chosen = set(doc_ids)
    anchors = anchor_documents(dataset) if dataset.anchored else {}

    def needed(q: Question) -> set[str]:  # an anchored question needs its anchor document
        return set(q.supporting_ids) or ({anchors[q.id]} if q.id in anchors else set())

    pool = [q for q in dataset.questions if needed(q) <= chosen]
    documents = [p for p in dataset.passages if p.id in chosen]
    digest = hashlib.sha1(",".join(sorted(chosen)).encode()).hexdigest()[:8]
    return pool, documents, f"-d{digest}"


# --------------------------------------------------------------------------------------------
# Chunking
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """A piece of a passage; ``start`` is its character offset in the passage text."""

    id: str
    doc_id: str
    title: str
    text: str
    index: int
    start: int = 0


def _check_window(max_tokens: int, overlap: int) -> None:
    if not max_tokens > overlap >= 0:
        raise ValueError(f"need max_tokens > overlap >= 0, got {max_tokens=} {overlap=}")


def chunk_spans(text: str, max_tokens: int = 600, overlap: int = 100) -> list[tuple[int, int]]:
    """Character spans of the chunks :func:`chunk_text` returns.

    Windows of ``max_tokens`` word pieces (ace_lab.tokens) advance by ``max_tokens - overlap``.
    A chunk runs from its first piece to the start of the piece after its last, so whitespace
    stays with the preceding chunk and the spans cover the text without gaps: the first starts
    at 0, the last ends at ``len(text)``, and each starts at or before the previous one's end.
    """
    _check_window(max_tokens, overlap)
    spans = token_spans(text)
    if len(spans) <= max_tokens:
        return [(0, len(text))] if text else []
    step = max_tokens - overlap
    out: list[tuple[int, int]] = []
    first = 0
    while True:
        last = first + max_tokens  # exclusive token index
        start = 0 if first == 0 else spans[first][0]
        if last >= len(spans):
            out.append((start, len(text)))
            return out
        out.append((start, spans[last][0]))
        first += step


def chunk_text(text: str, max_tokens: int = 600, overlap: int = 100) -> list[str]:
    """``text`` cut into overlapping chunks of at most ``max_tokens`` word pieces.

    Chunks are exact substrings (see :func:`chunk_spans`); text that fits is one chunk, and an
    empty string gives no chunks.
    """
    return [text[a:b] for a, b in chunk_spans(text, max_tokens, overlap)]


def chunk_passages(
    passages: Iterable[Passage], max_tokens: int = 600, overlap: int = 100
) -> list[Chunk]:
    """Chunks of every passage, in order.

    A passage that fits in ``max_tokens`` stays one chunk whose id *is* the passage id, so gold
    supporting ids of the multi-hop sets can be scored directly on chunk ids; longer passages
    give chunks ``f"{doc_id}#{index}"``.
    """
    _check_window(max_tokens, overlap)
    chunks: list[Chunk] = []
    for p in passages:
        spans = chunk_spans(p.text, max_tokens, overlap) or [(0, 0)]
        if len(spans) == 1:
            chunks.append(Chunk(p.id, p.id, p.title, p.text, 0, 0))
            continue
        chunks.extend(
            Chunk(f"{p.id}#{i}", p.id, p.title, p.text[a:b], i, a) for i, (a, b) in enumerate(spans)
        )
    return chunks


# --------------------------------------------------------------------------------------------
# Overview (for the setup notebook and ``ace-lab data``)
# --------------------------------------------------------------------------------------------


def question_type_counts(dataset: Dataset) -> pd.Series:
    """Questions per type, most common first (untyped questions count as ``"(none)"``)."""
    counts = Counter(q.type or "(none)" for q in dataset.questions)
    return pd.Series(dict(counts.most_common()), name=dataset.name, dtype="int64")


def passage_lengths(dataset: Dataset) -> np.ndarray:
    """Word-piece token count (ace_lab.tokens) of every passage, in corpus order."""
    return np.array([count_tokens(p.text) for p in dataset.passages], dtype=np.int64)


def dataset_overview(data_dir: Path | None = None) -> pd.DataFrame:
    """One row per available set: sizes, gold coverage and question types.

    ``words`` is a whitespace word count, not word pieces: it keeps the overview to about a
    second over all sets (word pieces run ~1.2-1.3x words on English prose).
    """
    rows = []
    for name in list_datasets(data_dir):
        ds = load_dataset(name, data_dir)
        types = question_type_counts(ds)
        rows.append(
            {
                "name": name,
                "setting": ds.setting,
                "questions": len(ds.questions),
                "passages": len(ds.passages),
                "chars": sum(len(p.text) for p in ds.passages),
                "words": sum(len(p.text.split()) for p in ds.passages),
                "has_answers": any(q.answer is not None for q in ds.questions),
                "has_supports": any(q.supporting_ids for q in ds.questions),
                "question_types": ", ".join(f"{t} {c}" for t, c in types.items()),
            }
        )
    return pd.DataFrame(rows)
