"""GraphRAG-Bench slices: questions stratified by type, their evidence chunks, hard distractors.

GraphRAG-Bench (Medical: one 1.05 M-character document; Novel: 20 novels) gives whole documents,
far too much text for a CPU model to build a graph from, and its gold ``evidence`` is a list of
LLM-paraphrased statements, not passage ids or verbatim spans. A slice therefore makes its own
small corpus of chunks, built like the 2Wiki slices (supports plus BM25 hard distractors):

* **Chunks.** Every document is cut into consecutive windows of :data:`CHUNK_TOKENS` word pieces
  (:func:`ace_lab.data.chunking.chunk_spans`, no overlap) with ids ``<doc_id>#c<index>``
  (4-digit index). They are shorter than the pipeline's chunk window (600), so a graph build
  keeps each as one chunk and scores recall on these ids directly.
* **Questions.** ``n`` questions stratified over the four question types
  (:data:`QUESTION_TYPES`): each type gets its share of ``n`` in proportion to its count in the
  set (largest remainder, ties in type order), at least one per type present when ``n`` allows;
  within a type questions are taken in :func:`~ace_lab.data.slices.selection_key` order, and the
  slice lists them in that order too.
* **Evidence chunks.** The ``evidence`` field is split into statements (:func:`split_evidence`).
  Each statement is matched to the chunk of the question's ``source`` document with the highest
  BM25 score for it (ties: the earlier chunk); a statement that shares no BM25 token with any
  chunk is left unmatched. The distinct matched chunks become the question's
  ``supporting_ids``, so passage recall is scored on evidence chunks.
* **Distractors.** Then, in slice order, each question adds ``distractors`` hard distractors
  (:data:`DEFAULT_DISTRACTORS`): the chunks of the slice's scope that BM25 ranks highest for the
  question text (ties by corpus position), skipping every evidence chunk of the slice and every
  distractor already chosen, so a slice holds exactly ``n × distractors`` distractor chunks
  (fewer only if the scope runs out).

The slice's corpus is the union of these chunks, in corpus order; ``question_passage_ids`` maps
each question to its evidence chunks followed by its own distractors. Each sliced question keeps
its type and gold evidence in ``extra``: ``evidence_statements``, ``evidence_chunk_ids`` (the
chunk matched to each statement, None if unmatched), ``evidence_match_scores`` and
``distractor_ids``. The match is lexical: paraphrased or inferential statements ("This suggests
…") can land on a wrong chunk; such a chunk only adds another distractor, while the judged
Evidence Recall (:mod:`ace_lab.eval.graphragbench.judge`) reads the statements, not these ids.
Committed slices depend on every detail here (chunk size, BM25 tokens, tie-breaks): change
nothing lightly.
"""

from __future__ import annotations

import hashlib
import re
import weakref
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ace_lab.data.chunking import chunk_spans
from ace_lab.data.records import SHARED, Dataset, Passage, Question
from ace_lab.data.registry import DATASETS, POOLED_SETS
from ace_lab.data.slices import Slice, selection_key
from ace_lab.index import sparse
from ace_lab.tokens import count_tokens

#: The benchmark's four question types, in its own order (generation_eval.py's metric_config).
QUESTION_TYPES = (
    "Fact Retrieval",
    "Complex Reasoning",
    "Contextual Summarize",
    "Creative Generation",
)
#: Word pieces per slice chunk: about a HotpotQA paragraph and a half, so a 20-question slice is
#: about as much text as the 2Wiki/HotpotQA 20-question slices (~20 k tokens).
CHUNK_TOKENS = 200
#: Hard distractor chunks per question (other counts change the slice id: ``-k<count>``).
DEFAULT_DISTRACTORS = 2

# A statement separator: a semicolon followed by whitespace ("t(14;18)" is not split).
_SEPARATOR = re.compile(r";\s+")


def split_evidence(evidence: str | Sequence[str] | None) -> tuple[str, ...]:
    """The evidence statements of a question: the ``"; "``-joined string split, or the list.

    Blank statements are dropped. Raises ``TypeError`` for anything but a string, a list of
    strings or None (the loader turns that into a DataError naming the file and record).
    """
    if evidence is None:
        return ()
    if isinstance(evidence, str):
        parts: Sequence[Any] = _SEPARATOR.split(evidence)
    elif isinstance(evidence, list | tuple) and all(isinstance(e, str) for e in evidence):
        parts = evidence
    else:
        raise TypeError("evidence must be a string or a list of strings")
    return tuple(s.strip() for s in parts if s.strip())


def handles(dataset: Dataset | str) -> bool:
    """Whether ``dataset`` (a set or its name) is a GraphRAG-Bench set or its pooled view (sliced
    into chunks here rather than by documents)."""
    name = dataset if isinstance(dataset, str) else dataset.name
    spec = DATASETS.get(name) or POOLED_SETS.get(name)
    return spec is not None and spec.schema == "graphragbench"


