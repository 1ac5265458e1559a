"""A recognizer for the GBNF that :mod:`ace_lab.arc.grammar` writes: is a text in its language?

llama.cpp samples under a GBNF grammar, so a reply outside it cannot come from a server that
honoured the grammar; a reply from one that did not (a scripted client, a server that ignores
the field) is checked here before it runs. The subset parsed is the one the generator emits:
rules ``name ::= expr``, double-quoted literals (``\\"``, ``\\\\``, ``\\n`` escapes), character
classes (``[a-z]``, ``[^'"\\\\]``), rule references, groups, ``|``, and the postfix ``?``,
``*``, ``+``. Matching keeps, for each expression and start position, every position where it
can end (no left recursion in what the generator writes), so ambiguity costs memory, not
backtracking time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

Node = tuple  # ("lit", str) | ("cls", bool, tuple[(lo, hi)]) | ("ref", str) | ("seq", ...) ...

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "]": "]", "[": "[", "-": "-"}
_RULE = re.compile(r"^([a-zA-Z0-9-]+)\s*::=\s*(.*)$")


class GrammarError(ValueError):
    """A grammar text this recognizer cannot read."""


class _Parser:
    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0

    def _ws(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in " \t\n":
            self.i += 1

    def _char(self, end: str) -> str:
        ch = self.text[self.i]
        self.i += 1
        if ch != "\\":
            return ch
        esc = self.text[self.i]
        self.i += 1
        if esc == "x":
            code = int(self.text[self.i : self.i + 2], 16)
            self.i += 2
            return chr(code)
        if esc not in _ESCAPES:
            raise GrammarError(f"unknown escape \\{esc} in {end}-delimited text")
        return _ESCAPES[esc]

    def alternatives(self) -> Node:
        options = [self.sequence()]
        while self.i < len(self.text) and self.text[self.i] == "|":
            self.i += 1
            options.append(self.sequence())
        return options[0] if len(options) == 1 else ("alt", tuple(options))

    def sequence(self) -> Node:
        items: list[Node] = []
        while True:
            self._ws()
            if self.i >= len(self.text) or self.text[self.i] in "|)":
                return items[0] if len(items) == 1 else ("seq", tuple(items))
            item = self.atom()
            while self.i < len(self.text) and self.text[self.i] in "?*+":
                low, high = {"?": (0, 1), "*": (0, None), "+": (1, None)}[self.text[self.i]]
                item = ("rep", item, low, high)
                self.i += 1
            items.append(item)

    def atom(self) -> Node:
        ch = self.text[self.i]
        if ch == '"':
            self.i += 1
            out = []
            while self.text[self.i] != '"':
                out.append(self._char('"'))
            self.i += 1
            return ("lit", "".join(out))
        if ch == "[":
            self.i += 1
            negate = self.text[self.i] == "^"
            self.i += negate
            ranges = []
            while self.text[self.i] != "]":
                lo = self._char("]")
                hi = lo
                if self.text[self.i] == "-" and self.text[self.i + 1] != "]":
                    self.i += 1
                    hi = self._char("]")
                ranges.append((lo, hi))
            self.i += 1
            return ("cls", negate, tuple(ranges))
        if ch == "(":
            self.i += 1
            inner = self.alternatives()
            if self.text[self.i] != ")":
                raise GrammarError(f"unclosed group at {self.i}")
            self.i += 1
            return inner
        m = re.compile(r"[a-zA-Z0-9-]+").match(self.text, self.i)
        if m is None:
            raise GrammarError(f"unexpected {ch!r} at {self.i}")
        self.i = m.end()
        return ("ref", m.group())


def parse_rules(grammar: str) -> dict[str, Node]:
    """``grammar``'s rules by name (one rule per line; ``#`` lines are comments)."""
    rules: dict[str, Node] = {}
    for line in grammar.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _RULE.match(line.strip())
        if m is None:
            raise GrammarError(f"not a rule: {line[:80]!r}")
        parser = _Parser(m.group(2))
        rules[m.group(1)] = parser.alternatives()
        if parser.i != len(parser.text):
            raise GrammarError(f"rule {m.group(1)}: trailing text at {parser.i}")
    return rules


@dataclass(frozen=True)
class Recognizer:
    """Membership in the language of one GBNF grammar (start rule ``root``)."""

    grammar: str

    @cached_property
    def rules(self) -> dict[str, Node]:
        rules = parse_rules(self.grammar)
        missing = {r for n in rules.values() for r in _refs(n)} - set(rules)
        if missing or "root" not in rules:
            raise GrammarError(f"undefined rules: {sorted(missing | ({'root'} - set(rules)))}")
        return rules

    def accepts(self, text: str) -> bool:
        """Whether ``text`` is a sentence of the grammar."""
        memo: dict[tuple[int, int], frozenset[int]] = {}
        return len(text) in self._match(("ref", "root"), 0, text, memo)

    def _match(
        self, node: Node, pos: int, text: str, memo: dict[tuple[int, int], frozenset[int]]
    ) -> frozenset[int]:
        key = (id(node), pos)
        if key in memo:
            return memo[key]
        memo[key] = frozenset()  # a rule reached again at the same place adds nothing
        kind = node[0]
        if kind == "lit":
            ends = frozenset({pos + len(node[1])}) if text.startswith(node[1], pos) else frozenset()
        elif kind == "cls":
            hit = pos < len(text) and any(lo <= text[pos] <= hi for lo, hi in node[2])
            ends = frozenset({pos + 1}) if pos < len(text) and hit != node[1] else frozenset()
        elif kind == "ref":
            ends = self._match(self.rules[node[1]], pos, text, memo)
        elif kind == "alt":
            ends = frozenset().union(*(self._match(n, pos, text, memo) for n in node[1]))
        elif kind == "seq":
            ends = frozenset({pos})
            for item in node[1]:
                ends = frozenset().union(*(self._match(item, p, text, memo) for p in ends))
                if not ends:
                    break
        else:  # rep: positions after low..high repetitions (an unbounded one is low 0 or 1)
            _, item, low, high = node
            found = {pos} if low == 0 else set()
            frontier, seen, count = {pos}, {pos}, 0
            while frontier and (high is None or count < high):
                count += 1
                step = set().union(*(self._match(item, p, text, memo) for p in frontier))
                if count >= low:
                    found |= step
                frontier = step - seen if high is None else step
                seen |= step
            ends = frozenset(found)
        memo[key] = ends
        return ends


def _refs(node: Node) -> list[str]:
    kind = node[0]
    if kind == "ref":
        return [node[1]]
    if kind in ("alt", "seq"):
        return [r for n in node[1] for r in _refs(n)]
    if kind == "rep":
        return _refs(node[1])
    return []
