"""Reading the final answer out of a model's reply: the ``[FINAL_ANSWER] … [/FINAL_ANSWER]``
span of the QA answer prompt, recovered robustly when a small model bends the format.

Generation uses it to turn a raw reply into the answer it scores; evaluation reuses it to
rescore stored raw replies after an extraction change.

Every step is linear in the reply's length: the patterns below have no nested or adjacent
overlapping quantifiers, made-up tag pairs are found with string searches, a reply longer than
:data:`MAX_REPLY_CHARS` is read from its end and the line fallback reads at most
:data:`MAX_LINES` lines.
"""

from __future__ import annotations

import re

#: Longest reply read, in characters: a QA reply is at most 256 tokens (about 1,000 characters),
#: so this leaves a wide margin; a longer string is read from its end, where answers go.
MAX_REPLY_CHARS = 20_000
#: Most lines the untagged fallback looks at, from the end (256 tokens make at most 256 lines).
MAX_LINES = 512

_OPEN = re.compile(r"\[\s*final[ _]answer\s*\]", re.IGNORECASE)
_CLOSE = re.compile(r"\[\s*/\s*final[ _]answer\s*\]", re.IGNORECASE)
_PREFIX = re.compile(r"(?:final\s+answer|answer|result)[\s*_`]*[:：]", re.IGNORECASE)
#: Markdown and quoting a model may wrap around the answer.
_WRAPPERS = " \t\r\n*_`\"'“”‘’"

#: The answer used as the tag itself, ``[Mika Häkkinen] [/Mika Häkkinen]``, or bracketed alone.
_ANSWER_AS_TAG = re.compile(r"\[([^\[\]/]{1,200})\](?:\s*\[/\1\])?")
#: Longest name of a made-up tag, ``[ANSWER]`` or ``[/FINLANDISH Driver]``.
_TAG_NAME_CHARS = 80


def _any_tags(text: str) -> str | None:
    """The answer inside a made-up tag pair, ``[ANSWER] x [/ANSWER]`` (small models often rename
    the FINAL_ANSWER tags or copy the placeholder's words into them); None if ``text`` is not
    one such pair. The closing tag is the earliest ``[/name]`` that ends the text."""
    if not (text.startswith("[") and text.endswith("]")):
        return None
    open_end = text.find("]", 1, _TAG_NAME_CHARS + 2)
    if open_end < 2 or "/" in text[1:open_end]:
        return None
    last_inner = text.rfind("]", open_end + 1, len(text) - 1)  # a "]" the closing tag cannot hold
    close = text.find("[/", max(open_end + 1, last_inner + 1))
    if close == -1 or not 1 <= len(text) - 1 - (close + 2) <= _TAG_NAME_CHARS:
        return None
    inner = text[open_end + 1 : close].strip()
    return inner if inner and "\n" not in inner else None


def _strip_prefix(text: str) -> str:
    """``text`` without a leading ``Answer:`` / ``Result:`` / ``Final answer:`` (bold or not)."""
    prefix = _PREFIX.match(text)
    return text[prefix.end() :] if prefix else text


def _clean(text: str) -> str:
    """Strip wrappers, an ``Answer:``-style prefix (bold or not), a made-up tag pair and a
    trailing period."""
    text = _strip_prefix(text.strip(_WRAPPERS)).strip(_WRAPPERS)
    if (as_tag := _ANSWER_AS_TAG.fullmatch(text)) is not None:
        text = as_tag.group(1).strip(_WRAPPERS)
    elif (tagged := _any_tags(text)) is not None:
        text = tagged.strip(_WRAPPERS)
    return text[:-1].rstrip(_WRAPPERS) if text.endswith(".") else text


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip(_WRAPPERS)]


def _prefixed(line: str) -> bool:
    return _PREFIX.match(line.strip(_WRAPPERS)) is not None


def _value_at(lines: list[str], i: int, prefixed: set[int]) -> str:
    """The answer on line ``i``; for a bare ``Answer:`` line, the answer on the line after it
    (unless that line is itself prefixed: it was read on its own, and came out empty)."""
    value = _clean(lines[i])
    if not value and i + 1 < len(lines) and i + 1 not in prefixed:
        value = _clean(lines[i + 1])
    return value


def extract_final_answer(text: str) -> str:
    """The answer a model put in ``[FINAL_ANSWER] ... [/FINAL_ANSWER]``, found robustly.

    In order: the last non-empty answer inside a closed tag pair (case-insensitive); else, for
    an opening tag whose closing tag is missing, the first line after it (the last such tag
    first); else the last line starting ``Answer:`` / ``Result:`` / ``Final answer:``, or the
    line after it when the answer starts a new line; else the last non-empty line. The result
    loses markdown bold, backticks, quotes, such prefixes and a trailing period.
    """
    text = str(text or "")[-MAX_REPLY_CHARS:]
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
            return answer
    for segment in reversed(unclosed):
        lines = _lines(segment)[:2]
        if lines and (answer := _value_at(lines, 0, set())):
            return answer
    lines = _lines(_CLOSE.sub(" ", _OPEN.sub(" ", text)))[-MAX_LINES:]
    prefixed = {i for i, line in enumerate(lines) if _prefixed(line)}
    for i in sorted(prefixed, reverse=True):
        if answer := _value_at(lines, i, prefixed):
            return answer
    for i in reversed(range(len(lines))):  # a prefixed line was read above and came out empty
        if i not in prefixed and (answer := _clean(lines[i])):
            return answer
    return ""
