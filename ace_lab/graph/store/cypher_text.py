"""Cypher text without a parser: masking literals and comments, bracket depth, neighbours.

The read-only guard and the read bounds both scan model-written Cypher for keywords. Scanning
the raw text would find ``CREATE`` inside ``'Create Labs'`` or a comment, so both scan a *mask*
of the query first: the same length (positions index the original text), string bodies blanked,
backtick identifiers turned into ``_`` runs, comments turned into spaces. The masking follows
FalkorDB's lexer: backslash escapes inside strings, no doubled-quote escape.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_WORD_RE = re.compile(r"[A-Za-z_]\w*")


def mask(cypher: str) -> str:
    """``cypher`` with comments blanked and literal/identifier contents masked, same length.

    String bodies become spaces (keywords inside them vanish); backtick identifiers become
    ``_`` runs (still a word, never a keyword); comments become spaces. An unterminated literal
    or comment masks to the end, which is conservative: the server rejects such a query anyway.
    """
    out: list[str] = []
    i, n = 0, len(cypher)
    while i < n:
        ch = cypher[i]
        if ch in ("'", '"'):
            j = i + 1
            while j < n and cypher[j] != ch:
                j += 2 if cypher[j] == "\\" else 1
            j = min(j, n - 1)
            out.append(ch + " " * (j - i - 1) + cypher[j] if j > i else ch)
            i = j + 1
        elif ch == "`":
            j = i + 1
            while j < n:
                if cypher[j] == "`":
                    if j + 1 < n and cypher[j + 1] == "`":  # `` is an escaped backtick
                        j += 2
                        continue
                    break
                j += 1
            j = min(j, n - 1)
            out.append("`" + "_" * (j - i - 1) + cypher[j] if j > i else "`")
            i = j + 1
        elif cypher.startswith("//", i):
            j = cypher.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif cypher.startswith("/*", i):
            j = cypher.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(" " * (j - i))
            i = j
        else:
            out.append(ch)
            i += 1
    masked = "".join(out)
    assert len(masked) == len(cypher)
    return masked


def depths(masked: str) -> list[int]:
    """Bracket nesting depth at each position of a masked query."""
    depth, out = 0, []
    for ch in masked:
        if ch in "([{":
            depth += 1
        out.append(depth)
        if ch in ")]}":
            depth = max(0, depth - 1)
    return out


def prev_char(text: str, pos: int) -> str:
    """The last non-space character before ``pos`` ("" at the start)."""
    before = text[:pos].rstrip()
    return before[-1] if before else ""


def next_char(text: str, pos: int) -> str:
    """The first non-space character at or after ``pos`` ("" at the end)."""
    after = text[pos:].lstrip()
    return after[0] if after else ""


def prev_word(text: str, pos: int) -> str:
    """The word (letters, digits, ``_``) that ends just before ``pos``, upper-cased, or ""."""
    m = re.search(r"([A-Za-z_]\w*)\s*$", text[:pos])
    return m.group(1).upper() if m else ""


def next_word(text: str, pos: int) -> str:
    """The word that starts at the first non-space character at or after ``pos``, or ""."""
    m = _WORD_RE.match(text, len(text) - len(text[pos:].lstrip()))
    return m.group(0).upper() if m else ""


def is_name_position(masked: str, start: int) -> bool:
    """Whether a word at ``start`` is a property, parameter or label name (``.x``, ``$x``,
    ``:x``) rather than a keyword or a variable."""
    return prev_char(masked, start) in (".", "$", ":")


def call_args(masked: str, open_paren: int) -> Iterator[tuple[int, int]]:
    """Spans of the comma-separated arguments of the call whose ``(`` is at ``open_paren``."""
    depth, start = 0, open_paren + 1
    for i in range(open_paren, len(masked)):
        ch = masked[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                if masked[start:i].strip():
                    yield start, i
                return
        elif ch == "," and depth == 1:
            yield start, i
            start = i + 1


_DEFINED_AFTER_RE = re.compile(r"\bAS\s+([A-Za-z_]\w*)", re.IGNORECASE)
_BRACKET_WORD_RE = re.compile(r"[(\[]\s*([A-Za-z_]\w*)")
_ASSIGNED_RE = re.compile(r"([A-Za-z_]\w*)\s*=")
_YIELD_RE = re.compile(
    r"\bYIELD\b(.*?)(?=\b(?:WHERE|RETURN|WITH|MATCH|UNWIND|CALL)\b|$)", re.I | re.S
)


def defined_names(masked: str) -> set[str]:
    """Upper-cased names a masked query (over-)defines as variables.

    FalkorDB accepts every keyword as a variable name (``MATCH (order)``, ``AS return``), so a
    scanner must know which words the query may use as variables: aliases (``AS x``), pattern
    and comprehension variables (``(x``, ``[x IN``, ``reduce(x =``), assigned names (``p =``)
    and ``YIELD`` lists. A word after a bracket that is followed by another operand
    (``count(DISTINCT x)``, ``(NOT x)``, ``(CASE WHEN``) is a keyword, not a definition.
    """
    names = {m.group(1).upper() for m in _DEFINED_AFTER_RE.finditer(masked)}
    names |= {
        m.group(1).upper()
        for m in _ASSIGNED_RE.finditer(masked)
        if not is_name_position(masked, m.start())
    }
    for m in _BRACKET_WORD_RE.finditer(masked):
        after = next_char(masked, m.end())
        operand = after != "" and (after.isalnum() or after in "_($'\"`")
        if not operand or next_word(masked, m.end()) == "IN":
            names.add(m.group(1).upper())
    for m in _YIELD_RE.finditer(masked):
        names |= {w.upper() for w in _WORD_RE.findall(m.group(1))} - {"AS"}
    return names
