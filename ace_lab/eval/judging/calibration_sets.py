"""Calibration sets for the judged metrics, derived from the committed slices (``data/slices/``).

Every set is built from files in the repository (never the full data sets), with a seeded
shuffle, so a fresh clone builds the same probes. A :class:`Probe` is one call of a metric's
judge (its inputs, JSON-ready) and the verdicts it must give: ``expected`` pairs an item (a
statement, a fact, an answer) with True ("yes": attributed, true positive, equivalent,
relevant, covered, preferred) or False.

=====================  ===========================================  =============================
metric                 positives (must be yes)                      negatives (must be no)
=====================  ===========================================  =============================
evidence_recall        gold evidence statements vs the chunks they  the same statements vs
                       were matched to (stated: see _supported)           another question's chunks
context_relevancy      a question vs its evidence chunks            vs another question's chunks
acc_statements         gold statements (normalised: lower case, no  another question's statements
                       final period) vs the same gold statements    (normalised) vs the gold ones
coverage               the gold answer's facts vs the gold answer   vs another question's answer
                       (whitespace-normalised)
faithfulness           the gold answer vs its evidence chunks       vs another question's chunks
semantic_equivalence   the gold answer in a sentence template       another question's answer
                                                                    of the same type, a related
                                                                    entity (a supporting
                                                                    passage's title) and a
                                                                    partial answer (near misses),
                                                                    in the template
pairwise_preference    own gold answer (a) vs another question's    a = the other answer, b = the
                       (b): a must win                              own gold: a must not win
=====================  ===========================================  =============================

GraphRAG-Bench metrics use both GraphRAG-Bench slices (Medical, Novel); semantic equivalence
uses the short-answer QA slices (HotpotQA, 2Wiki, MuSiQue; yes/no questions left out, since
the metric decides them without the judge; its probes, with their near misses, are built by
:mod:`ace_lab.eval.judging.calibration_semantic`). Most sets are easy on purpose: a judge that fails
them is certainly uninformative; passing is necessary, not sufficient. Semantic equivalence adds
near misses (a related entity, a partial answer), the cases where its judge decides a verdict
EM would not give, so its calibration says how far that judge's extra credit can be trusted.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from ace_lab.data import Question
from ace_lab.data.committed import read_slice_file, slice_path
from ace_lab.data.slices import Slice
from ace_lab.eval.metrics import is_yes_no, normalize_answer

#: The slices the sets come from (committed under data/slices/).
GRB_SLICES = ("graphragbench_medical-n20-s0", "graphragbench_novel-n20-s0")
QA_SLICES = (
    "hotpotqa_dev_sample200-n20-s0",
    "2wikimultihopqa_hipporag1000-n20-s0",
    "musique_dev_sample292-n20-s0",
)
#: Lexical match score (BM25) from which a statement counts as stated by its matched chunk.
MIN_MATCH = 8.0
#: Share of a positive statement's content words its chunk must contain (noisy matches out).
MIN_COVERED = 0.75
SEED = 0


@dataclass(frozen=True)
class Probe:
    """One judge call of ``metric``: its inputs and the verdict each item must get."""

    metric: str
    probe_id: str
    inputs: dict[str, Any]
    expected: tuple[tuple[str, bool], ...]


@cache
def _slice(slice_id: str) -> Slice:
    return read_slice_file(slice_path(slice_id))


def questions(slice_ids: Sequence[str], seed: int) -> list[tuple[Slice, Question]]:
    pairs = [(_slice(s), q) for s in slice_ids for q in _slice(s).questions]
    random.Random(seed).shuffle(pairs)
    return pairs


def _texts(sl: Slice, ids: Sequence[str]) -> list[str]:
    passages = {p.id: p.text for p in sl.passages}
    return [passages[i] for i in dict.fromkeys(ids) if i in passages]


def _covered(statement: str, chunk: str) -> float:
    """Share of the statement's content words (over 3 letters) that occur in the chunk."""
    words = [w for w in normalize_answer(statement).split() if len(w) > 3]
    text = normalize_answer(chunk)
    return sum(w in text for w in words) / len(words) if words else 0.0


