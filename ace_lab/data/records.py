"""The typed records every benchmark set is normalised into: passages, questions, a loaded set.

The rest of ace_lab never sees a set's own field names, only :class:`Passage`,
:class:`Question` and :class:`Dataset`. The *setting* constants say how a set is evaluated
(see :mod:`ace_lab.data.registry`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

#: Each question comes with its own small group of candidate passages (HotpotQA, MuSiQue).
PER_QUESTION = "per_question"
#: One corpus shared by all questions; slices add hard distractors (2Wiki, the toy corpus).
SHARED = "shared"
#: Whole documents chunked and indexed as one corpus (GraphRAG-Bench, UltraDomain, ...).
DOCUMENTS = "documents"
#: A user's own corpus (:mod:`ace_lab.data.corpora`): whole documents, and a slice is all of it.
CORPUS = "corpus"
#: One corpus pooled over many questions, every question's passages among all the others
#: (HippoRAG's 100-question samples; GraphRAG-Bench on its whole document): a slice is ``n``
#: questions and the whole corpus (:mod:`ace_lab.data.pooled`).
POOLED = "pooled"


class DataError(ValueError):
    """A benchmark file is missing or unreadable, is not valid JSON or Unicode, nests too deeply,
    or has a bad record; the message names the file and, where there is one, the record."""


class UnknownDataset(DataError, KeyError):
    """A name that is neither a benchmark set nor a registered user corpus. Also a ``KeyError``
    (what an unknown name raised before user corpora), printed as its plain one-line message."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


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