# --------------------------------------------------------------------------------------------
# Chunks and their BM25 index (per dataset, freed with it)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Corpus:
    chunks: list[Passage]
    doc_range: dict[str, tuple[int, int]]  # doc id -> [first, last + 1) chunk positions
    bm25: Any


_MEMO: weakref.WeakKeyDictionary[Dataset, _Corpus] = weakref.WeakKeyDictionary()


def corpus_chunks(dataset: Dataset) -> list[Passage]:
    """Every document cut into :data:`CHUNK_TOKENS`-piece chunks, in corpus order."""
    return _corpus(dataset).chunks


def _corpus(dataset: Dataset) -> _Corpus:
    if dataset not in _MEMO:
        chunks: list[Passage] = []
        ranges: dict[str, tuple[int, int]] = {}
        for doc in dataset.passages:
            first = len(chunks)
            for index, (a, b) in enumerate(chunk_spans(doc.text, CHUNK_TOKENS, 0)):
                meta = {"doc_id": doc.id, "start": str(a)}
                chunks.append(Passage(f"{doc.id}#c{index:04d}", doc.title, doc.text[a:b], meta))
            ranges[doc.id] = (first, len(chunks))
        bm25 = sparse.build_bm25([c.text for c in chunks], pad_empty=False) if chunks else None
        _MEMO[dataset] = _Corpus(chunks, ranges, bm25)
    return _MEMO[dataset]


def _scores(corpus: _Corpus, text: str) -> np.ndarray:
    tokens = sparse.tokenize([text])[0]
    if not tokens or corpus.bm25 is None:
        return np.zeros(len(corpus.chunks), dtype=np.float32)
    return sparse.scores(corpus.bm25, tokens)


def evidence_chunks(
    dataset: Dataset, question: Question
) -> tuple[tuple[str | None, ...], tuple[float, ...]]:
    """Per evidence statement: the id of its best chunk in the source document (None when no
    chunk shares a BM25 token with it) and the BM25 score of that match."""
    corpus = _corpus(dataset)
    first, last = corpus.doc_range.get(_source(question), (0, 0))
    ids: list[str | None] = []
    scores: list[float] = []
    for statement in question.extra.get("evidence_statements", ()):
        row = _scores(corpus, statement)[first:last]
        best = int(np.argmax(row)) if len(row) else 0
        hit = len(row) > 0 and row[best] > 0
        ids.append(corpus.chunks[first + best].id if hit else None)
        scores.append(round(float(row[best]), 4) if hit else 0.0)
    return tuple(ids), tuple(scores)


def _source(question: Question) -> str:
    return question.supporting_ids[0] if question.supporting_ids else ""


# --------------------------------------------------------------------------------------------
# Stratified question choice
# --------------------------------------------------------------------------------------------


def _type_order(kinds: Sequence[str]) -> list[str]:
    known = [t for t in QUESTION_TYPES if t in kinds]
    return known + sorted(set(kinds) - set(known))


def allocate(counts: dict[str, int], n: int) -> dict[str, int]:
    """Questions per type for a slice of ``n``: proportional to ``counts`` (largest remainder,
    ties in type order), never more than a type has, at least one per type when ``n`` allows.
    """
    order = _type_order([t for t, c in counts.items() if c > 0])
    total = sum(counts[t] for t in order)
    if n > total:
        raise ValueError(f"cannot take {n} questions from {total}")
    quota = {t: n * counts[t] / total for t in order}
    share = {t: int(quota[t]) for t in order}
    by_remainder = sorted(order, key=lambda t: (-(quota[t] - share[t]), order.index(t)))
    for t in by_remainder[: n - sum(share.values())]:
        share[t] += 1
    if n >= len(order):  # every type is represented: take from the largest share
        for t in order:
            if share[t] == 0:
                donor = max(order, key=lambda d: (share[d], -order.index(d)))
                share[donor] -= 1
                share[t] = 1
    return share


def stratified_questions(questions: Sequence[Question], n: int, seed: int) -> list[Question]:
    """``n`` questions, :func:`allocate`'s share of each type, in ``selection_key`` order."""
    ranked = sorted(questions, key=lambda q: (selection_key(q.id, seed), q.id))
    counts = Counter(q.type or "" for q in ranked)
    share = allocate(dict(counts), n)
    taken: Counter[str] = Counter()
    chosen = []
    for q in ranked:
        kind = q.type or ""
        if taken[kind] < share.get(kind, 0):
            taken[kind] += 1
            chosen.append(q)
    return chosen


# --------------------------------------------------------------------------------------------
# The slice
# --------------------------------------------------------------------------------------------


