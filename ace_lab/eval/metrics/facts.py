"""Supporting facts: the facts a multi-hop question rests on, and the share a context holds.

:func:`question_facts` reads them from a question's ``extra`` — HotpotQA supporting sentences,
2Wiki evidence triples, MuSiQue decomposition hops — as :class:`Fact`s;
:func:`supporting_fact_recall` is the share found in a context (``docs/evaluation.md``,
"Evidence metrics"). Terms are matched as :func:`~ace_lab.eval.metrics.answers.answer_in_context`
matches answers: SQuAD-normalised text padded with spaces, so whole words only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ace_lab.eval.metrics.answers import normalize_answer


def _padded(text: str) -> str:
    return f" {normalize_answer(text)} "


def _occurs(term: str, padded_context: str) -> bool:
    """Whether ``term`` occurs in the padded normalised context as whole words (an empty
    normalised term matches nothing)."""
    norm = normalize_answer(term)
    return bool(norm) and f" {norm} " in padded_context


@dataclass(frozen=True)
class Fact:
    """One fact a question rests on. Found when every one of ``terms`` occurs in the context as
    whole normalised words, or when ``passage_id`` (its passage, whole) is among the context's
    ids; a fact with neither can never be found."""

    terms: tuple[str, ...] = ()
    passage_id: str | None = None

    def found(self, padded_context: str, context_ids: frozenset[str]) -> bool:
        if self.passage_id is not None and self.passage_id in context_ids:
            return True
        return bool(self.terms) and all(_occurs(t, padded_context) for t in self.terms)


#: Words that end in "." without ending a sentence (titles, months, Latin, company forms).
_ABBREVIATION_WORDS = (
    "mr mrs ms dr st jr sr prof rev gen col lt sgt capt maj gov sen rep pres hon mt ft no nos "
    "vs v co corp inc ltd bros dept univ est approx ca c op vol pp ed eds etc "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_ABBREVIATIONS = frozenset(_ABBREVIATION_WORDS.split())
#: A sentence end (. ! ?, closing quotes or brackets), space, then what starts a sentence.
_BOUNDARY = re.compile(r"""(?<=[.!?])["'”’)\]]*(?P<space>\s+)(?=["'“‘(\[]?[A-Z0-9])""")
_LAST_WORD = re.compile(r"(\S+)$")


def _is_abbreviation(word: str) -> bool:
    """A word ending in "." that rarely ends a sentence: an initial ("J."), dotted initials
    ("U.S.", "E.J.H."), or a title, month or Latin abbreviation ("Dr.", "Jan.", "etc.")."""
    if not word.endswith("."):
        return False
    core = word.rstrip(".").lstrip("(\"'“‘[").lower()
    return (
        (len(core) == 1 and core.isalpha())
        or core in _ABBREVIATIONS
        or re.fullmatch(r"(?:[a-z]\.)+[a-z]", core) is not None
    )


def hotpot_sentences(text: str) -> list[str]:
    """A HotpotQA paragraph's sentences, recovered from its joined text.

    The committed HotpotQA passages keep their sentences joined as they were (each sentence
    after the first brings its own leading space, ``ace_lab.data.normalise``), and neither the
    slices nor ``/work/shared/data`` keep the sentence lists, so they are cut again: after
    ".", "!" or "?" (and any closing quotes or brackets), at whitespace followed by a capital
    letter, a digit or an opening quote or bracket, unless the word before is an initial,
    dotted initials or a common abbreviation. How exact: on the 140 questions of
    ``hotpotqa_dev_sample200`` 327 of the 329 supporting facts name a sentence within range;
    the two that do not show upstream cuts this rule does not make ("P.O. The", "Live! is"),
    so in such a passage later sentence indices shift by one. The index only matters when a
    fact's passage is not whole in the context (:class:`Fact`).
    """
    sentences, start = [], 0
    for boundary in _BOUNDARY.finditer(text):
        end = boundary.start("space")  # the sentence keeps its closing quotes or brackets
        word = _LAST_WORD.search(text[start:end])
        if word is not None and _is_abbreviation(word.group(1).rstrip("\"'”’)]")):
            continue
        sentences.append(text[start:end].strip())
        start = end
    sentences.append(text[start:].strip())
    return [s for s in sentences if s]


def _hotpot_facts(
    facts: Sequence[Any],
    extra: Mapping[str, Any],
    supporting_ids: Sequence[str],
    passages: Mapping[str, Any],
) -> list[Fact] | None:
    """HotpotQA ``supporting_facts`` ``[[title, sentence index]]`` as :class:`Fact`s: the
    sentence's passage (the question's supporting passage with that title) and, where the
    passage text is known, the sentence itself. None when a title matches no passage."""
    titles = extra.get("supporting_titles")
    by_title = {
        getattr(passages[pid], "title", None): pid for pid in supporting_ids if pid in passages
    }
    if isinstance(titles, list | tuple) and len(titles) == len(supporting_ids):
        by_title = dict(zip(titles, supporting_ids, strict=True)) | by_title
    found = []
    for fact in facts:
        if not isinstance(fact, list | tuple) or len(fact) != 2 or fact[0] not in by_title:
            return None
        pid = by_title[fact[0]]
        passage = passages.get(pid)
        sentences = hotpot_sentences(passage.text) if passage is not None else []
        index = fact[1]
        sentence = sentences[index] if isinstance(index, int) and index < len(sentences) else None
        found.append(Fact((sentence,) if sentence else (), pid))
    return found


def _musique_facts(hops: Sequence[Any]) -> list[Fact] | None:
    """MuSiQue ``question_decomposition`` hops as :class:`Fact`s: (subject, answer) for a hop
    written ``subject >> relation`` (``#k`` in the subject is hop k's answer), the answer
    alone for a hop written as a question."""
    answers = [str(h.get("answer") or "") for h in hops if isinstance(h, Mapping)]
    if len(answers) != len(hops):
        return None
    found = []
    for hop, answer in zip(hops, answers, strict=True):
        question = str(hop.get("question") or "")
        if ">>" not in question:
            found.append(Fact((answer,)))
            continue
        subject = question.split(">>", 1)[0]
        subject = re.sub(
            r"#(\d+)",
            lambda m: answers[int(m.group(1)) - 1] if 0 < int(m.group(1)) <= len(answers) else "",
            subject,
        )
        found.append(Fact((subject.strip(), answer)))
    return found


def question_facts(
    extra: Mapping[str, Any],
    supporting_ids: Sequence[str] = (),
    passages: Mapping[str, Any] | None = None,
) -> list[Fact] | None:
    """The facts of a question from its ``extra`` (None where its data set has none).

    HotpotQA ``supporting_facts``: a sentence, found when its passage is whole in the context
    or its normalised text occurs there (``passages``, id → an object with ``title`` and
    ``text``, supplies the sentence; without it only the passage counts). 2Wiki
    ``evidence_triples`` ``[subject, relation, object]``: found when subject and object both
    occur. MuSiQue ``question_decomposition``: see :func:`_musique_facts`.
    """
    passages = passages or {}
    if isinstance(facts := extra.get("supporting_facts"), list | tuple) and facts:
        return _hotpot_facts(facts, extra, supporting_ids, passages)
    if isinstance(triples := extra.get("evidence_triples"), list | tuple) and triples:
        if not all(isinstance(t, list | tuple) and len(t) == 3 for t in triples):
            return None
        return [Fact((str(t[0]), str(t[2]))) for t in triples]
    if isinstance(hops := extra.get("question_decomposition"), list | tuple) and hops:
        return _musique_facts(hops)
    return None


def supporting_fact_recall(
    facts: Sequence[Fact] | None, text: str, context_ids: Iterable[str] = ()
) -> float | None:
    """Found facts / facts in the context ``text`` with evidence ids ``context_ids``; None
    without facts."""
    if not facts:
        return None
    padded, ids = _padded(text), frozenset(context_ids)
    return sum(f.found(padded, ids) for f in facts) / len(facts)
