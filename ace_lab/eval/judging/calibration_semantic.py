"""Semantic-equivalence calibration probes: the gold answer, another question's answer of the
same type, and the near misses where the judge decides what EM would not.

Built from the short-answer QA slices (:data:`~ace_lab.eval.judging.calibration_sets.QA_SLICES`;
yes/no questions left out, since the metric decides them without the judge). Every answer is
put in a sentence template (:data:`ANSWER_TEMPLATES`), so the judge, not the exact fast path,
decides. Per question: the gold answer (must be equivalent); another question's answer of the
same type (:func:`answer_kind`); a related entity, the title of one of the question's supporting
passages (:func:`related_entity`: ``Osmunda`` for "Podocarpus or Osmunda?"); and a partial
answer, the first half of the gold's words (:func:`partial_answer`: ``Sherry`` for ``Sherry
Boucher``). None of the last three may be judged equivalent.
"""

from __future__ import annotations

import random
import re

from ace_lab.data import Question
from ace_lab.data.slices import Slice
from ace_lab.eval.judging.calibration_sets import (
    QA_SLICES,
    SEED,
    Probe,
    foreign,
    questions,
    yes_no,
)
from ace_lab.eval.metrics import normalize_answer

#: Sentence templates that make a gold answer lexically inexact (so the judge, not the exact
#: fast path, decides) without changing what it says; negatives use the same templates.
ANSWER_TEMPLATES = (
    "The answer is {answer}.",
    "{answer}, according to the passages.",
    "It was {answer}.",
    "Based on the context: {answer}.",
)


def _shape(answer: str) -> bool:
    return bool(re.search(r"\d", answer))  # dates and numbers are swapped with dates and numbers


#: Question words that say what kind of thing the answer is (a person, a place, a time, ...).
WH_WORDS = ("who", "whom", "whose", "where", "when", "which", "what", "how many", "how")
#: Words dropped from the start of an answer before cutting it to a partial answer.
ARTICLES = {"the", "a", "an"}


def answer_kind(q: Question, words: int = 2) -> tuple[bool, str]:
    """The type of ``q``'s answer, as far as the data says it: whether it holds a digit (a
    date, a number) and the question's first ``words`` words from its question word on
    (``who is``, ``what nationality``, ``which film``; with ``words=1`` only ``who``, ...)."""
    text = normalize_answer(q.question)
    found = [(m.start(), w) for w in WH_WORDS for m in [re.search(rf"\b{w}\b", text)] if m]
    if not found:
        return _shape(str(q.answer)), ""
    start = min(found)[0]
    return _shape(str(q.answer)), " ".join(text[start:].split()[:words])


def _same_kind(pool: list[tuple[Slice, Question]], i: int, q: Question) -> tuple[Slice, Question]:
    """Another question whose answer is of ``q``'s kind: the closest match of
    :func:`answer_kind` (two question words, then one, then only the digit shape)."""
    gold = str(q.answer)
    for words in (2, 1):
        kind = answer_kind(q, words)
        try:
            return foreign(
                pool, i, lambda o, k=kind, w=words: answer_kind(o, w) == k and o.answer != gold
            )
        except ValueError:
            continue
    return foreign(pool, i, lambda o: _shape(str(o.answer)) == _shape(gold) and o.answer != gold)


def related_entity(sl: Slice, q: Question) -> str | None:
    """A named entity the question is about that is not its answer: the title of one of its
    supporting passages (``Osmunda`` for "Podocarpus or Osmunda?", the singer for "where was the
    singer of X born"), without a disambiguation in brackets; None when every title is the
    answer or contains it (or the other way round)."""
    titles = {p.id: p.title for p in sl.passages}
    golds = [normalize_answer(g) for g in q.answers]
    for pid in q.supporting_ids:
        title = re.sub(r"\s*\([^)]*\)$", "", titles.get(pid, "")).strip()
        name = normalize_answer(title)
        if name and not any(name in g or g in name for g in golds):
            return title
    return None


def partial_answer(q: Question) -> str | None:
    """The first half of the gold answer's words (a leading article dropped): "Sherry" for
    "Sherry Boucher", "Curry" for "Curry And Pepper"; None for a one-word answer or when the
    part is itself an accepted alias."""
    words = str(q.answer).split()
    if words and words[0].lower() in ARTICLES:
        words = words[1:]
    if len(words) < 2:
        return None
    part = " ".join(words[: len(words) // 2]).rstrip(",;:")
    if normalize_answer(part) in {normalize_answer(g) for g in q.answers}:
        return None
    return part


def semantic_probes(n: int, seed: int = SEED) -> list[Probe]:
    """``n`` gold answers in a template (must be equivalent) and, per question, the negatives
    that must not be: another question's answer of the same type (:func:`answer_kind`), and
    the near misses where a judge is most tempted, a related entity (:func:`related_entity`)
    and a partial answer (:func:`partial_answer`) where the question has one. Each probe is one
    verdict, so the stated n counts independent probes."""
    pool = [(sl, q) for sl, q in questions(QA_SLICES, seed) if q.answer and not yes_no(q)]
    rng, near_rng = random.Random(seed), random.Random(seed + 1)  # near misses: a draw of their own
    probes = []
    for i, (sl, q) in enumerate(pool[:n]):
        gold = str(q.answer)
        golds = [gold, *q.aliases]
        _, other = _same_kind(pool, i, q)
        cases = [("own", gold, True, rng), (f"swap:{other.id}", str(other.answer), False, rng)]
        near = (("related", related_entity(sl, q)), ("partial", partial_answer(q)))
        cases += [(tag, answer, False, near_rng) for tag, answer in near if answer]
        for tag, answer, expect, draw in cases:
            prediction = draw.choice(ANSWER_TEMPLATES).format(answer=answer)
            probes.append(
                Probe(
                    "semantic_equivalence",
                    f"{q.id}:{tag}",
                    {"question": q.question, "golds": golds, "prediction": prediction},
                    ((prediction, expect),),
                )
            )
    return probes
