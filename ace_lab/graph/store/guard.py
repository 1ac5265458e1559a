"""The read-only guard: model-written Cypher is checked here before it reaches any server.

This is the first of ``GraphStore.read``'s lines of defence (the read bounds, the backend's
read-only path and the server's limits are the others). :func:`check_read_only` rejects text
the server would misread (control characters: FalkorDB stops reading at a NUL byte), writes,
unknown procedures and multiple statements; literals, backtick identifiers and comments are
masked first (:mod:`~ace_lab.graph.store.cypher_text`) so ``WHERE n.name = "Set theory"``
passes, and a column aliased ``AS set`` (or ``merge``, ``drop``, ...) is a name, not a clause.
"""

from __future__ import annotations

import re

from ace_lab.graph.store.cypher_text import (
    defined_names,
    is_name_position,
    mask,
    next_char,
    next_word,
    prev_word,
)
from ace_lab.graph.store.errors import UnsafeQueryError, WriteQueryError

#: Longest query text ``read`` accepts (characters); model-written Cypher is a few hundred.
MAX_QUERY_CHARS = 65_536

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
#: ``CALL`` and its target, read ahead without consuming it: a variable named ``call`` must not
#: swallow the ``CALL`` clause that follows it (``AS call CALL x.y()``).
_CALL_RE = re.compile(
    r"\bCALL\b(?=\s*(\{|[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)?)", re.IGNORECASE | re.DOTALL
)
#: C0 control characters other than tab, newline and carriage return, and DEL.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: What may follow a variable in an expression (a clause keyword is followed by a name or "(").
_AFTER_VARIABLE = frozenset(",)]}.=<>*/%^|")
_AFTER_VARIABLE_WORDS = frozenset(
    (
        "AND",
        "OR",
        "XOR",
        "IS",
        "IN",
        "STARTS",
        "ENDS",
        "CONTAINS",
        "AS",
        "ORDER",
        "SKIP",
        "LIMIT",
        "ASC",
        "DESC",
        "ASCENDING",
        "DESCENDING",
        "WHERE",
        "RETURN",
        "WITH",
        "UNION",
        "MATCH",
        "OPTIONAL",
        "UNWIND",
        "CALL",
        "YIELD",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
    )
)
#: Words that are keywords when not defined as variables; a query that defines one of them
#: as a variable (FalkorDB allows ``MATCH (order)``) gets no benefit of the doubt at all.
_KEYWORDS = _AFTER_VARIABLE_WORDS | frozenset(
    ("BY", "NOT", "NULL", "TRUE", "FALSE", "CASE", "DISTINCT", "ALL", "EXISTS", "ON", "LOAD")
)


def check_text(cypher: str) -> None:
    """Raise :class:`UnsafeQueryError` for text the server would not read as it stands.

    FalkorDB reads the query as a C string, so everything after a NUL byte would silently be
    dropped (with it a ``LIMIT`` the store appended); other control characters have no place in
    Cypher; text that is not valid UTF-8 (lone surrogates) cannot be sent at all.
    """
    if len(cypher) > MAX_QUERY_CHARS:
        raise UnsafeQueryError(f"query of {len(cypher):,} characters (limit {MAX_QUERY_CHARS:,})")
    bad = _CONTROL_RE.search(cypher)
    if bad:
        raise UnsafeQueryError(
            f"control character {bad.group()!r} at offset {bad.start()} in the query"
        )
    try:
        cypher.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UnsafeQueryError(f"query is not valid UTF-8 text: {exc.reason}") from exc


def _is_variable(masked: str, start: int, end: int, names: set[str]) -> bool:
    """Whether the write keyword at ``start:end`` is used as a variable rather than a clause.

    True where it is being defined (``AS set``) or where a variable of that name was defined
    and the keyword is followed by what follows a variable in an expression (``, ) . = AND
    ORDER ...`` or the end), never by a name or ``(`` as a clause is. That reading of the
    neighbours holds only while no other keyword is a variable too (``MATCH (order) ...
    DELETE order``), so a query that defines one gets no exemption.
    """
    if names & _KEYWORDS:
        return False
    word = masked[start:end].upper()
    if prev_word(masked, start) == "AS":
        return True
    if word not in names:
        return False
    after = next_char(masked, end)
    if after == "" or after in _AFTER_VARIABLE:
        return True
    return next_word(masked, end) in _AFTER_VARIABLE_WORDS


def _is_call_variable(masked: str, start: int, names: set[str]) -> bool:
    """Whether ``CALL`` at ``start`` is a column or variable named ``call``: defined there
    (``AS call``) or, once defined, followed by what follows a variable (``ORDER BY call``,
    ``call + 1``), never by a procedure name or ``{`` as the clause is."""
    end = start + len("CALL")
    if prev_word(masked, start) == "AS":
        return True
    if "CALL" not in names:
        return False
    after = next_char(masked, end)
    if after == "" or after in _AFTER_VARIABLE:
        return True
    return next_word(masked, end) in _AFTER_VARIABLE_WORDS - {"CALL"}


def check_read_only(cypher: str) -> None:
    """Raise :class:`WriteQueryError` unless ``cypher`` is one read-only statement.

    Rejects, case-insensitively and on word boundaries, the clauses CREATE, MERGE, SET, DELETE,
    DETACH DELETE, REMOVE, DROP, LOAD CSV, FOREACH (and the admin verbs ALTER, RENAME, GRANT,
    REVOKE, DENY, TERMINATE); any ``CALL`` of a procedure outside :data:`READ_PROCEDURES`
    (``CALL { ... }`` subqueries are scanned like the rest); and a ``;`` anywhere but at the
    very end. A keyword used as a property (``n.set``), parameter (``$set``), label or type
    (``:Set``), map key (``{set: 1}``) or variable (``RETURN n.name AS set ORDER BY set``) is
    not a clause and passes. Anything else ambiguous is rejected: the store is for reading, and
    the server-side read-only path is only a backstop. Text with control characters or that is
    not UTF-8 raises :class:`UnsafeQueryError` (:func:`check_text`).
    """
    check_text(cypher)
    if not cypher.strip():
        raise WriteQueryError("empty query")
    masked = mask(cypher).rstrip()
    if masked.endswith(";"):
        masked = masked[:-1]
    if ";" in masked:
        raise WriteQueryError("multiple statements are not allowed (';' inside the query)")
    names = defined_names(masked)
    for m in _WRITE_RE.finditer(masked):
        if is_name_position(masked, m.start()) or next_char(masked, m.end()) == ":":
            continue
        one_word = len(m.group(1).split()) == 1  # DETACH DELETE and LOAD CSV are never names
        if one_word and _is_variable(masked, m.start(), m.end(), names):
            continue
        keyword = " ".join(m.group(1).upper().split())
        raise WriteQueryError(f"write clause {keyword} is not allowed in a read query")
    for m in _CALL_RE.finditer(masked):
        if is_name_position(masked, m.start()) or _is_call_variable(masked, m.start(), names):
            continue
        if next_char(masked, m.end()) == ":":  # a map key ({call: 1}), as for the writes
            continue
        target = m.group(1)
        if target == "{":
            continue
        name = re.sub(r"\s+", "", target or "")
        if not name or name.lower() not in READ_PROCEDURES:
            shown = name or cypher[m.end() : m.end() + 30].strip() or "?"
            raise WriteQueryError(f"procedure {shown} is not on the read-only allow-list")
