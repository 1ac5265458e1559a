"""MOSAIC and its fixed policies over a slice, for notebook 05.

The notebook tabulates records (policies, connector use, effort against Fixed Wide) and draws
traces (the exploration view, the stopping curves); a results file holds only the records.
:func:`run_methods` runs each method on each question over one graph and LLM and keeps both:
the evaluation record of every answer (:func:`ace_lab.eval.studies.record.record`, the same columns
``ace-lab run`` writes) and the answer itself. :func:`slice_runs` reads the records a study
already holds and answers only the rest, plus the few questions whose traces are drawn.
Nothing is written; LLM responses are cached by ``ace_lab.llm`` as usual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ace_lab.config import Settings
from ace_lab.data import Question
from ace_lab.eval.studies.record import record
from ace_lab.eval.studies.study import load_results, read_manifest, safe_name, study_dir
from ace_lab.evidence import Answer, Trace
from ace_lab.registry import make_method, parse

#: MOSAIC and the three canonical fixed policies (notebook 05's default comparison).
MOSAIC_COMPARISON = ("mosaic", "mosaic-fixed:narrow", "mosaic-fixed:medium", "mosaic-fixed:wide")


def with_family(methods: Sequence[str], family: str = "hierarchical") -> list[str]:
    """The method names that run on ``family``'s graph: ``@<family>`` appended unless it is
    the hierarchical default (``mosaic`` → ``mosaic@openie``); a name with a family is kept."""
    if family == "hierarchical":
        return list(methods)
    names = [parse(m) for m in methods]
    return [str(n if n.family else replace(n, family=family)) for n in names]


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


def study_records(
    study: str,
    method: str,
    questions: Sequence[Question],
    settings: Settings | None = None,
    models: Mapping[str, str] | None = None,
) -> list[dict[str, Any]] | None:
    """``method``'s records in ``study`` for ``questions``, in their order; None unless the
    study holds one for every question (a partial slice would change the means) and its
    manifest entry for ``method`` has every value of ``models`` (e.g. ``{"model":
    "qwen1.5b", "graph_model": "qwen1.5b"}``: records of another model are not this run)."""
    if not study or not (study_dir(study, settings) / f"{safe_name(method)}.jsonl").is_file():
        return None
    if models:
        entry = read_manifest(study, settings).get("methods", {}).get(method, {})
        if any(entry.get(key) != value for key, value in models.items()):
            return None
    df = load_results(study, settings, [method])
    by_id = {r["id"]: r for r in df.to_dict("records")}
    if any(q.id not in by_id for q in questions):
        return None
    return [by_id[q.id] for q in questions]


def slice_runs(
    graph: Any,
    llm: Any,
    questions: Sequence[Question],
    methods: Sequence[str] = MOSAIC_COMPARISON,
    *,
    study: str = "",
    settings: Settings | None = None,
    models: Mapping[str, str] | None = None,
    traced: Sequence[str] = (),
    picked: Sequence[Question] = (),
    progress: Callable[[str], None] | None = print,
) -> MethodRuns:
    """Every method's records over ``questions`` at the cost of what is missing.

    A method whose records ``study`` holds for the whole slice (what ``ace-lab run``
    committed), made with ``models`` (:func:`study_records`), is read from there; any other
    answers the slice here. Then each ``traced`` method answers those of the ``picked``
    questions it has no answer for in memory, for their traces only (their records are the
    study's). ``study=""`` answers everything.
    """
    runs = MethodRuns()
    say = progress or (lambda _message: None)
    for name in methods:
        stored = study_records(study, name, questions, settings, models)
        if stored is None:
            live = run_methods(graph, llm, questions, [name], progress)
            runs.answers[name], runs.records = live.answers[name], runs.records + live.records
        else:
            runs.records.extend(r | {"method": name} for r in stored)
            say(f"{name}: {len(stored)} records read from {study}")
    for name in traced:
        answered = runs.answers.setdefault(name, {})
        missing = [q for q in picked if q.id not in answered]
        if missing:
            live = run_methods(graph, llm, missing, [name], None)
            answered.update(live.answers[name])
            say(f"{name}: {len(missing)} questions answered here for their traces")
    return runs
