"""The answer step every method ends with: one shared answer call on a context, recorded.

:func:`answer_step` opens the step (``generate``; ArcRAG's answer of pass *k* is
``generate:p<k>``), makes the shared answer call on the rendered context
(:func:`ace_lab.methods.generate.generate`: the task's and style's prompt, its call tag, its
parsing, :func:`~ace_lab.methods.generate.evidence_only`), records the step's payload (the
generic :class:`~ace_lab.steps.Generation`, or a method's subclass of it such as ArcRAG's
per-pass ``ArcGeneration``) and returns the generation. :func:`answer_from` is that step and the
:class:`~ace_lab.evidence.Answer` of a method that answers once (a retrieve-then-generate
baseline, MOSAIC, ACE and every composition), so a method differs from another only in the
context it builds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ace_lab.evidence import Answer, Context, Evidence, Trace
from ace_lab.llm import LLM
from ace_lab.methods.generate import Generation, PromptStyle, Task, generate
from ace_lab.steps import AnswerDetails
from ace_lab.steps import Generation as GenerationPayload

#: The answer step's name and kind.
ANSWER_STEP = "generate"


def answer_step(
    trace: Trace,
    llm: LLM,
    query: str,
    context: Context,
    task: Task,
    style: PromptStyle,
    *,
    name: str = ANSWER_STEP,
    final: bool = True,
    inputs: Mapping[str, Any] | None = None,
    added: Iterable[Evidence] = (),
    payload: Callable[..., GenerationPayload] = GenerationPayload,
) -> Generation:
    """Answer ``query`` from ``context`` in a step ``name`` of ``trace`` and record it.

    ``inputs``: the step's inputs (default: the prompt style and the task); ``added``: evidence
    the step adds to the working set (ArcRAG's fallback passages); ``payload``: the recorded
    payload's type, called as ``payload(answer, raw, style, task)`` (a ``functools.partial``
    of a subclass carries the method's own fields); ``final``: the method's answer, not a
    pass's draft (see :func:`~ace_lab.methods.generate.generate`)."""
    given = {"prompt_style": style, "task": task} if inputs is None else dict(inputs)
    with trace.step(name, kind=ANSWER_STEP, **given) as step:
        step.add(added)
        generation = generate(llm, query, context.render(), task, style, final=final)
        step.record(payload(generation.answer, generation.raw, style, task))
    return generation


def answer_from(
    trace: Trace,
    llm: LLM,
    query: str,
    context: Context,
    task: Task,
    style: PromptStyle,
    *,
    method: str,
    retrieval_calls: int,
    details: AnswerDetails | None = None,
) -> Answer:
    """The :func:`answer_step` of a method that answers once, and its ``Answer`` (the parsed
    answer, the context it read, the trace, the raw reply)."""
    generation = answer_step(trace, llm, query, context, task, style)
    return Answer(
        generation.answer,
        context,
        trace,
        method=method,
        raw=generation.raw,
        retrieval_calls=retrieval_calls,
        details=details,
    )
