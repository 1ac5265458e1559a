"""Pooled slices: ``n`` questions searched against the set's whole corpus.

The other settings give each question a small corpus of its own (HotpotQA's 10 candidate
passages, MuSiQue's 20, GraphRAG-Bench's evidence chunks plus two distractors), so plain passage
retrieval finds almost everything. HippoRAG, ACE and MOSAIC evaluate on corpora *pooled* over
many questions, where a question's passages are found among a thousand others. A pooled view of
a set (:data:`~ace_lab.data.registry.POOLED_SETS`, named ``<set>_pooled``) slices that way:

* **HippoRAG's samples** (``hotpotqa_train_sample100_hipporag``: 100 questions, 994 passages;
  ``musique_train_sample100_hipporag``: 100 questions, 1,890 passages): the first ``n``
  questions in :func:`~ace_lab.data.slices.selection_key` order, and every passage of the
  corpus, whatever ``n``; supporting passages are the set's own.
* **GraphRAG-Bench** (Medical: one 1.05 M-character document): the whole document cut into the
  same :data:`~ace_lab.data.graphragbench.CHUNK_TOKENS`-piece chunks as its other slices,
  ``n`` questions stratified by question type
  (:func:`~ace_lab.data.graphragbench.stratified_questions`), each question's supporting ids
  its evidence chunks (:func:`~ace_lab.data.graphragbench.evidence_chunks`), no distractors:
  every other chunk of the document is one.

Every question's passages are the whole corpus (``question_passage_ids`` maps each to the same
tuple; a committed file stores none, :mod:`ace_lab.data.committed`). Slices of HippoRAG's
samples nest (the first ``n`` questions of a larger one); GraphRAG-Bench's stratified ones do not.
"""

from __future__ import annotations

from ace_lab.data import graphragbench
from ace_lab.data.records import POOLED, Dataset, Passage, Question
from ace_lab.data.slices import Slice, selection_key


def make_pooled_slice(dataset: Dataset, n: int, seed: int = 0) -> Slice:
    """The pooled slice of ``n`` questions of ``dataset`` (module docstring)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if n > len(dataset.questions):
        raise ValueError(
            f"cannot slice n={n} questions from {dataset.name}: "
            f"only {len(dataset.questions)} available"
        )
    if graphragbench.handles(dataset):
        questions, passages = _graphragbench_questions(dataset, n, seed)
    else:
        ranked = sorted(dataset.questions, key=lambda q: (selection_key(q.id, seed), q.id))
        questions, passages = ranked[:n], list(dataset.passages)
    return pooled_slice(dataset.name, questions, passages, seed, n)


def pooled_slice(
    name: str, questions: list[Question], passages: list[Passage], seed: int, n: int
) -> Slice:
    """A :class:`Slice` whose every question has the whole corpus as its passages."""
    everything = tuple(p.id for p in passages)
    groups = {q.id: everything for q in questions}
    return Slice(name, questions, passages, seed, n, POOLED, groups)


def _graphragbench_questions(
    dataset: Dataset, n: int, seed: int
) -> tuple[list[Question], list[Passage]]:
    """Stratified questions with their evidence chunks as supports, and every chunk."""
    chosen = graphragbench.stratified_questions(dataset.questions, n, seed)
    questions = []
    for q in chosen:
        per_statement, scores = graphragbench.evidence_chunks(dataset, q)
        evidence = tuple(dict.fromkeys(i for i in per_statement if i))
        questions.append(graphragbench.sliced_question(q, evidence, per_statement, scores, ()))
    return questions, list(graphragbench.corpus_chunks(dataset))
