"""Hostile Cypher through ``GraphStore.read`` on a loaded graph: nothing written, nothing runaway.

One embedded FalkorDB store holds a seeded graph (120 nodes in three labels, 480 edges, names
and texts that contain Cypher keywords). Three rows:

* **writes** — CREATE, MERGE, SET, DELETE, DETACH DELETE, REMOVE, FOREACH, LOAD CSV, write
  procedures, writes hidden in ``CALL {}`` subqueries and after aliases, several statements,
  NUL bytes, lone surrogates, odd parameter names and parameter values that carry Cypher; each
  in several spellings (random case, comments between tokens, tabs and newlines, a trailing
  ``;``). Every attempt goes through ``read`` (guard + server) *and*, separately, through the
  backend's low-level read path ``_execute`` with no guard. It holds when the graph's
  fingerprint (node and edge counts, a hash of every node, edge, label, type, key and index)
  is unchanged after both, only ``StoreError``\\s came out, and, for an attempt meant to write
  or reach outside the graph, the guard refused it before execution.
* **explosive reads** — huge ``range()`` lists (literal, parameter, computed), explicit huge
  LIMITs, the same with a NUL byte, unbounded variable-length paths, cartesian products, huge
  single expressions the server's own timeout cannot interrupt, huge replies. It holds when
  ``read`` returned (rows within ``max_rows``) or raised a ``StoreError`` within its timeout
  plus the watchdog's grace plus :data:`MARGIN_S`, the server's memory (sampled every 5 ms)
  stayed under the watchdog's ceiling plus :data:`MEMORY_SLACK`, and the store then answers a
  plain read correctly.
* **guard false positives** — a hand-written set of legitimate reads (aliases named
  ``set``/``merge``/``drop``/..., strings and comments containing writes, ``CALL db.labels()``,
  OPTIONAL MATCH, UNION, WITH, bounded variable-length paths, parameters): each must run.

The queries of the three rows are in :mod:`tests.reliability.hostile_queries`.
"""

from __future__ import annotations

import hashlib
import json
import random
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import psutil

from ace_lab.graph.store import (
    EmbeddedFalkorDB,
    StoreError,
    UnsafeQueryError,
    WriteQueryError,
    check_params,
    check_ranges,
    check_read_only,
    limit_query,
)
from ace_lab.graph.store.cypher_text import mask
from ace_lab.graph.tables import GraphTables
from tests.reliability.hostile_queries import EXPLOSIVE_READS, LEGITIMATE_READS, WRITE_ATTEMPTS

WRITES, EXPLOSIVE, FALSE_POSITIVES = (
    "hostile Cypher: writes",
    "hostile Cypher: explosive reads",
    "guard false positives",
)
MARGIN_S = 1.0  # beyond timeout + the watchdog's grace, for a restart and a loaded CI machine
MEMORY_SLACK = 256 * 1024 * 1024  # the watchdog samples every 20 ms; memory grows in between
SEED = 13


def hostile_tables(n: int = 120, edges: int = 480) -> GraphTables:
    """A seeded graph whose names and texts carry Cypher keywords (all inert data)."""
    rng = random.Random(SEED)
    words = ["Set theory", "Create Labs", "MERGE (a)", "DELETE n", "drop", "Remove", "x"]
    nodes = [
        {
            "id": f"{label[0].lower()}{i}",
            "label": label,
            "name": f"{rng.choice(words)} {i}",
            "description": f"text {i}: MATCH (n) DETACH DELETE n; CREATE (:Pwned)",
            "level": i % 3,
            "source_ids": [f"c{i % 7}"],
        }
        for i, label in ((i, ("Entity", "Person", "Chunk")[i % 3]) for i in range(n))
    ]
    ids = [node["id"] for node in nodes]
    rels = [
        {
            "id": f"r{k}",
            "source": rng.choice(ids),
            "target": rng.choice(ids),
            "type": rng.choice(["RELATED", "MENTIONS"]),
            "weight": round(rng.random(), 3),
        }
        for k in range(edges)
    ]
    return GraphTables.from_records(nodes, rels, {"family": "hostile"})


