"""Reproducible answers (issue 14): one prompt sent to the local server gets one answer at
temperature 0 — asked again after other prompts, and while the other slots are busy.

Identical ACE prompts once got two answers ("Pirate's Cove" / "Board Games"): with prompt-prefix
reuse on, the server evaluated only the uncached rest of a prompt, in other batches than a cold
call does, and llama.cpp's CPU kernels are not batch-invariant. The same holds for requests
decoded together in two slots (qwen1.5b: 2 distinct generations of one prompt with 2 busy
slots, 1 with one slot; ``bench/answer_determinism.py``), so the server defaults to one slot
and no prefix reuse. Integration: starts the smoke-tier server with its default settings,
response cache off.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ace_lab.data import load_dataset
from ace_lab.llm import LLM, server
from ace_lab.prompts import load_prompt

MAX_TOKENS = 48


def _toy_prompts() -> list[list[dict[str, str]]]:
    """``answer_qa`` prompts for the toy questions over one shared context: they differ only
    in the question at the end, so a server reusing prefixes would reuse most of each."""
    toy = load_dataset("toy")
    context = "\n".join(f"- {p.title}: {p.text}" for p in toy.passages[:8])
    return [
        load_prompt("answer_qa").messages(query=q.question, context=context)
        for q in toy.questions[:3]
    ]


@pytest.mark.integration
def test_one_prompt_gets_one_answer_in_a_row_and_concurrently(settings):
    settings = replace(settings, llm=replace(settings.llm, cache=False))
    llm = LLM(settings)
    target, *others = _toy_prompts()

    def ask(messages: list[dict[str, str]]) -> str:
        return llm.chat(messages, tag="test.determinism", max_tokens=MAX_TOKENS).text

    try:
        answers = [ask(target)]
        for other in others:  # each time after another prompt with the same long prefix
            ask(other)
            answers.append(ask(target))
        assert all(c.cache_hit is False for c in llm.ledger.calls)
        concurrent = llm.map(ask, [others[0], target, others[1], target], max_workers=4)
        answers += concurrent[1::2]  # the targets, decoded while the other slots were busy
        info = server.status(settings)
        assert info is not None and info.parallel == settings.llm.parallel
    finally:
        server.stop(settings)
    assert len(answers) == 5 and answers[0].strip()
    assert len(set(answers)) == 1, f"{len(set(answers))} distinct answers: {set(answers)}"
