"""Read bounds: every read is made finite *before* it runs, not sliced after it ran.

:func:`limit_query` gives the final ``RETURN`` of every ``UNION`` branch a ``LIMIT`` of
``max_rows + 1`` (an explicit larger ``LIMIT``, literal or parameter, is rewritten down to it),
so the server never builds or ships more rows than ``read`` keeps. :func:`check_ranges` refuses
a ``range()`` whose size is known before execution and too large: FalkorDB builds such a list
while planning, before any timeout is checked. :func:`check_params` refuses parameters that
cannot be sent safely, :func:`clamp_timeout` turns any positive timeout into whole milliseconds
the server honours (FalkorDB reads 0 as "no timeout").
"""

from __future__ import annotations

import ast
import itertools
import math
import numbers
import re
from collections.abc import Mapping
from typing import Any

from ace_lab.graph.store.cypher_text import (
    call_args,
    depths,
    is_name_position,
    mask,
    next_char,
    next_word,
)
from ace_lab.graph.store.errors import UnsafeQueryError

#: Largest ``range()`` a read may build when its size is known before execution (16 MB).
MAX_RANGE_ITEMS = 1_000_000
#: Deepest nesting of lists and maps in one parameter value.
MAX_PARAM_DEPTH = 32

_TOP_LEVEL_RE = re.compile(r"\b(RETURN|UNION|LIMIT)\b", re.IGNORECASE)
_RANGE_RE = re.compile(r"\brange\s*\(", re.IGNORECASE)
_PARAM_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PARAM_REF_RE = re.compile(r"\$([A-Za-z_]\w*)")


def clamp_timeout(timeout_ms: float, ceiling_ms: int | None = None) -> int:
    """``timeout_ms`` as whole milliseconds, at least 1 and at most ``ceiling_ms``.

    Fractions round *up* (``0.5`` → 1): FalkorDB reads a timeout of 0 as "no timeout", so
    truncation would turn the smallest budgets into none. Zero, negative, NaN and infinite
    budgets are a programming error (``ValueError``).
    """
    try:
        value = float(timeout_ms)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"timeout_ms must be a number, not {timeout_ms!r}") from exc
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"timeout_ms must be positive and finite, not {timeout_ms!r}")
    ms = max(1, math.ceil(value))
    return min(ms, ceiling_ms) if ceiling_ms else ms


