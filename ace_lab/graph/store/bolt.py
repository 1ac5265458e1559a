"""The Bolt backend: Neo4j or Memgraph through the ``neo4j`` driver, with the same loading Cypher.

The driver is imported when a store is made, so FalkorDB users never need ``neo4j`` installed.
"""

from __future__ import annotations

from typing import Any

from ace_lab.graph.store.base import DEFAULT_TIMEOUT_MS, GraphStore
from ace_lab.graph.store.errors import QueryTimeout, StoreError, WriteQueryError
from ace_lab.graph.store.load_plan import cypher_name


def _bolt_timeout(exc: BaseException) -> bool:
    code = str(getattr(exc, "code", "") or "")
    return "TimedOut" in code or "timed out" in str(exc).lower()


class BoltStore(GraphStore):
    """Neo4j or Memgraph over Bolt: the whole ``database`` is this store's graph.

    ``load`` writes only into an empty database: one that holds anything is refused (its
    nodes may be someone else's) unless the store was made with ``replace=True``.

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
        replace: bool = False,
        driver: Any = None,
    ) -> None:
        import neo4j

        self._neo4j = neo4j
        self._driver = driver or neo4j.GraphDatabase.driver(uri, auth=auth)
        self.database = database
        self.replace = replace
        self._closed = False

    def holds(self, tables: Any) -> bool:
        """Whether the database already holds exactly these tables' node and edge counts and
        their first node ids (then a load would change nothing)."""
        if self.count() != (len(tables.nodes), len(tables.edges)):
            return False
        ids = [str(i) for i in tables.nodes["id"][:100]]
        found = self.read("MATCH (n) WHERE n.id IN $ids RETURN count(n) AS c", {"ids": ids})
        return int(found.rows[0]["c"]) == len(ids)

    def _session(self, read: bool) -> Any:
        mode = self._neo4j.READ_ACCESS if read else self._neo4j.WRITE_ACCESS
        return self._driver.session(database=self.database, default_access_mode=mode)

    def _write(self, cypher: str, params: dict[str, Any]) -> None:
        with self._session(read=False) as session:
            session.execute_write(lambda tx: tx.run(cypher, params).consume())

    def _clear(self) -> None:
        nodes, _ = self.count()
        if nodes and not self.replace:
            where = f"database {self.database!r}" if self.database else "the default database"
            raise StoreError(
                f"{where} holds {nodes} nodes ace_lab did not load: load into an empty "
                "database (bolt://host:port/<database>) or pass --replace to clear it"
            )
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
