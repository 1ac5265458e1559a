"""Reading the final answer out of a model's reply: the ``[FINAL_ANSWER] … [/FINAL_ANSWER]``
span of the QA answer prompt (or the ``answer`` of the JSON answer prompt), recovered robustly
when a small model bends the format.

Generation uses it to turn a raw reply into the answer it scores; evaluation reuses it to
rescore stored raw replies after an extraction change, and :func:`extract` says where each
answer came from (``source``), which is what the format-compliance rate counts.

Bent formats seen in committed outputs, each handled here: made-up tag pairs in any case
(``[Modeling and Performance] [/MODELING AND PERFORMANCE]``), answers with ``/``
(``[2012/13 Premier League]``), stray closing tags (``Kelly Reichardt [/Kelly Reichardt]``),
bridge entity and answer bracketed side by side (``[Chuck Berry] [St. Louis, Missouri]``: the
last bracket), and replies that never give a ``Result:`` line (a ``Reasoning: …`` line is not
an answer; its "the answer is X" is). A length guard refuses any candidate of more than
:data:`MAX_ANSWER_WORDS` words or :data:`MAX_ANSWER_CHARS` characters: such text is reasoning,
not an answer span (the longest gold answer in the QA sets here has 14 words).

Every step is linear in the reply's length: the patterns below have no nested or adjacent
overlapping quantifiers, bracket groups are matched by a pattern whose every attempt stops at
the next bracket, a reply longer than :data:`MAX_REPLY_CHARS` is read from its end and the line
fallback reads at most :data:`MAX_LINES` lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ace_lab.llm.structured import extract_json

#: Longest reply read, in characters: a QA reply is at most 256 tokens (about 1,000 characters),
#: so this leaves a wide margin; a longer string is read from its end, where answers go.
MAX_REPLY_CHARS = 20_000
#: Most lines the untagged fallback looks at, from the end (256 tokens make at most 256 lines).
MAX_LINES = 512
#: Length guard: a candidate longer than this is reasoning, not an answer span.
MAX_ANSWER_WORDS = 24
MAX_ANSWER_CHARS = 200

#: Where an answer was found, best first. ``tag`` and ``json`` follow the prompt's format.
SOURCES = ("json", "tag", "unclosed_tag", "prefix", "line", "none")
COMPLIANT_SOURCES = ("json", "tag")

#: The answer tags, in square or angle brackets (``<FINAL_ANSWER>…</FINAL_ANSWER>``).
_OPEN = re.compile(r"[\[<]\s*final[ _]answer\s*[\]>]", re.IGNORECASE)
_CLOSE = re.compile(r"[\[<]\s*/\s*final[ _]answer\s*[\]>]", re.IGNORECASE)
#: ``Answer:``, ``Final answer:``, ``FINAL_ANSWER:``, ``Result:``, or ``Answer - X``.
_PREFIX = re.compile(
    r"(?:final[\s_]+answer|answer|result)[\s*_`]*(?:[:：]|[-–—](?=\s))", re.IGNORECASE
)
_REASONING = re.compile(r"reasoning[\s*_`]*[:：]", re.IGNORECASE)
#: "the answer is X" inside a sentence; the last one counts.
_ANSWER_IS = re.compile(r"\b(?:final\s+)?answer\s+(?:is|was)\b[\s:：]*", re.IGNORECASE)
#: A sentence end after a word of three or more characters ("St. Louis" is not one).
_SENTENCE_END = re.compile(r"(?<=[A-Za-z0-9)\]\"'”’]{3})[.!?](?:\s|$)")
#: One bracket group without brackets inside; every attempt stops at the next bracket.
_GROUP = re.compile(r"\[([^\[\]]*)\]")
#: The JSON answer prompt's field, for a reply whose JSON does not parse (cut off after it).
_JSON_ANSWER = re.compile(r'"answer"\s*:\s*"((?:[^"\\\n]|\\.)*)"')
#: Markdown and quoting a model may wrap around the answer.
_WRAPPERS = " \t\r\n*_`\"'“”‘’\u00a0\u200b\u200c\u200d\u2060\ufeff"  # + invisible spaces
#: A markdown code fence line (```` ``` ```` or ```` ```text ````).
_FENCE = re.compile(r"^\s*```[\w-]*\s*$", re.MULTILINE)
#: Longest name of a made-up tag, ``[ANSWER]`` or ``[/FINLANDISH Driver]``.
_TAG_NAME_CHARS = 80
#: Longest answer written as a tag itself, ``[Mika Häkkinen]``.
_GROUP_ANSWER_CHARS = 200


@dataclass(frozen=True)
class Extraction:
    """The answer read from a reply and where it came from (one of :data:`SOURCES`)."""

    answer: str
    source: str

    @property
    def compliant(self) -> bool:
        """The answer was given in the prompt's format (a closed tag pair or the JSON field)."""
        return self.source in COMPLIANT_SOURCES


