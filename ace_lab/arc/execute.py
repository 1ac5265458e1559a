"""Running one Cypher query for ArcRAG: bounded, read-only, timed, and recorded in the trace.

Every query ArcRAG sends (introspection, anchors, explorers, generated subplans, replays) goes
through :func:`run_cypher`, which uses the store's read-only path (``GraphStore.read``: guard,
row cap, timeout) and never raises for a bad query: the error becomes part of the
:class:`QueryRecord`. The open trace step lists the query's text (``step.queries``); the
records themselves go to the open :func:`query_log` (every query of one answer, in order), from
which the stages' payloads take theirs (:meth:`QueryRecord.recorded`) and the answer's
statistics count them.

Variable-length patterns are bounded before the store sees them: ``-[*]->``, ``-[*2..]->`` and
ranges past :data:`MAX_HOPS` are rewritten to at most :data:`MAX_HOPS` hops (recorded), since a
model-written unbounded path is the cheapest way to time out on a dense graph.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ace_lab.arc.steps import CypherQuery
from ace_lab.evidence import current_step
from ace_lab.graph.store import GraphStore
from ace_lab.graph.store.cypher_text import mask

#: Longest variable-length pattern a query may traverse.
MAX_HOPS = 4
#: Rows of one query kept in its trace payload, which records keep too (``n_rows`` is exact).
TRACE_ROWS = 5

#: A relationship pattern's brackets: ``-[ ... ]-`` (``[`` right after a dash).
_REL_BRACKET = re.compile(r"-\s*\[([^\[\]]*)\]")
#: The length part of a relationship pattern: ``*``, ``*3``, ``*1..``, ``*..3``, ``*1..3``.
_LENGTH = re.compile(r"\*\s*(\d*)\s*(\.\.\s*(\d*))?")


@dataclass(frozen=True)
class QueryRecord:
    """One executed (or refused) query: what was sent and what came back."""

    text: str
    params: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)
    columns: tuple[str, ...] = ()
    truncated: bool = False
    ms: float = 0.0
    error: str | None = None
    purpose: str = ""
    rewritten: str | None = None  # why the text was changed before running (bounded paths)
    #: The text that ran when it is not ``text`` (``run_cypher(shown=...)``: an index-served
    #: form of a template with the same rows); kept out of the trace payload.
    executed: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def n_rows(self) -> int:
        return len(self.rows)

    def recorded(self, rows: int = TRACE_ROWS) -> CypherQuery:
        """The trace's payload of this query: every field, the rows cut to ``rows``."""
        return CypherQuery(
            text=self.text,
            params=dict(self.params),
            rows=tuple(self.rows[:rows]),
            n_rows=self.n_rows,
            columns=self.columns,
            truncated=self.truncated,
            ms=round(self.ms, 2),
            error=self.error,
            purpose=self.purpose,
            rewritten=self.rewritten,
        )


#: Every query run while a :func:`query_log` is open (worker threads append to the same list).
_LOG: ContextVar[list[QueryRecord] | None] = ContextVar("ace_lab_arc_queries", default=None)


@contextmanager
def query_log() -> Iterator[list[QueryRecord]]:
    """Collect every query :func:`run_cypher` records inside the block, in order."""
    log: list[QueryRecord] = []
    token = _LOG.set(log)
    try:
        yield log
    finally:
        _LOG.reset(token)


def bound_paths(cypher: str, max_hops: int = MAX_HOPS) -> tuple[str, str | None]:
    """``cypher`` with every variable-length pattern bounded to ``max_hops``, and a note of
    what changed (None when nothing did). Literals and comments are left alone."""
    masked = mask(cypher)
    edits: list[tuple[int, int, str]] = []
    for bracket in _REL_BRACKET.finditer(masked):
        inner_start = bracket.start(1)
        m = _LENGTH.search(bracket.group(1))
        if m is None:
            continue
        low_text, has_range, high_text = m.group(1), m.group(2), m.group(3)
        low = int(low_text) if low_text else 1
        if has_range:
            high = int(high_text) if high_text else None
        else:
            high = int(low_text) if low_text else None
        new_high = max_hops if high is None else min(high, max_hops)
        new_low = min(low, new_high)
        if high is not None and high <= max_hops and low == new_low:
            continue
        edits.append((inner_start + m.start(), inner_start + m.end(), f"*{new_low}..{new_high}"))
    if not edits:
        return cypher, None
    out = cypher
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end:]
    return out, f"bounded {len(edits)} variable-length pattern(s) to ≤{max_hops} hops"


def run_cypher(
    store: GraphStore,
    cypher: str,
    params: dict[str, Any] | None = None,
    *,
    timeout_ms: int,
    max_rows: int,
    purpose: str = "",
    record: bool = True,
    shown: str | None = None,
    refused: str | None = None,
) -> QueryRecord:
    """Run ``cypher`` read-only within ``timeout_ms`` and ``max_rows``; errors are returned.

    The query's text is listed on the open trace step and its record joins the open
    :func:`query_log` (``record=False``: neither), so every query a stage sends is visible with
    its parameters, rows, truncation, time and error. ``shown``: the text recorded in place of
    ``cypher``, which must return the same rows in the same order (a template's text, run in an
    index-served form; ``QueryRecord.executed`` keeps what ran). ``refused``: a reason not to
    run ``cypher`` at all, recorded as its error (a reply outside the schema grammar).
    """
    params = dict(params or {})
    text = (cypher or "").strip()
    rewritten = None
    start = time.perf_counter()
    if not text:
        result = QueryRecord(text, params, error="EmptyQuery: no Cypher was given", purpose=purpose)
    elif refused is not None:
        result = QueryRecord(text, params, error=refused, purpose=purpose)
    else:
        text, rewritten = bound_paths(text)
        run, executed = text, None
        if shown is not None:
            text, executed = bound_paths(shown.strip())[0], run
        try:
            read = store.read(run, params, timeout_ms=timeout_ms, max_rows=max_rows)
            result = QueryRecord(
                text,
                params,
                read.rows,
                tuple(read.columns),
                read.truncated,
                read.elapsed_ms,
                purpose=purpose,
                rewritten=rewritten,
                executed=executed,
            )
        except Exception as exc:  # a model-written query may fail in any way; record why
            ms = (time.perf_counter() - start) * 1000
            error = f"{type(exc).__name__}: {str(exc)[:300]}"
            result = QueryRecord(
                text,
                params,
                ms=ms,
                error=error,
                purpose=purpose,
                rewritten=rewritten,
                executed=executed,
            )
    if record:
        step = current_step()
        if step is not None:
            step.queries.append(result.text)
        log = _LOG.get()
        if log is not None:
            log.append(result)
    return result