def make_graphragbench_slice(
    dataset: Dataset,
    n: int,
    seed: int = 0,
    distractors: int | None = None,
    doc_ids: Sequence[str] | None = None,
) -> Slice:
    """The slice of ``n`` questions described in the module docstring.

    ``distractors`` per question defaults to :data:`DEFAULT_DISTRACTORS`; ``doc_ids`` restricts
    the questions to those whose source document is among them and the chunks to theirs.
    """
    k = DEFAULT_DISTRACTORS if distractors is None else distractors
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if k < 0:
        raise ValueError(f"distractors must be >= 0, got {k}")
    corpus = _corpus(dataset)
    pool, scope, variant = _scope(dataset, corpus, doc_ids)
    if n > len(pool):
        where = " within the given doc_ids" if doc_ids is not None else ""
        raise ValueError(
            f"cannot slice n={n} questions from {dataset.name}: only {len(pool)} available{where}"
        )
    chosen = stratified_questions(pool, n, seed)
    matched = {q.id: evidence_chunks(dataset, q) for q in chosen}
    evidence = {q.id: tuple(dict.fromkeys(i for i in matched[q.id][0] if i)) for q in chosen}
    taken = {cid for ids in evidence.values() for cid in ids}
    position = {c.id: i for i, c in enumerate(corpus.chunks)}
    extra_ids: dict[str, tuple[str, ...]] = {}
    for q in chosen:
        picked = _distractors(corpus, scope, q.question, taken, k)
        taken.update(picked)
        extra_ids[q.id] = picked
    questions = [
        sliced_question(q, evidence[q.id], *matched[q.id], extra_ids[q.id]) for q in chosen
    ]
    groups = {q.id: evidence[q.id] + extra_ids[q.id] for q in chosen}
    passages = [corpus.chunks[i] for i in sorted(position[cid] for cid in taken)]
    if k != DEFAULT_DISTRACTORS:
        variant += f"-k{k}"
    return Slice(dataset.name, questions, passages, seed, n, SHARED, groups, variant)


def _scope(
    dataset: Dataset, corpus: _Corpus, doc_ids: Sequence[str] | None
) -> tuple[list[Question], np.ndarray, str]:
    """Eligible questions, the chunk positions distractors may come from, the slice-id suffix."""
    if doc_ids is None:
        return list(dataset.questions), np.arange(len(corpus.chunks)), ""
    unknown = [d for d in doc_ids if d not in corpus.doc_range]
    if unknown:
        raise ValueError(f"{dataset.name}: unknown doc ids {unknown}")
    chosen = set(doc_ids)
    pool = [q for q in dataset.questions if _source(q) in chosen]
    spans = [np.arange(*corpus.doc_range[d]) for d in sorted(chosen, key=corpus.doc_range.get)]
    digest = hashlib.sha1(",".join(sorted(chosen)).encode()).hexdigest()[:8]
    return pool, np.concatenate(spans), f"-d{digest}"


def _distractors(
    corpus: _Corpus, scope: np.ndarray, question: str, taken: set[str], k: int
) -> tuple[str, ...]:
    """The ``k`` chunks of ``scope`` BM25 ranks highest for ``question``, none of ``taken``."""
    if k == 0 or len(scope) == 0:
        return ()
    scores = _scores(corpus, question)[scope]
    picked: list[str] = []
    for row in np.lexsort((scope, -scores)):  # best score first, ties by corpus position
        cid = corpus.chunks[scope[row]].id
        if cid not in taken:
            picked.append(cid)
            if len(picked) == k:
                break
    return tuple(picked)


def sliced_question(
    q: Question,
    evidence: tuple[str, ...],
    per_statement: tuple[str | None, ...],
    scores: tuple[float, ...],
    distractors: tuple[str, ...],
) -> Question:
    """``q`` with its evidence chunks as supports and the match kept in ``extra``."""
    extra = {
        **q.extra,
        "source_ids": list(q.supporting_ids),
        "evidence_chunk_ids": list(per_statement),
        "evidence_match_scores": list(scores),
        "distractor_ids": list(distractors),
    }
    return Question(q.id, q.question, q.answer, q.aliases, evidence, q.type, q.dataset, extra)


def slice_summary(sl: Slice) -> dict[str, Any]:
    """What a slice holds: questions by type, chunks (evidence / distractor), word pieces."""
    evidence = {cid for q in sl.questions for cid in q.supporting_ids}
    distractors = {cid for q in sl.questions for cid in q.extra.get("distractor_ids", ())}
    statements = [len(q.extra.get("evidence_statements", ())) for q in sl.questions]
    unmatched = sum(
        1 for q in sl.questions for cid in q.extra.get("evidence_chunk_ids", ()) if cid is None
    )
    counts = Counter(q.type or "" for q in sl.questions)
    return {
        "slice_id": sl.slice_id,
        "questions": len(sl.questions),
        "by_type": {t: counts[t] for t in _type_order(list(counts))},
        "chunks": len(sl.passages),
        "evidence_chunks": len(evidence),
        "distractor_chunks": len(distractors),
        "statements": sum(statements),
        "unmatched_statements": unmatched,
        "tokens": sum(count_tokens(p.text) for p in sl.passages),
    }