def _supported(sl: Slice, q: Question) -> list[tuple[str, str]]:
    """(statement, chunk id) of ``q``'s evidence statements that their matched chunk states
    (match score >= :data:`MIN_MATCH` and :data:`MIN_COVERED` of the content words), best first."""
    extra = q.extra
    rows = zip(
        extra.get("evidence_statements", ()),
        extra.get("evidence_chunk_ids", ()),
        extra.get("evidence_match_scores", ()),
        strict=False,
    )
    passages = {p.id: p.text for p in sl.passages}
    good = [
        (score, s, c)
        for s, c, score in rows
        if c in passages and score >= MIN_MATCH and _covered(s, passages[c]) >= MIN_COVERED
    ]
    return [(s, c) for _, s, c in sorted(good, key=lambda r: -r[0])]


def _chunks(q: Question) -> list[str]:
    return [c for c in q.extra.get("evidence_chunk_ids", ()) if c]


def foreign(
    pool: list[tuple[Slice, Question]], i: int, ok: Callable[[Question], bool]
) -> tuple[Slice, Question]:
    """The next question after ``i`` (cyclically) that ``ok`` accepts: another question's data."""
    for step in range(1, len(pool)):
        sl, q = pool[(i + step) % len(pool)]
        if ok(q):
            return sl, q
    raise ValueError("no other question fits a negative probe")


def _unrelated(q: Question) -> Callable[[Question], bool]:
    """Whether another question is a fair negative for ``q``: same data set (a harder negative
    than another domain), another question, no evidence chunk in common."""
    own = set(_chunks(q))
    return lambda o: o.dataset == q.dataset and o.id != q.id and not own & set(_chunks(o))


def normalised(statement: str) -> str:
    """A statement as a normalised variant: lower-case first letter, no final period."""
    text = statement.strip().rstrip(".")
    return text[:1].lower() + text[1:]


def evidence_recall_probes(n: int, seed: int = SEED, per_probe: int = 2) -> list[Probe]:
    """``n`` positive and ``n`` negative statement verdicts (module doc)."""
    pool = questions(GRB_SLICES, seed)
    probes: list[Probe] = []
    count = 0
    for i, (sl, q) in enumerate(pool):
        if count >= n:
            break
        chosen = _supported(sl, q)[: min(per_probe, n - count)]
        if not chosen:
            continue
        statements = [s for s, _ in chosen]
        other_sl, other = foreign(pool, i, _unrelated(q))
        for tag, texts, expect in (
            ("own", _texts(sl, [c for _, c in chosen]), True),
            ("foreign", _texts(other_sl, _chunks(other)[:2]), False),
        ):
            probes.append(
                Probe(
                    "evidence_recall",
                    f"{q.id}:{tag}",
                    {"question": q.question, "contexts": texts, "evidence": statements},
                    tuple((s, expect) for s in statements),
                )
            )
        count += len(chosen)
    return probes


def context_relevancy_probes(n: int, seed: int = SEED) -> list[Probe]:
    """``n`` questions against their evidence chunks and ``n`` against another's."""
    pool = [(sl, q) for sl, q in questions(GRB_SLICES, seed) if _supported(sl, q)]
    probes = []
    for i, (sl, q) in enumerate(pool[:n]):
        own = [c for _, c in _supported(sl, q)][:2]
        other_sl, other = foreign(pool, i, _unrelated(q))
        probes.append(
            Probe(
                "context_relevancy",
                f"{q.id}:own",
                {"question": q.question, "contexts": _texts(sl, own)},
                ((q.question, True),),
            )
        )
        probes.append(
            Probe(
                "context_relevancy",
                f"{q.id}:foreign:{other.id}",
                {"question": q.question, "contexts": _texts(other_sl, _chunks(other)[:2])},
                ((q.question, False),),
            )
        )
    return probes


