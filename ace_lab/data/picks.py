"""Picking questions of a slice by id or by position, as notebook parameters name them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ace_lab.data.records import Question

#: Questions the side-by-side table shows when none are named.
DEFAULT_PICKS = 3


def pick_questions(questions: Sequence[Question], wanted: Sequence[Any] = ()) -> list[Question]:
    """The questions named in ``wanted`` — ids, or positions in ``questions`` (ints or digit
    strings) — in that order, each once; the first :data:`DEFAULT_PICKS` when empty."""
    if not wanted:
        return list(questions[:DEFAULT_PICKS])
    by_id = {q.id: q for q in questions}
    out: dict[str, Question] = {}
    for item in wanted:
        if isinstance(item, str) and item in by_id:
            question = by_id[item]
        elif isinstance(item, int) or (isinstance(item, str) and item.isdigit()):
            if not 0 <= int(item) < len(questions):
                raise IndexError(f"question index {item} outside 0..{len(questions) - 1}")
            question = questions[int(item)]
        else:
            known = ", ".join(q.id for q in questions[:10])
            raise KeyError(f"question {item!r} is not in the slice; e.g. {known}")
        out.setdefault(question.id, question)
    return list(out.values())
