"""Choosing a method per question: question features, the fitted chooser, cross-validation.

``auto`` (``ace_lab.chooser.specs``) reads a committed :class:`ChooserModel`
(``results/chooser/model.json``), buckets the question by :func:`question_form` (text only: no
retrieval and no LLM call before the choice), and runs the method with the highest expected
accuracy minus ``λ`` × expected input tokens. :mod:`.crossval` scores the same rule
leave-one-question-out and leave-one-slice-out on committed per-question records.
"""

from __future__ import annotations

from ace_lab.chooser.features import FORMS, question_features, question_form
from ace_lab.chooser.model import ALL, ChooserModel, fit, lam_label, parse_lam

__all__ = [
    "ALL",
    "FORMS",
    "ChooserModel",
    "fit",
    "lam_label",
    "parse_lam",
    "question_features",
    "question_form",
]