def acc_statements_probes(n: int, seed: int = SEED, per_probe: int = 2) -> list[Probe]:
    """Answer statements that are the gold statements (normalised) and as many of another
    question's, classified against the gold statements: ``n`` of each (module doc)."""
    pool = [(sl, q) for sl, q in questions(GRB_SLICES, seed) if q.extra.get("evidence_statements")]
    rng = random.Random(seed)
    probes = []
    count = 0
    for i, (_, q) in enumerate(pool):
        if count >= n:
            break
        k = min(per_probe, n - count)
        gold = list(q.extra["evidence_statements"])[:k]
        _, other = foreign(pool, i, _unrelated(q))
        theirs = list(other.extra["evidence_statements"])[:k]
        # both sides normalised alike, so case or a final period cannot tell them apart
        answer = [(normalised(s), True) for s in gold] + [(normalised(s), False) for s in theirs]
        rng.shuffle(answer)
        probes.append(
            Probe(
                "acc_statements",
                f"{q.id}:{other.id}",
                {
                    "question": q.question,
                    "answer_statements": [s for s, _ in answer],
                    "truth_statements": gold,
                },
                tuple(answer),
            )
        )
        count += len(gold)
    return probes


def coverage_probes(n: int, seed: int = SEED) -> list[Probe]:
    """``n`` questions' gold answers covering themselves and ``n`` another question's answer."""
    pool = [(sl, q) for sl, q in questions(GRB_SLICES, seed) if (q.answer or "").strip()]
    probes = []
    for i, (_, q) in enumerate(pool[:n]):
        _, other = foreign(pool, i, _unrelated(q))
        gold = str(q.answer)
        for tag, answer, expect in (
            ("own", " ".join(gold.split()), True),
            (f"foreign:{other.id}", str(other.answer), False),
        ):
            probes.append(
                Probe(
                    "coverage",
                    f"{q.id}:{tag}",
                    {"question": q.question, "answer": answer, "ground_truth": gold},
                    (("*", expect),),  # every fact the judge lists must get this verdict
                )
            )
    return probes


def faithfulness_probes(n: int, seed: int = SEED) -> list[Probe]:
    """``n`` gold answers against their evidence chunks and ``n`` against another's."""
    pool = [(sl, q) for sl, q in questions(GRB_SLICES, seed) if q.answer and _supported(sl, q)]
    probes = []
    for i, (sl, q) in enumerate(pool[:n]):
        own = _chunks(q)[:3]
        other_sl, other = foreign(pool, i, _unrelated(q))
        for tag, texts, expect in (
            ("own", _texts(sl, own), True),
            (f"foreign:{other.id}", _texts(other_sl, _chunks(other)[:3]), False),
        ):
            probes.append(
                Probe(
                    "faithfulness",
                    f"{q.id}:{tag}",
                    {"question": q.question, "answer": str(q.answer), "contexts": texts},
                    (("*", expect),),
                )
            )
    return probes


def yes_no(q: Question) -> bool:
    return is_yes_no([str(q.answer), *q.aliases])


def pairwise_probes(n: int, seed: int = SEED) -> list[Probe]:
    """``n`` pairs where a (own gold) must win and ``n`` where a (another's answer) must not."""
    long = [
        (sl, q) for sl, q in questions(GRB_SLICES, seed) if len(str(q.answer or "").split()) >= 25
    ]
    probes = []
    for i, (_, q) in enumerate(long[: 2 * n]):
        _, other = foreign(long, i, _unrelated(q))
        own, theirs = str(q.answer), str(other.answer)
        expect = i % 2 == 0  # alternate, so "a" is the own answer in half the pairs
        a, b = (own, theirs) if expect else (theirs, own)
        probes.append(
            Probe(
                "pairwise_preference",
                f"{q.id}:{other.id}:{'own' if expect else 'foreign'}_first",
                {"query": q.question, "a": a, "b": b},
                ((q.question, expect),),
            )
        )
    return probes
