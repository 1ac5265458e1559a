"""The reader: which answer call turns a method's final context into a QA answer.

Every QA method answers through one *reader*, the same for every method, so methods differ only
in the context they build. Three readers, each recorded by name in every answered record
(``reader``):

``tagged``
    The paper's QA synthesis prompt (``answer_qa``): brief reasoning, then
    ``[FINAL_ANSWER] … [/FINAL_ANSWER]``, up to 256 generated tokens, free text. A small model
    bends the format (compliance was 0–25 % on every slice), and the answer is recovered
    afterwards by :func:`~ace_lab.methods.final_answer.extract_final_answer`. The default.
``json``
    The same rules with the reasoning and the answer as one JSON object (``answer_qa_json``,
    the ``-json`` methods).
``short``
    ``answer_qa_short``: the same rules, and the reply is the answer alone, decoded under a
    grammar that allows only one line, in at most :data:`SHORT_MAX_TOKENS` generated tokens: a
    llama.cpp GBNF grammar (:func:`short_grammar`, the request's ``grammar`` field) where the
    endpoint samples under one (``LLM.takes_grammar``), else a JSON schema ``response_format``
    with one ``answer`` string (:class:`ShortAnswer`). Format compliance is 100 % by
    construction and a reply costs a few tokens instead of a reasoning paragraph. The length
    is bounded by the token cap, not by the grammar: llama.cpp expands a bounded repetition
    (``{0,n}``, or a schema's ``maxLength``) into n nested optional rules, under which
    sampling slows to a fraction of a token per second (see
    :func:`~ace_lab.llm.structured.schema_format`). The grammar is part of the request, so of
    its cache key: a changed grammar never reuses an old reply.

Open and QFS tasks keep their task prompts (their readers are named ``open`` and ``qfs``).
:func:`reading` selects the reader for every answer call made inside it (``ace-lab run
--reader``, ``ace-lab reread``); outside it each method uses its own prompt style.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pydantic import BaseModel, Field

from ace_lab.llm import LLM
from ace_lab.llm.structured import schema_format
from ace_lab.methods.final_answer import extract, extract_final_answer
from ace_lab.prompts import load_prompt

READERS: tuple[str, ...] = ("tagged", "json", "short")
DEFAULT_READER = "tagged"
#: The short reader's bound: tokens it may generate (the longest gold answer of the QA sets
#: here has 14 words, about 20 tokens).
SHORT_MAX_TOKENS = 32
#: Extra tokens the JSON-schema form may spend on its syntax (``{"answer": "…"}``).
SHORT_JSON_EXTRA_TOKENS = 12
SHORT_PROMPT = "answer_qa_short"
#: The ledger tag of each QA reader's answer call, and of the open and QFS task prompts.
READER_TAGS = {
    "generate.qa": "tagged",
    "generate.qa.json": "json",
    "generate.qa.short": "short",
    "generate.open": "open",
    "generate.qfs": "qfs",
}
SHORT_TAG = "generate.qa.short"

_READER: ContextVar[str | None] = ContextVar("ace_lab_reader", default=None)


class ShortAnswer(BaseModel):
    """The short reader's reply where no grammar can be sent: the answer alone, bounded."""

    answer: str = Field(min_length=1)


def check_reader(reader: str) -> str:
    """``reader`` if it is a known reader, else a one-line ValueError naming them."""
    if reader not in READERS:
        raise ValueError(f"unknown reader {reader!r}; choose from {', '.join(READERS)}")
    return reader


@contextmanager
def reading(reader: str | None) -> Iterator[None]:
    """Within the block every QA answer call uses ``reader`` (None: each method's own)."""
    token = _READER.set(None if reader is None else check_reader(reader))
    try:
        yield
    finally:
        _READER.reset(token)


def active_reader() -> str | None:
    """The reader :func:`reading` selected for the current block (None outside one)."""
    return _READER.get()


#: The GBNF grammar of a short answer: one line that does not start with a space or a tab.
SHORT_GRAMMAR = "root ::= [^\\n\\t ] [^\\n]*\n"


def short_grammar() -> str:
    """The grammar the short reader sends (:data:`SHORT_GRAMMAR`)."""
    return SHORT_GRAMMAR


_SHORT_LINE = re.compile(r"[^\n\t ][^\n]*")


def short_reply_ok(raw: str | None) -> bool:
    """Whether ``raw`` is in the short reader's format: a line the grammar allows, or the
    JSON-schema form's object with a non-empty ``answer``."""
    text = str(raw or "")
    if _SHORT_LINE.fullmatch(text):
        return True
    found = extract(text)
    return found.source == "json" and bool(found.answer)


def short_messages(query: str, context: str) -> list[dict[str, str]]:
    """The messages of the short reader's answer call."""
    return load_prompt(SHORT_PROMPT).messages(query=query, context=context)


def read_short(llm: LLM, query: str, context: str) -> tuple[str, str]:
    """One short, grammar-bound answer call: (raw reply, answer)."""
    messages = short_messages(query, context)
    options: dict[str, Any]
    if getattr(llm, "takes_grammar", False):
        options = {"grammar": short_grammar(), "max_tokens": SHORT_MAX_TOKENS}
    else:
        options = {
            "response_format": schema_format(ShortAnswer),
            "max_tokens": SHORT_MAX_TOKENS + SHORT_JSON_EXTRA_TOKENS,
        }
    completion = llm.chat(messages, tag=SHORT_TAG, temperature=0.0, **options)
    raw = completion.text.strip()
    return raw, extract_final_answer(raw)  # a bare line is its own answer; JSON its field


def reader_of_tags(tags: Iterable[str]) -> str | None:
    """The reader of the last answer call among ledger ``tags`` (None when none answered)."""
    found = [READER_TAGS[t] for t in tags if t in READER_TAGS]
    return found[-1] if found else None


def record_reader(rec: Mapping[str, Any]) -> str | None:
    """The reader that produced a record's answer: its ``reader``, else (a record written
    before readers were recorded) ``json`` for a JSON reply and ``tagged`` for any other reply,
    the only QA readers then; None without a reply (an evidence-only record)."""
    reader = rec.get("reader")
    if isinstance(reader, str) and reader:
        return reader
    raw = rec.get("raw")
    if not isinstance(raw, str):
        return None
    return "json" if extract(raw).source == "json" else DEFAULT_READER
