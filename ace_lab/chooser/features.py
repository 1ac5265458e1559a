"""Features of a question computable before any method runs: its text alone.

:func:`question_form` sorts a question into one of :data:`FORMS` by its wording (the first rule
that matches, in the order listed); the chooser keeps one expected accuracy and cost per method
and form. :func:`question_features` adds a few counts, shown in the choice's trace step.
"""

from __future__ import annotations

import re

#: Question forms, in the order their rules are tried.
FORMS: tuple[str, ...] = (
    "yes_no",
    "comparison",
    "numeric",
    "explain",
    "who",
    "what_where",
    "other",
)
_AUXILIARIES = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "has",
        "have",
        "had",
        "will",
        "would",
        "should",
        "shall",
        "may",
        "might",
    ]
)
_NUMERIC = re.compile(r"\b(when|what year|which year|how many|how much|how long|how old)\b")
_EXPLAIN = re.compile(r"\b(why|how|describe|explain|summari[sz]e|discuss|role|impact)\b")
_WORD = re.compile(r"[\w'-]+")


def question_form(question: str) -> str:
    """The question's form (one of :data:`FORMS`) from its wording."""
    words = _WORD.findall(question.lower())
    if not words:
        return "other"
    text = " ".join(words)
    if words[0] in _AUXILIARIES:
        return "yes_no"
    if "or" in words:  # two alternatives to weigh: "X or Y?"
        return "comparison"
    if _NUMERIC.search(text):
        return "numeric"
    if _EXPLAIN.search(text):
        return "explain"
    if {"who", "whom", "whose"} & set(words):
        return "who"
    if {"what", "which", "where"} & set(words):
        return "what_where"
    return "other"


def question_features(question: str) -> dict[str, str | int]:
    """The form and a few counts of ``question`` (what the choice's trace step shows)."""
    words = _WORD.findall(question)
    return {
        "form": question_form(question),
        "words": len(words),
        "capitalised": sum(w[:1].isupper() for w in words[1:]),
        "numbers": sum(any(c.isdigit() for c in w) for w in words),
    }