def fingerprint(store: EmbeddedFalkorDB) -> tuple[int, int, str]:
    """(nodes, edges, sha256 of every node and edge with its properties, every label, type and
    index): what a write would change."""
    graph = store._graph  # the raw client: no guard, no bounds, no row cap
    parts = [
        graph.ro_query(cypher).result_set
        for cypher in (
            "MATCH (n) RETURN n.id, labels(n), properties(n) ORDER BY n.id",
            "MATCH (a)-[r]->(b) RETURN a.id, type(r), properties(r), b.id ORDER BY r.id, a.id",
            "CALL db.labels()",
            "CALL db.relationshipTypes()",
            "CALL db.indexes()",
        )
    ]
    blob = json.dumps(parts, sort_keys=True, default=str)
    return len(parts[0]), len(parts[1]), hashlib.sha256(blob.encode()).hexdigest()[:16]


def property_keys(store: EmbeddedFalkorDB) -> set[str]:
    """The graph's registered property-key names (``db.propertyKeys()``)."""
    return {str(row[0]) for row in store._graph.ro_query("CALL db.propertyKeys()").result_set}


# ------------------------------------------------------------------------------ writes
def _spellings(cypher: str, rng: random.Random) -> list[str]:
    """The same query in other spellings the server reads alike (outside literals only)."""
    masked = mask(cypher)
    code = [i for i, ch in enumerate(cypher) if masked[i] == ch and ch.isalpha()]
    spaces = [i for i, ch in enumerate(cypher) if ch == " " and masked[i] == " "]
    spaces = [i for i in spaces if cypher[i - 1] != "\\"]

    def at_spaces(text: str) -> str:
        chars = list(cypher)
        for i in rng.sample(spaces, min(3, len(spaces))):
            chars[i] = text
        return "".join(chars)

    cased = list(cypher)
    for i in code:
        cased[i] = cased[i].upper() if rng.random() < 0.5 else cased[i].lower()
    return [
        "".join(cased),
        at_spaces(" /* c */ "),
        at_spaces(rng.choice(["\n", "\t", "  \n  "])),
        f"// leading comment\n{cypher.rstrip(';')} ;",
    ]


def write_attempts(full: bool) -> list[tuple[str, dict[str, Any] | None, bool]]:
    """Every base attempt in four more spellings (full); every other one, a few respelt (fast)."""
    rng = random.Random(SEED)
    out = []
    for i, (cypher, params, meant) in enumerate(WRITE_ATTEMPTS):
        if not full and i % 2:
            continue
        out.append((cypher, params, meant))
        if meant and (full or i % 6 == 0):
            variants = _spellings(cypher, rng)
            out.extend((v, params, True) for v in (variants if full else variants[:1]))
    return out


def _pre_execution_refuses(cypher: str, params: dict[str, Any] | None) -> bool:
    try:
        checked = check_params(params)
        check_read_only(cypher)
        check_ranges(cypher, checked)
        limit_query(cypher, 10, checked)
    except (WriteQueryError, UnsafeQueryError):
        return True
    return False


def _run_writes(store: EmbeddedFalkorDB, full: bool) -> dict[str, Any]:
    baseline = fingerprint(store)
    attempts = write_attempts(full)
    failures: list[str] = []
    guard_refused = server_refused = 0
    key_names: set[str] = set()
    for cypher, params, meant in attempts:
        restarts = store.server.restarts
        keys = property_keys(store)
        problems = []
        refused = _pre_execution_refuses(cypher, params)
        guard_refused += refused
        if meant and not refused:
            problems.append("guard let it through")
        for path in ("read", "server"):
            try:
                if path == "read":
                    store.read(cypher, params, timeout_ms=2000)
                else:
                    store._execute(cypher, params or {}, 2000, 11)
            except StoreError:
                server_refused += path == "server"
            except Exception as exc:
                problems.append(f"{path}: {type(exc).__name__}: {exc}"[:120])
            if fingerprint(store) != baseline:
                problems.append(f"{path}: the graph changed")
                store.load(hostile_tables())  # restore for the next attempt
            added = property_keys(store) - keys
            if added and path == "read":
                problems.append(f"read registered property keys {sorted(added)}")
            key_names |= added
        if store.server.restarts != restarts:
            problems.append("the server restarted (a reload would hide a write)")
        if problems:
            failures.append(f"{cypher[:50]!r}: {'; '.join(problems)}")
    note = (
        f"guard refused {guard_refused}/{len(attempts)} before execution; the low-level "
        f"read path (no guard) raised on {server_refused}/{len(attempts)}; graph "
        f"{baseline[0]} nodes/{baseline[1]} edges unchanged after every attempt"
    )
    if key_names:  # FalkorDB interns a refused CREATE's keys while planning it
        note += (
            f"; without the guard, FalkorDB's read-only path registered {len(key_names)} "
            "property-key names of refused CREATE maps (names only, no data)"
        )
    return _row(WRITES, len(attempts), failures, note)