def _param_value(value: Any, where: str, depth: int = 0) -> Any:
    if depth > MAX_PARAM_DEPTH:
        raise UnsafeQueryError(f"{where} is nested more than {MAX_PARAM_DEPTH} levels deep")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if "\x00" in value:
            raise UnsafeQueryError(f"{where} contains a NUL byte")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise UnsafeQueryError(f"{where} is not valid UTF-8 text") from exc
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        if not math.isfinite(float(value)):
            raise UnsafeQueryError(f"{where} is {value!r}; Cypher has no NaN or infinity")
        return float(value)
    if isinstance(value, list | tuple):
        return [_param_value(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, Mapping):
        out = {}
        for key, v in value.items():
            if not isinstance(key, str) or not key or "`" in key or "\x00" in key:
                raise UnsafeQueryError(f"{where} has a map key FalkorDB cannot take: {key!r}")
            out[key] = _param_value(v, f"{where}[{key!r}]", depth + 1)
        return out
    raise UnsafeQueryError(f"{where} is a {type(value).__name__}, which Cypher cannot take")


def check_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """A validated plain copy of ``params``; :class:`UnsafeQueryError` for what cannot be sent.

    Names must be plain identifiers (what ``$name`` can refer to); values may be None, bools,
    finite numbers, strings without NUL bytes, and lists and maps of those.
    """
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise UnsafeQueryError(f"params must be a mapping, not {type(params).__name__}")
    out = {}
    for name, value in params.items():
        if not isinstance(name, str) or not _PARAM_NAME_RE.match(name):
            raise UnsafeQueryError(
                f"parameter name {name!r} is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)"
            )
        out[name] = _param_value(value, f"parameter {name!r}")
    return out


def _int_value(text: str, params: Mapping[str, Any]) -> int | None:
    """The integer an argument denotes when it is known before execution, else None.

    Integer literals, ``$params`` holding integers, and ``+ - *`` and parentheses over them
    (``2 * 1000000000``) are evaluated; anything else (a variable, a function) is not.
    """

    def substitute(m: re.Match[str]) -> str:
        value = params.get(m.group(1))
        if isinstance(value, bool) or not isinstance(value, int):
            raise LookupError
        return f"({value})"

    try:
        tree = ast.parse(_PARAM_REF_RE.sub(substitute, text.strip()), mode="eval")
    except (LookupError, SyntaxError, ValueError):
        return None

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            return -ev(node.operand) if isinstance(node.op, ast.USub) else ev(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult):
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            return left - right if isinstance(node.op, ast.Sub) else left * right
        raise LookupError

    try:
        return ev(tree.body)
    except (LookupError, RecursionError):
        return None


def check_ranges(cypher: str, params: Mapping[str, Any] | None = None) -> None:
    """Refuse a ``range()`` known before execution to hold more than :data:`MAX_RANGE_ITEMS`.

    FalkorDB evaluates ``range(1, 2000000000)`` while planning, filling a 32 GB list before the
    timeout is ever checked. Ranges whose bounds are only known at run time are left to the
    server's memory cap and the embedded server's watchdog.
    """
    masked = mask(cypher)
    for m in _RANGE_RE.finditer(masked):
        if is_name_position(masked, m.start()):
            continue
        values = [_int_value(cypher[a:b], params or {}) for a, b in call_args(masked, m.end() - 1)]
        if len(values) not in (2, 3) or any(v is None for v in values):
            continue
        start, end = values[0], values[1]
        step = values[2] if len(values) == 3 else 1
        if not step:
            continue  # the server reports a zero step itself
        size = max(0, (end - start) // step + 1)
        if size > MAX_RANGE_ITEMS:
            raise UnsafeQueryError(
                f"range() of {size:,} items exceeds the store's limit of {MAX_RANGE_ITEMS:,}"
            )


def _limit_value(arg: str, params: Mapping[str, Any]) -> int | None:
    arg = arg.strip()
    if arg.isdigit():
        return int(arg)
    m = re.fullmatch(r"\$([A-Za-z_]\w*)", arg)
    value = params.get(m.group(1)) if m else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def limit_query(cypher: str, max_rows: int, params: Mapping[str, Any] | None = None) -> str:
    """``cypher`` without a trailing ``;``, each final ``RETURN`` limited to ``max_rows + 1``.

    The ``+1`` row tells ``read`` whether to set ``truncated``. In every top-level ``UNION``
    branch, the last ``RETURN`` gets ``LIMIT max_rows+1`` appended when it has none; an explicit
    ``LIMIT`` above that (a literal or an integer ``$param``) is rewritten down to it, and one
    that is neither raises :class:`UnsafeQueryError`. Under ``UNION`` (not ``UNION ALL``) a
    limited branch also gets ``DISTINCT``, so the limit counts distinct rows as the union does.
    Queries without a top-level ``RETURN`` (a standalone ``CALL``) are bounded by the server's
    result-set cap.
    """
    params = params or {}
    masked = mask(cypher).rstrip()
    query = cypher[: len(masked)]
    if masked.endswith(";"):
        masked, query = masked[:-1].rstrip(), query[:-1].rstrip()
    depth = depths(masked)
    marks = [
        (m.start(), m.end(), m.group(1).upper())
        for m in _TOP_LEVEL_RE.finditer(masked)
        if depth[m.start()] == 0
        and not is_name_position(masked, m.start())
        and next_char(masked, m.end()) != ":"
    ]
    unions = [mark for mark in marks if mark[2] == "UNION"]
    distinct = bool(unions) and next_word(masked, unions[0][1]) != "ALL"
    bounds = [0, *(u[0] for u in unions), len(masked)]
    cap = max_rows + 1
    edits: list[tuple[int, int, str]] = []
    for b_start, b_end in itertools.pairwise(bounds):
        inside = [mark for mark in marks if b_start <= mark[0] < b_end]
        returns = [mark for mark in inside if mark[2] == "RETURN"]
        if not returns:
            continue
        last = returns[-1]
        limits = [mark for mark in inside if mark[2] == "LIMIT" and mark[0] > last[0]]
        if limits:
            arg_start, arg_end = limits[-1][1], b_end
            value = _limit_value(masked[arg_start:arg_end], params)
            if value is None:
                raise UnsafeQueryError(
                    "LIMIT must be an integer literal or an integer $parameter: "
                    f"{query[arg_start:arg_end].strip()[:40]!r}"
                )
            if value <= cap:
                continue
            edits.append((arg_start, arg_end, f" {cap}\n" if b_end < len(masked) else f" {cap}"))
        else:
            text = f"\nLIMIT {cap}\n" if b_end < len(masked) else f"\nLIMIT {cap}"
            edits.append((b_end, b_end, text))
        if distinct and next_word(masked, last[1]) != "DISTINCT":
            edits.append((last[1], last[1], " DISTINCT"))
    for start, end, text in sorted(edits, reverse=True):
        query = query[:start] + text + query[end:]
    return query
