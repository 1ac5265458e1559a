"""The context budget as one name token for every head: ``<name>`` + ``b<N>``.

``b<N>`` is the last ``+``-joined token of a name's variant and means the same thing for every
method: the final context handed to the reader holds at most ``N`` tokens
(``ace_lab.tokens``). ``naive:b600``, ``hipporag:b600@hierarchical``, ``mosaic:signals+b600``,
``mosaic-fixed:wide+b600``, ``arcrag:strict+grammar+patterns+r1p1+b600`` and ACE's
``ace-full:b600`` (its adaptation budget, which is its final context) all cap the context at 600
tokens; without the token a method keeps its own default (1,500 for every method but ACE's
2,400, ``ace_lab.ace.specs``), its configuration and its hash.

ACE parses the token itself (its variant also carries a policy label); every other method's
spec says how it runs at another budget (:attr:`MethodSpec.rebudget`), so this module only
splits the token off and asks the spec.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ace_lab.methods.names import MethodName, parse
from ace_lab.methods.spec import MethodSpec

#: The budget token: ``b`` and a token count without a leading zero.
BUDGET_TOKEN = re.compile(r"b([1-9][0-9]*)")
#: The budgets ``ace-lab sweep`` runs by default (tokens of the final context).
SWEEP_BUDGETS: tuple[int, ...] = (300, 600, 1000, 1500)


def split_budget(parts: MethodName) -> tuple[MethodName, int | None]:
    """``parts`` without its ``b<N>`` token, and N (None without one): ``naive:b600`` →
    (``naive``, 600); ``arcrag:strict+r1p1+b600@openie`` → (``arcrag:strict+r1p1@openie``, 600)."""
    tokens = parts.variant.split("+") if parts.variant else []
    if not tokens or (match := BUDGET_TOKEN.fullmatch(tokens[-1])) is None:
        return parts, None
    return replace(parts, variant="+".join(tokens[:-1])), int(match[1])


def with_budget_token(name: str, tokens: int) -> str:
    """``name`` (a canonical method name) at a ``tokens``-token context budget, a budget already
    named replaced: ``naive`` → ``naive:b600``, ``mosaic-fixed:wide`` → ``mosaic-fixed:wide+b600``,
    ``hipporag@hierarchical`` → ``hipporag:b600@hierarchical``; a composition takes the budget on
    its ACE part, which builds the context (``mosaic>ace-full`` → ``mosaic>ace-full:b600``)."""
    parts = parse(name)
    if parts.policy:
        return str(replace(parts, policy=with_budget_token(parts.policy, tokens)))
    base, _ = split_budget(parts)
    variant = "+".join(t for t in (base.variant, f"b{tokens}") if t)
    return str(replace(base, variant=variant))


def budgeted(parts: MethodName, lookup: Callable[[str], MethodSpec]) -> MethodSpec | None:
    """The spec of a name that carries a ``b<N>`` token and whose method takes it through
    :attr:`MethodSpec.rebudget`; None when the name has no token (or its head parses the
    token itself, as ACE's does: ``lookup`` of the name without the token has no ``rebudget``)."""
    base, tokens = split_budget(parts)
    if tokens is None:
        return None
    found = lookup(str(base))
    if found.rebudget is None:
        return None
    # the base's canonical spelling (ArcRAG orders its tokens), then the budget, last
    return found.rebudget(with_budget_token(found.name, tokens), tokens)
