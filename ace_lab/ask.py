"""One question through one method, with a readable account of every stage (``ace-lab ask``).

The question is one of the slice's (by id, or the slice's first) or free text: any question a
person types, about a benchmark slice or a user corpus, answered without a gold answer.

This module is also the README's Python entry: with :func:`add_corpus` and :func:`build_graph`
(re-exported here) a corpus is added, built, asked (:func:`ask`) and two methods compared
(:func:`ask_table`) from one import.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ace_lab.config import DEFAULT_TIER, Settings, load_settings
from ace_lab.data import DataError, Question, Slice, default_task, load_slice, user_questions
from ace_lab.data.corpora import add_corpus
from ace_lab.evidence import CONTEXT_BUDGET_TOKENS, Answer, Trace
from ace_lab.graph.build import build_graph
from ace_lab.llm import LLM, get_llm
from ace_lab.methods.generate import Task
from ace_lab.methods.names import record_spelling
from ace_lab.registry import graph_family, make_method
from ace_lab.retrieval import RetrievalGraph

#: add_corpus and build_graph are here for the README's Python entry (one import).
__all__ = [
    "Asked",
    "Session",
    "add_corpus",
    "ask",
    "ask_table",
    "build_graph",
    "corpus_tokens",
    "cost_line",
    "find_question",
    "format_trace",
    "open_session",
    "pick_question",
    "score_line",
    "slice_of",
    "text_question",
    "whole_corpus_warning",
]


@dataclass
class Asked:
    question: Question
    answer: Answer


def slice_of(dataset: str, n: int, seed: int = 0, data_dir: Path | None = None) -> Slice:
    """The ``n``-question slice of ``dataset`` (a user corpus: the whole corpus, ``n`` ignored);
    a :class:`DataError` when ``n`` is out of range or the set is not on this machine."""
    try:
        return load_slice(dataset, n, seed=seed, data_dir=data_dir)
    except ValueError as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(str(exc)) from None


def find_question(
    dataset: str, n: int, question_id: str | None, seed: int = 0, data_dir: Path | None = None
) -> Question:
    """A question of the slice by id (or the slice's first one); unknown ids list the valid ones."""
    questions = slice_of(dataset, n, seed, data_dir).questions
    if question_id is None:
        return questions[0]
    for question in questions:
        if question.id == question_id:
            return question
    known = ", ".join(q.id for q in questions[:10])
    raise DataError(f"question {question_id!r} is not in the {dataset} n={n} slice; e.g. {known}")


def text_question(text: str, dataset: str) -> Question:
    """A free-text question without a gold answer. Its id is stable by content (``q-`` and a
    SHA-1 prefix of the whitespace-normalised text, as a questions file's question without an id
    gets), so asking it again replays from the cache."""
    text = " ".join(text.split())
    if not text:
        raise ValueError("the question is empty")
    return Question(user_questions.question_id(text), text, None, (), (), None, dataset)


def pick_question(
    dataset: str,
    n: int,
    question_id: str | None = None,
    text: str | None = None,
    seed: int = 0,
    data_dir: Path | None = None,
) -> Question:
    """The free-text question ``text``, or the slice question ``question_id`` (the first when
    both are None); giving both is a ``ValueError``. The slice is checked either way (the graph
    is the slice's)."""
    if text is not None and question_id is not None:
        raise ValueError("give a question id or a free-text question, not both")
    if text is None:
        return find_question(dataset, n, question_id, seed, data_dir)
    asked = text_question(text, dataset)
    # The same text as one of the slice's questions is that question, so its gold answer shows.
    questions = slice_of(dataset, n, seed, data_dir).questions
    return next((q for q in questions if q.question == asked.question), asked)


def ask(
    method: str,
    dataset: str,
    n: int,
    question_id: str | None = None,
    *,
    text: str | None = None,
    seed: int = 0,
    graph_model: str = DEFAULT_TIER,
    settings: Settings | None = None,
    llm: LLM | None = None,
    task: Task | None = None,
) -> Asked:
    """Answer one question with ``method``: free ``text``, or the slice question ``question_id``
    (``task``: the data set's by default, as ``ace-lab run`` answers it, so an answered question
    replays from the cache)."""
    settings = settings or load_settings()
    method = record_spelling(method)  # mosaic/ace-full answers as mosaic>ace-full
    question = pick_question(dataset, n, question_id, text, seed, settings.data_dir)
    graph = RetrievalGraph.load(
        dataset, n, graph_family(method), model=graph_model, seed=seed, settings=settings
    )
    runner = make_method(method, graph, llm or get_llm(settings))
    return Asked(question, runner.answer(question.question, task or default_task(dataset)))


def ask_table(
    methods: list[str],
    dataset: str,
    texts: list[str],
    *,
    n: int | None = None,
    graph_model: str = DEFAULT_TIER,
    settings: Settings | None = None,
    llm: LLM | None = None,
) -> Any:
    """Every method's answer to every free-text question (a pandas frame): the gold answer where
    the data set has a question with the same text, the cost, and ``elapsed_s``, the seconds
    since the call began when each answer was ready (the first one is the time to first answer)."""
    import pandas as pd

    settings = settings or load_settings()
    llm = llm or get_llm(settings)
    methods = [record_spelling(method) for method in methods]
    gold = {q.question: " | ".join(q.answers) for q in slice_of(dataset, n).questions}
    graphs: dict[str, RetrievalGraph] = {}
    rows, start = [], time.perf_counter()
    for text in texts:
        for method in methods:
            family = graph_family(method)
            if family not in graphs:
                graphs[family] = RetrievalGraph.load(
                    dataset, n, family, model=graph_model, settings=settings
                )
            answer = make_method(method, graphs[family], llm).answer(text, default_task(dataset))
            cost = answer.trace.summary()
            rows.append(
                {
                    "question": text,
                    "method": method,
                    "answer": answer.text,
                    "gold": gold.get(text, ""),
                    "input_tokens": cost["response_prompt_tokens"],
                    "output_tokens": cost["response_completion_tokens"],
                    "model_calls": cost["model_calls"],
                    "elapsed_s": round(time.perf_counter() - start, 1),
                }
            )
    return pd.DataFrame(rows)


@dataclass
class Session:
    """What a notebook needs to ask questions of one graph: settings, graph, LLM, a question."""

    settings: Settings
    graph: RetrievalGraph
    llm: LLM
    question: Question


def open_session(
    dataset: str,
    n: int,
    *,
    family: str = "hierarchical",
    question_id: str | None = None,
    text: str | None = None,
    seed: int = 0,
    tier: str | None = None,
    graph_model: str = DEFAULT_TIER,
    graphs_dir: str | Path | None = None,
    store: str | None = None,
) -> Session:
    """Load the ``family`` graph of a slice, the answering LLM and one question: free ``text``,
    or the slice's ``question_id`` (its first when both are empty). ``store``: where Cypher
    runs (``embedded``, ``falkordb://…``, ``bolt://…``; empty: the ``graph.store`` setting)."""
    settings = load_settings(**({"tier": tier} if tier else {}))
    if graphs_dir:
        settings = replace(settings, graphs_dir=Path(graphs_dir))
    if store:
        settings = replace(settings, graph=replace(settings.graph, store=store))
    graph = RetrievalGraph.load(dataset, n, family, model=graph_model, seed=seed, settings=settings)
    question = pick_question(dataset, n, question_id or None, text or None, seed, settings.data_dir)
    return Session(settings, graph, get_llm(settings), question)


def score_line(question: Question, answer: Answer) -> str | None:
    """``EM 1  F1 0.67`` of ``answer`` against ``question``'s gold answers (None without one),
    scored as ``ace-lab run`` scores a record."""
    from ace_lab.eval.metrics.answers import exact_match, f1_score

    if not question.answers:
        return None
    golds = list(question.answers)
    return f"EM {exact_match(answer.text, golds):.0f}  F1 {f1_score(answer.text, golds):.2f}"


def corpus_tokens(dataset: str, n: int | None, seed: int = 0, data_dir: Path | None = None) -> int:
    """Tokens in every passage of the slice (a user corpus: every document), as the context
    budget counts them (item headers aside)."""
    from ace_lab.tokens import count_tokens

    return sum(count_tokens(p.text) for p in slice_of(dataset, n, seed, data_dir).passages)


def whole_corpus_warning(tokens: int, budget: int = CONTEXT_BUDGET_TOKENS) -> str | None:
    """The warning for a corpus whose every passage fits the context budget (None otherwise):
    any method can then hand the model all of it, so comparing methods shows little."""
    if tokens > budget:
        return None
    return (
        f"the whole corpus ({tokens:,} tokens) fits the {budget:,}-token context budget: every "
        "method can pass the model the same passages, so their answers differ only by how they "
        "pick and order them; compare methods on a corpus larger than the budget"
    )


def _short(value: Any, limit: int = 400) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_trace(trace: Trace) -> str:
    """Every step: timing, inputs, what it decided (its payload's line), LLM calls, repairs and
    notes, one block per step."""
    lines = []
    for step in trace.steps:
        cold_in = sum(c.response_prompt_tokens for c in step.llm_calls)
        cold_out = sum(c.response_completion_tokens for c in step.llm_calls)
        tokens = f"{cold_in}+{cold_out} tok" if step.llm_calls else ""
        lines.append(f"== {step.name}  {step.elapsed:.2f}s  {len(step.llm_calls)} LLM  {tokens}")
        for key, value in step.inputs.items():
            lines.append(f"   in  {key}: {_short(value)}")
        if step.payload is not None:
            lines.append(f"   out {_short(step.payload.line())}")
            lines.extend(f"       {_short(detail)}" for detail in step.payload.details())
        for call in step.llm_calls:
            hit = " (cache hit)" if call.cache_hit else ""
            lines.append(
                f"   llm {call.tag}: {call.response_prompt_tokens} in / "
                f"{call.response_completion_tokens} out, {call.latency_s:.2f}s{hit}"
            )
        if step.added:
            ids = ", ".join(e.id for e in step.added[:8])
            more = f" … (+{len(step.added) - 8})" if len(step.added) > 8 else ""
            lines.append(f"   +{len(step.added)} evidence: {ids}{more}")
        lines.extend(f"   - {item.id}: {why}" for item, why in step.removed)
        lines.extend(f"   repair {repair.line()}" for repair in step.repairs)
        lines.extend(f"   note {note}" for note in step.notes)
    return "\n".join(lines)


def cost_line(answer: Answer) -> str:
    s = answer.trace.summary()
    return (
        f"{s['llm_calls']} LLM calls ({s['cache_hits']} cached), "
        f"{answer.retrieval_calls or 0} retrieval calls, "
        f"{s['response_prompt_tokens']} input / {s['response_completion_tokens']} output tokens, "
        f"{s['wall_s']:.1f}s wall"
    )
