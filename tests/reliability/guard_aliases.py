"""The read-only guard and the word ``call``: a column or variable named ``call`` (any case,
back-quoted or not) is a read that FalkorDB runs, and a real ``CALL`` of a procedure written
after such a name is still rejected (issue 40, item 3)."""

from __future__ import annotations

from typing import Any

from ace_lab.graph.store import StoreError, WriteQueryError, check_read_only

ROW = "guard: a name 'call' is a read, a CALL behind it is not"

#: Reads that use ``call`` as a name; each must pass the guard.
READS: tuple[str, ...] = (
    "MATCH (n) RETURN n.name AS call",
    "MATCH (n) RETURN n.name AS call ORDER BY call",
    "MATCH (n) RETURN n.name AS Call",
    "MATCH (n) RETURN n.name AS CALL",
    "MATCH (n) RETURN n.name AS `call`",
    "UNWIND [1, 2] AS call RETURN call * 2 AS x",
    "MATCH (n) WITH n.name AS call RETURN call",
    "MATCH (n) WITH n AS call WHERE call.name <> '' RETURN call.name AS name",
    "MATCH (n) RETURN n.name AS calls, n.id AS recall",
    "MATCH (n) RETURN {call: n.name} AS x",
    "RETURN {CALL: 1, x: 2} AS m",
    "MATCH (n) RETURN n.call AS call LIMIT 3",
)
#: A procedure call hidden behind a variable named ``call``; each must be rejected.
HIDDEN_CALLS: tuple[str, ...] = (
    "MATCH (n) RETURN n AS call CALL dbms.killQuery(1)",
    "WITH 1 AS call CALL db.createLabel('x') YIELD x RETURN x",
    "RETURN 1 AS call UNION CALL something.else()",
    "WITH 1 AS Call CALL db.idx.fulltext.drop('Chunk') RETURN 1",
    "UNWIND [1] AS call CALL dbms.killQuery(1) RETURN 1",
    "MATCH (n) WITH n AS call\nCALL db.createLabel('y') RETURN 1",
    "WITH 1 AS `call` CALL db.idx.vector.createNodeIndex('x') RETURN 1",
)


def _outcome(cypher: str) -> str:
    try:
        check_read_only(cypher)
        return "accepted"
    except WriteQueryError:
        return "rejected"
    except StoreError as exc:
        return f"rejected ({type(exc).__name__})"
    except Exception as exc:  # the property: nothing else escapes
        return f"crash {type(exc).__name__}"


def measure(full: bool) -> list[dict[str, Any]]:
    """One row: every read accepted, every hidden CALL rejected (the same cases at both scales)."""
    failures = [f"{c!r} {o}" for c in READS if (o := _outcome(c)) != "accepted"]
    failures += [f"{c!r} {o}" for c in HIDDEN_CALLS if not (o := _outcome(c)).startswith("rej")]
    attempts = len(READS) + len(HIDDEN_CALLS)
    note = f"{len(READS)} reads naming 'call' accepted, {len(HIDDEN_CALLS)} hidden CALLs rejected"
    if failures:
        note += "; failures: " + "; ".join(f[:80] for f in failures[:3])
    return [
        {
            "property": ROW,
            "attempts": attempts,
            "held": attempts - len(failures),
            "failed": len(failures),
            "note": note,
        }
    ]
