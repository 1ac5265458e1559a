"""Evaluation slices: ``n`` questions chosen deterministically, with the passages they need.

Questions are ordered by :func:`selection_key` (a hash rank, so slices nest and never depend on
the machine). The passages a question gets depend on its set's setting: its own candidate group
(``per_question``), its supports plus BM25 hard distractors (``shared``), or every document
(``documents``).

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
``passages_per_question`` of them, so supporting passages are always present. Committed slices
depend on every detail here (BM25 tokens, stopwords, tie-breaks): change nothing lightly.
"""

from __future__ import annotations

import hashlib
import weakref
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ace_lab.data.records import (
    CORPUS,
    DOCUMENTS,
    PER_QUESTION,
    POOLED,
    SHARED,
    Dataset,
    Passage,
    Question,
)
from ace_lab.index import sparse

#: Hard distractors per question in the ``shared`` setting (other counts change the slice id).
DEFAULT_DISTRACTORS = 8

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
    """BM25 over a dataset's passages (title + text); scores one query against every passage.

    Empty passages stay zero tokens long (``pad_empty=False``), as when the committed slices
    were made, so every score, and hence every distractor and window choice, is unchanged.
    """

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.size = len(passages)
        corpus = [f"{p.title} {p.text}" for p in passages]
        self.retriever: Any = None
        try:
            with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 on a tokenless corpus
                self.retriever = sparse.build_bm25(corpus, "en", pad_empty=False)
        except ValueError:
            # bm25s cannot index a corpus without a single token (an empty corpus, or only
            # empty, one-letter or stopword passages); every score is zero for such a corpus.
            if any(sparse.tokenize(corpus, "en")):
                raise

    def scores(self, query: str) -> np.ndarray:
        tokens = sparse.tokenize([query], "en")[0]
        if not tokens or self.retriever is None:
            return np.zeros(self.size, dtype=np.float32)
        return sparse.scores(self.retriever, tokens)


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
    ``documents``, ``corpus`` and ``pooled``: every document.
    """
    if dataset.setting in (DOCUMENTS, CORPUS, POOLED):
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
        """``NAME-nN-sSEED[variant]``; a user corpus's slice is the whole corpus, id ``NAME``
        (so a graph build over it resumes when documents or questions are added)."""
        if self.setting == CORPUS:
            return self.dataset_name
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
    distractors: int | None = None,
    doc_ids: Sequence[str] | None = None,
) -> Slice:
    """``n`` questions ordered by :func:`selection_key`, with the passages their setting gives.

    For document sets ``doc_ids`` restricts the corpus to those documents and the candidate
    questions to those whose supporting documents are all among them. An *anchored* set
    (module docstring) without ``doc_ids`` takes :func:`cheapest_documents`. ``distractors``
    defaults to :data:`DEFAULT_DISTRACTORS`. GraphRAG-Bench sets are sliced into evidence and
    distractor chunks by :func:`ace_lab.data.graphragbench.make_graphragbench_slice`. A user
    corpus (setting ``corpus``) gives its whole corpus and every question, whatever ``n``; a
    pooled view (setting ``pooled``) ``n`` questions and the whole corpus
    (:mod:`ace_lab.data.pooled`).
    """
    from ace_lab.data import graphragbench  # deferred: that module builds on this one

    if dataset.setting == CORPUS:
        documents = tuple(p.id for p in dataset.passages)
        groups = {q.id: documents for q in dataset.questions}
        questions, passages = list(dataset.questions), list(dataset.passages)
        return Slice(dataset.name, questions, passages, seed, len(questions), CORPUS, groups)

    if dataset.setting == POOLED:
        from ace_lab.data.pooled import make_pooled_slice  # deferred: it builds on this module

        return make_pooled_slice(dataset, n, seed)
    if graphragbench.handles(dataset):
        return graphragbench.make_graphragbench_slice(dataset, n, seed, distractors, doc_ids)
    distractors = DEFAULT_DISTRACTORS if distractors is None else distractors
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
