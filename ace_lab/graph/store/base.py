"""The GraphStore interface: one GraphTables artefact as a Cypher graph, read-only to callers.

:class:`GraphStore` is the engine behind four calls: ``load`` (replace the content with a
:class:`~ace_lab.graph.tables.GraphTables`), ``schema`` (labels, relationship types and property
keys, as a prompt needs them), ``read`` (run model-written Cypher safely) and ``close``.
Validation, batching, row caps and timing live here so every backend behaves alike; a backend
implements only the hooks (``_clear``, ``_write``, ``_index``, ``_execute``, ``_schema_rows``,
``close``). The results it returns (:class:`GraphSchema`, :class:`ReadResult`) are plain data.
"""

from __future__ import annotations

import abc
import time
from dataclasses import dataclass, field
from typing import Any, Self

from ace_lab.graph.store.bounds import check_params, check_ranges, clamp_timeout, limit_query
from ace_lab.graph.store.guard import check_read_only
from ace_lab.graph.store.load_plan import edge_steps, node_steps
from ace_lab.graph.store.values import plain_value
from ace_lab.graph.tables import GraphTables

#: Default wall-clock budget of one read query, in milliseconds.
DEFAULT_TIMEOUT_MS = 5000
#: Default cap on the rows one read returns.
DEFAULT_MAX_ROWS = 1000


@dataclass(frozen=True)
class GraphSchema:
    """What a text-to-Cypher prompt needs to know about the graph (each tuple sorted)."""

    node_labels: tuple[str, ...]
    relationship_types: tuple[str, ...]
    property_keys: tuple[str, ...]


@dataclass(frozen=True)
class ReadResult:
    """Rows of one read query; ``truncated`` says more rows existed than ``max_rows``.

    Nodes come back as property dicts plus ``_labels``, relationships plus ``_type``, paths as
    ``{"nodes": [...], "relationships": [...]}``: plain data that serialises into a prompt.
    """

    columns: tuple[str, ...]
    rows: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    elapsed_ms: float = 0.0


class GraphStore(abc.ABC):
    """A Cypher property graph holding one :class:`GraphTables`; ``read`` is safe for LLM text.

    Subclasses implement the backend calls (``_clear``, ``_write``, ``_index``, ``_execute``,
    ``_schema_rows``, ``close``); validation, batching, row caps and timing live here so every
    backend behaves alike.
    """

    #: Longest timeout the server accepts, in ms (longer ones are clamped); None: no ceiling.
    timeout_ceiling_ms: int | None = None
    #: Most rows the server returns for one query; ``max_rows`` must stay below it.
    row_ceiling: int | None = None

    def load(self, tables: GraphTables) -> None:
        """Replace the graph's content with ``tables`` (nodes by label, then indexes, edges)."""
        tables.validate()
        self._clear()
        for label, steps in node_steps(tables):
            self._index(label)
            for step in steps:
                self._write(step.cypher, {"rows": step.rows})
        for step in edge_steps(tables):
            self._write(step.cypher, {"rows": step.rows})

    def schema(self) -> GraphSchema:
        """Labels, relationship types and property keys via the ``db.*`` procedures."""
        return GraphSchema(
            node_labels=tuple(sorted(self._schema_rows("labels"))),
            relationship_types=tuple(sorted(self._schema_rows("relationshipTypes"))),
            property_keys=tuple(sorted(self._schema_rows("propertyKeys"))),
        )

    def read(
        self,
        cypher: str,
        params: dict[str, Any] | None = None,
        timeout_ms: float = DEFAULT_TIMEOUT_MS,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> ReadResult:
        """Run one read-only query, bounded before it runs.

        Raises :class:`WriteQueryError` (a write, an unknown procedure), :class:`UnsafeQueryError`
        (control characters, odd parameters, a huge ``range()``), :class:`QueryTimeout`,
        :class:`ResourceLimitError` (memory or reply too large) or :class:`StoreError`; a
        ``ValueError`` only for a caller's own bad ``timeout_ms``/``max_rows``. At most
        ``max_rows`` rows come back (``truncated`` is set when there were more): the query is
        rewritten so the server never produces more than ``max_rows + 1``.
        """
        timeout = clamp_timeout(timeout_ms, self.timeout_ceiling_ms)
        if max_rows < 0 or (self.row_ceiling is not None and max_rows >= self.row_ceiling):
            raise ValueError(f"max_rows must be in [0, {self.row_ceiling}), not {max_rows}")
        checked = check_params(params)
        check_read_only(cypher)
        check_ranges(cypher, checked)
        query = limit_query(cypher, max_rows, checked)
        start = time.perf_counter()
        columns, rows = self._execute(query, checked, timeout, max_rows + 1)
        elapsed = (time.perf_counter() - start) * 1000
        return ReadResult(
            columns=tuple(columns),
            rows=[plain_value(dict(zip(columns, row, strict=True))) for row in rows[:max_rows]],
            truncated=len(rows) > max_rows,
            elapsed_ms=elapsed,
        )

    def count(self) -> tuple[int, int]:
        """(nodes, relationships) — a cheap sanity check after ``load``."""
        nodes = self.read("MATCH (n) RETURN count(n) AS c").rows[0]["c"]
        rels = self.read("MATCH ()-[r]->() RETURN count(r) AS c").rows[0]["c"]
        return int(nodes), int(rels)

    # backend hooks ------------------------------------------------------------------------
    @abc.abstractmethod
    def _clear(self) -> None:
        """Remove every node, relationship and id index of this graph."""

    @abc.abstractmethod
    def _index(self, label: str) -> None:
        """Create the ``id`` index of ``label`` (idempotent)."""

    @abc.abstractmethod
    def _write(self, cypher: str, params: dict[str, Any]) -> None:
        """Run one write statement (loading only; never reachable from ``read``)."""

    @abc.abstractmethod
    def _execute(
        self, cypher: str, params: dict[str, Any], timeout_ms: int, fetch: int
    ) -> tuple[list[str], list[list[Any]]]:
        """Run a checked query read-only; return column names and at most ``fetch`` rows."""

    @abc.abstractmethod
    def _schema_rows(self, what: str) -> list[str]:
        """Names from ``CALL db.<what>()`` (``labels``, ``relationshipTypes``, ...)."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release connections (and any server this store owns); safe to call twice."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
