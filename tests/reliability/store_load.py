"""Concurrent Cypher reads: 8 threads share one embedded store; every answer right, no error.

The graph is :func:`~tests.reliability.hostile_cypher.hostile_tables` (120 nodes, 480 edges).
Each thread runs its own seeded mix of reads whose answers are computed from the GraphTables
with pandas: a node's name by id, a node's degree, the neighbours of a node (a sorted list),
the node count per label, a bounded two-hop reach, and a capped scan that must come back
truncated at ``max_rows``. A read *holds* when it returns exactly the expected rows; any
exception or wrong answer fails it. The server restarting under the load (it must not) is
reported in the note.
"""

from __future__ import annotations

import random
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

from ace_lab.graph.store import EmbeddedFalkorDB, GraphStore
from ace_lab.graph.tables import GraphTables
from tests.reliability.hostile_cypher import hostile_tables

PROPERTY = "concurrent Cypher reads"
THREADS = 8
READS_FULL, READS_FAST = 50, 10  # per thread


def _expectations(tables: GraphTables) -> dict[str, Any]:
    nodes, edges = tables.nodes, tables.edges
    neighbours: dict[str, set[str]] = {i: set() for i in nodes["id"]}
    degree = dict.fromkeys(nodes["id"], 0)
    for s, t in zip(edges["source"], edges["target"], strict=True):
        neighbours[s].add(t)
        neighbours[t].add(s)
        degree[s] += 1
        degree[t] += s != t  # a self-loop matches (n)-[r]-() once
    return {
        "name": dict(zip(nodes["id"], nodes["name"], strict=True)),
        "degree": degree,
        "neighbours": neighbours,
        "labels": nodes["label"].value_counts().to_dict(),
    }


def _checks(exp: dict[str, Any]) -> list[Callable[[GraphStore, random.Random], str | None]]:
    """Each check runs one read and returns None when it was right, else what was wrong."""
    ids = sorted(exp["name"])

    def name(store: GraphStore, rng: random.Random) -> str | None:
        i = rng.choice(ids)
        rows = store.read("MATCH (n {id: $id}) RETURN n.name AS name", {"id": i}).rows
        return None if rows == [{"name": exp["name"][i]}] else f"name of {i}: {rows}"

    def degree(store: GraphStore, rng: random.Random) -> str | None:
        i = rng.choice(ids)
        rows = store.read("MATCH (n {id: $id})-[r]-() RETURN count(r) AS c", {"id": i}).rows
        return None if rows == [{"c": exp["degree"][i]}] else f"degree of {i}: {rows}"

    def around(store: GraphStore, rng: random.Random) -> str | None:
        i = rng.choice(ids)
        cypher = "MATCH (n {id: $id})--(m) WHERE m.id <> $id RETURN DISTINCT m.id AS id"
        got = {r["id"] for r in store.read(cypher, {"id": i}).rows}
        want = exp["neighbours"][i] - {i}
        return None if got == want else f"neighbours of {i}: {len(got)} != {len(want)}"

    def labels(store: GraphStore, rng: random.Random) -> str | None:
        cypher = "MATCH (n) RETURN labels(n)[0] AS label, count(n) AS c"
        got = {r["label"]: r["c"] for r in store.read(cypher).rows}
        return None if got == exp["labels"] else f"labels: {got}"

    def two_hops(store: GraphStore, rng: random.Random) -> str | None:
        i = rng.choice(ids)
        cypher = "MATCH (n {id: $id})-[*1..2]-(m) WHERE m.id <> $id RETURN DISTINCT m.id AS id"
        got = {r["id"] for r in store.read(cypher, {"id": i}, max_rows=500).rows}
        one = exp["neighbours"][i]
        want = (one | {k for j in one for k in exp["neighbours"][j]}) - {i}
        return None if got == want else f"two hops of {i}: {len(got)} != {len(want)}"

    def capped(store: GraphStore, rng: random.Random) -> str | None:
        k = rng.randint(1, 40)
        result = store.read("MATCH (n) RETURN n.id AS id", max_rows=k)
        ok = len(result.rows) == k and result.truncated
        return None if ok else f"cap {k}: {len(result.rows)} rows, truncated={result.truncated}"

    return [name, degree, around, labels, two_hops, capped]


def _worker(
    store: GraphStore, checks: list[Callable[..., str | None]], n: int, seed: int, out: list[str]
) -> None:
    rng = random.Random(seed)
    for _ in range(n):
        check = rng.choice(checks)
        try:
            wrong = check(store, rng)
        except Exception as exc:
            wrong = f"{check.__name__}: {type(exc).__name__}: {exc}"[:160]
        out.append(wrong or "")


def run(full: bool) -> dict[str, Any]:
    """The row plus its ``failures`` (one entry per wrong or failed read)."""
    per_thread = READS_FULL if full else READS_FAST
    tables = hostile_tables()
    checks = _checks(_expectations(tables))
    results: list[list[str]] = [[] for _ in range(THREADS)]
    with tempfile.TemporaryDirectory() as tmp, EmbeddedFalkorDB(tmp, graph="load") as store:
        store.load(tables)
        threads = [
            threading.Thread(target=_worker, args=(store, checks, per_thread, seed, results[seed]))
            for seed in range(THREADS)
        ]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.perf_counter() - start
        restarts = store.server.restarts
    outcomes = [r for rs in results for r in rs]
    failures = [r for r in outcomes if r]
    if restarts:  # nothing here should need the watchdog
        failures.append(f"the server restarted {restarts} times under plain reads")
    note = (
        f"{THREADS} threads x {per_thread} reads on one store in {seconds:.1f} s "
        f"({len(outcomes) / seconds:.0f} reads/s); server restarts {restarts}"
    )
    if failures:
        note = f"{len(failures)} failed, e.g. {failures[0]} | {note}"
    failed = min(len(failures), len(outcomes))
    return {
        "property": PROPERTY,
        "attempts": len(outcomes),
        "held": len(outcomes) - failed,
        "failed": failed,
        "note": note,
        "failures": failures,
    }


def measure(full: bool) -> list[dict[str, Any]]:
    row = run(full)
    return [{k: v for k, v in row.items() if k != "failures"}]