# ------------------------------------------------------------------------------ explosive
@contextmanager
def _memory_sampler(store: EmbeddedFalkorDB) -> Iterator[list[int]]:
    """Peak resident memory of the (current) server process, sampled every 5 ms."""
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            with suppress(psutil.Error, TypeError, ValueError):
                peak[0] = max(peak[0], psutil.Process(store.server.pid).memory_info().rss)
            time.sleep(0.005)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        stop.set()
        thread.join()


def _run_explosive(store: EmbeddedFalkorDB, full: bool) -> dict[str, Any]:
    cases = EXPLOSIVE_READS if full else EXPLOSIVE_READS[:6]
    timeout_ms = 500 if full else 300
    grace_s = store.server.limits.grace_ms / 1000
    expected = store.count()
    failures, worst_s, worst_mb, outcomes = [], 0.0, 0.0, {}
    for cypher, params in cases:
        start = time.perf_counter()
        with _memory_sampler(store) as peak:
            try:
                result = store.read(cypher, params, timeout_ms=timeout_ms, max_rows=1000)
                outcome = "rows" if len(result.rows) <= 1000 else "too many rows"
            except StoreError as exc:
                outcome = type(exc).__name__
            except Exception as exc:
                outcome = f"crash {type(exc).__name__}: {exc}"[:100]
        elapsed = time.perf_counter() - start
        ceiling = store.server.watchdog.ceiling_bytes + MEMORY_SLACK
        worst_s, worst_mb = max(worst_s, elapsed), max(worst_mb, peak[0] / 2**20)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        problems = []
        if outcome.startswith(("crash", "too many")):
            problems.append(outcome)
        if elapsed > timeout_ms / 1000 + grace_s + MARGIN_S:
            problems.append(f"took {elapsed:.2f} s")
        if peak[0] > ceiling:
            problems.append(f"server grew to {peak[0] / 2**20:.0f} MB")
        try:
            if store.count() != expected:
                problems.append("the graph changed")
        except StoreError as exc:
            problems.append(f"no plain read afterwards: {exc}"[:80])
        if problems:
            failures.append(f"{cypher[:50]!r}: {'; '.join(problems)}")
    shown = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    note = (
        f"timeout {timeout_ms} ms: slowest stop {worst_s:.2f} s (limit timeout + "
        f"{grace_s + MARGIN_S:.1f} s), peak server memory {worst_mb:.0f} MB (ceiling "
        f"{store.server.watchdog.ceiling_bytes / 2**20:.0f} MB); {shown}; "
        f"server restarts {store.server.restarts}"
    )
    return _row(EXPLOSIVE, len(cases), failures, note)


# ------------------------------------------------------------------------------ false positives
def _run_false_positives(store: EmbeddedFalkorDB) -> dict[str, Any]:
    failures = []
    for cypher, params in LEGITIMATE_READS:
        try:
            store.read(cypher, params, timeout_ms=5000)
        except (WriteQueryError, UnsafeQueryError) as exc:
            failures.append(f"{cypher[:50]!r} rejected: {exc}"[:160])
        except StoreError as exc:
            failures.append(f"{cypher[:50]!r} failed on the server: {exc}"[:160])
    note = f"{len(LEGITIMATE_READS)} hand-written reads (no ArcRAG recorded Cypher exists yet)"
    return _row(FALSE_POSITIVES, len(LEGITIMATE_READS), failures, note)


# ------------------------------------------------------------------------------ measure
def _row(prop: str, attempts: int, failures: list[str], note: str) -> dict[str, Any]:
    if failures:
        note = f"{len(failures)} failed, e.g. {failures[0]} | {note}"
    return {
        "property": prop,
        "attempts": attempts,
        "held": attempts - len(failures),
        "failed": len(failures),
        "note": note,
        "failures": failures,
    }


def run(full: bool) -> list[dict[str, Any]]:
    """The three rows, each with its list of ``failures``, on one embedded store."""
    with tempfile.TemporaryDirectory() as tmp, EmbeddedFalkorDB(tmp, graph="hostile") as store:
        store.load(hostile_tables())
        rows = [_run_writes(store, full), _run_explosive(store, full)]
        rows.append(_run_false_positives(store))
    return rows


def measure(full: bool) -> list[dict[str, Any]]:
    """The three table rows (attempts / held / failed / note)."""
    return [{k: v for k, v in row.items() if k != "failures"} for row in run(full)]