def _strip_prefix(text: str) -> str:
    """``text`` without a leading ``Answer:`` / ``Result:`` / ``Final answer:`` (bold or not)."""
    prefix = _PREFIX.match(text)
    return text[prefix.end() :] if prefix else text


def _untag(text: str) -> str:
    """``text`` with its bracket structure read as the answer a small model meant.

    Closing groups (``[/…]``) are dropped. What is left decides: only bracket groups → the last
    one (``[X]``, ``[X] [/x]``, ``[bridge] [answer]``); an opening group, text, then a closing
    group → the text (a made-up pair ``[TAG] X [/TAG]``); text alone → the text (a stray
    closing tag ``X [/X]``); anything else (``[1998] was the year``) → the text unchanged.
    """
    groups: list[str] = []  # contents of opening groups, in order
    texts: list[str] = []  # non-empty text between groups
    order: list[str] = []  # "g" (opening group), "t" (text), "c" (closing group)
    pos = 0
    for match in _GROUP.finditer(text):
        between = text[pos : match.start()].strip(_WRAPPERS)
        if between:
            texts.append(between)
            order.append("t")
        content = match.group(1).strip()
        if content.startswith("/"):
            if len(content) <= _TAG_NAME_CHARS + 1:
                order.append("c")
            else:  # too long to be a tag name: keep it as text
                texts.append(match.group(0))
                order.append("t")
        elif len(content) <= _GROUP_ANSWER_CHARS:
            groups.append(content)
            order.append("g")
        else:
            texts.append(match.group(0))
            order.append("t")
        pos = match.end()
    if not order:
        return text
    tail = text[pos:].strip(_WRAPPERS)
    if tail:
        texts.append(tail)
        order.append("t")
    kinds = "".join(order)
    if "t" not in kinds:
        return groups[-1] if groups else ""
    if kinds.startswith("g") and kinds.endswith("c") and kinds.count("t") == 1:
        return texts[0]  # [TAG] X [/TAG], maybe after [bridge] groups
    if "g" not in kinds:
        return " ".join(texts)  # X [/X]
    closing = _GROUP.sub(lambda m: "" if m.group(1).strip().startswith("/") else m.group(0), text)
    return closing.strip(_WRAPPERS)


def _answer_is(text: str) -> str:
    """What follows the last "the answer is" in ``text``, to the end of its sentence."""
    last = None
    for last in _ANSWER_IS.finditer(text):  # noqa: B007 — the last match is wanted
        pass
    if last is None:
        return ""
    rest = text[last.end() :]
    end = _SENTENCE_END.search(rest)
    return (rest[: end.start()] if end else rest).strip(_WRAPPERS)


def _guarded(text: str) -> str:
    """``text`` if it is short enough to be an answer span (the length guard), else ""."""
    if len(text) > MAX_ANSWER_CHARS or len(text.split()) > MAX_ANSWER_WORDS:
        return ""
    return text


def _clean(text: str, *, prose: bool = False) -> str:
    """Strip wrappers, an ``Answer:``-style prefix (bold or not), tag structure and a trailing
    period; a ``Reasoning:`` line or an over-long candidate gives its "the answer is X" or
    nothing. ``prose``: the text was not inside a tag, so "the answer is X" always wins."""
    text = _strip_prefix(text.strip(_WRAPPERS)).strip(_WRAPPERS)
    text = _untag(text).strip(_WRAPPERS)
    if text.endswith("."):
        text = text[:-1].rstrip(_WRAPPERS)
    reasoning = _REASONING.match(text) is not None
    if reasoning or prose or _guarded(text) != text:
        said = _answer_is(text)
        if said or reasoning:
            return _guarded(_clean(said)) if said else ""
    return _guarded(text)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip(_WRAPPERS)]


