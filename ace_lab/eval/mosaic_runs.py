"""MOSAIC and its fixed policies over a few questions in process, for notebook 05.

The notebook needs two things a results file does not hold: the traces (for the exploration
view and the stopping curves) and records it can tabulate without a study on disk. The
:func:`run_methods` runs each method on each question over one graph and LLM and keeps both:
the evaluation record of every answer (:func:`ace_lab.eval.record.record`, the same keys
``ace-lab run`` writes) and the answer itself. Nothing is written; LLM responses are cached by
``ace_lab.llm`` as usual, so rerunning costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ace_lab.data import Question
from ace_lab.eval.record import record
from ace_lab.evidence import Answer, Trace
from ace_lab.registry import make_method

#: MOSAIC and the three canonical fixed policies (notebook 05's default comparison).
MOSAIC_COMPARISON = ("mosaic", "mosaic-fixed:narrow", "mosaic-fixed:medium", "mosaic-fixed:wide")
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


def with_family(methods: Sequence[str], family: str = "hierarchical") -> list[str]:
    """The method names that run on ``family``'s graph: ``@<family>`` appended unless it is
    the hierarchical default (``mosaic`` → ``mosaic@openie``); a name with a family is kept."""
    if family == "hierarchical":
        return list(methods)
    return [m if "@" in m else f"{m}@{family}" for m in methods]


def short_label(question: Question, width: int = 48) -> str:
    """``id: question`` cut to ``width`` characters (a column or legend label)."""
    text = f"{question.id}: {' '.join(question.question.split())}"
    return text if len(text) <= width else text[: width - 1] + "…"


@dataclass
class MethodRuns:
    """Every answer of every method, and their evaluation records (method × question)."""

    answers: dict[str, dict[str, Answer]] = field(default_factory=dict)  # method → id → answer
    records: list[dict[str, Any]] = field(default_factory=list)

    def traces(self, method: str, questions: Sequence[Question]) -> dict[str, Trace]:
        """``short_label`` → trace of ``method``'s answer, for the questions it answered."""
        mine = self.answers.get(method, {})
        return {short_label(q): mine[q.id].trace for q in questions if q.id in mine}


def run_methods(
    graph: Any,
    llm: Any,
    questions: Sequence[Question],
    methods: Sequence[str] = MOSAIC_COMPARISON,
    progress: Callable[[str], None] | None = print,
) -> MethodRuns:
    """Answer every question with every method (one method object per method, reused)."""
    runs = MethodRuns()
    for name in methods:
        method = make_method(name, graph, llm)
        runs.answers[name] = {}
        for question in questions:
            answer = method.answer(question.question)
            runs.answers[name][question.id] = answer
            runs.records.append(record(question, answer) | {"method": name})
        if progress is not None:
            progress(f"{name}: {len(questions)} questions answered")
    return runs