def _prefixed(line: str) -> bool:
    return _PREFIX.match(line.strip(_WRAPPERS)) is not None


def _value_at(lines: list[str], i: int, prefixed: set[int]) -> str:
    """The answer on line ``i``; for a bare ``Answer:`` line, the answer on the line after it
    (unless that line is itself prefixed: it was read on its own, and came out empty)."""
    value = _clean(lines[i], prose=True)
    if not value and i + 1 < len(lines) and i + 1 not in prefixed:
        value = _clean(lines[i + 1], prose=True)
    return value


def _json_answer(text: str) -> str | None:
    """The ``answer`` field of a JSON reply (the JSON answer prompt); None if there is none."""
    if '"answer"' not in text:
        return None
    try:
        value = extract_json(text)
    except ValueError:
        value = None
    if isinstance(value, dict) and isinstance(value.get("answer"), str):
        return value["answer"]
    last = None
    for last in _JSON_ANSWER.finditer(text):  # noqa: B007 — the last match is wanted
        pass
    return None if last is None else last.group(1).replace('\\"', '"')


def extract(text: str) -> Extraction:
    """The answer in a reply and where it was found (see :func:`extract_final_answer`)."""
    text = str(text or "")[-MAX_REPLY_CHARS:]
    if text.lstrip().startswith("```") and not _FENCE.sub("", text).lstrip().startswith("{"):
        text = _FENCE.sub("", text)  # a fenced answer that is not JSON: read what is inside
    if text.lstrip().startswith(("{", "```")):
        if (value := _json_answer(text)) is not None:
            return Extraction(_clean(value), "json")
        if _OPEN.search(text) is None:  # JSON cut off before its answer: no answer
            return Extraction("", "none")
    closed: list[str] = []
    unclosed: list[str] = []
    for segment in _OPEN.split(text)[1:]:  # the text after each opening tag
        parts = _CLOSE.split(segment, maxsplit=1)
        if len(parts) == 2:
            closed.append(parts[0])
        else:
            unclosed.append(segment)
    for body in reversed(closed):
        if answer := _clean(body):
            return Extraction(answer, "tag")
    for segment in reversed(unclosed):
        lines = _lines(segment)[:2]
        if lines and (answer := _value_at(lines, 0, set())):
            return Extraction(answer, "unclosed_tag")
    lines = _lines(_CLOSE.sub(" ", _OPEN.sub(" ", text)))[-MAX_LINES:]
    prefixed = {i for i, line in enumerate(lines) if _prefixed(line)}
    for i in sorted(prefixed, reverse=True):
        if answer := _value_at(lines, i, prefixed):
            return Extraction(answer, "prefix")
    for i in reversed(range(len(lines))):  # a prefixed line was read above and came out empty
        if i in prefixed:
            continue
        if answer := _clean(lines[i], prose=True):
            return Extraction(answer, "line")
        if _untag(lines[i].strip(_WRAPPERS)).strip(_WRAPPERS):
            break  # a line of text that is no answer (reasoning, too long): stop here
    return Extraction("", "none")


def extract_final_answer(text: str) -> str:
    """The answer a model put in ``[FINAL_ANSWER] ... [/FINAL_ANSWER]``, found robustly.

    In order: the ``answer`` of a JSON reply (the JSON answer prompt); the last non-empty
    answer inside a closed tag pair (case-insensitive); else, for an opening tag whose closing
    tag is missing, the first line after it (the last such tag first); else the last line
    starting ``Answer:`` / ``Result:`` / ``Final answer:``, or the line after it when the answer
    starts a new line; else the last line of text. The result loses markdown bold, backticks,
    quotes, such prefixes, stray and made-up tags and a trailing period; a ``Reasoning:`` line
    or a candidate over the length guard gives its "the answer is X", or "".
    """
    return extract(text).answer
