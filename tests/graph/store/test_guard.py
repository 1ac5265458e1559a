"""ace_lab.graph.store.guard: the read-only check and the row limit, no server needed."""

from __future__ import annotations

import pytest

from ace_lab.graph.store import StoreError, UnsafeQueryError, WriteQueryError, check_read_only


@pytest.mark.parametrize(
    "cypher",
    [
        'MATCH (n) WHERE n.name = "Set theory" RETURN n',
        "MATCH (n) RETURN n.set, n.created, $delete",
        "MATCH (n:`Create`)-[:DROP]->(m) RETURN {set: 1} AS x",
        "MATCH (n) /* DELETE n */ RETURN 'it\\'s a CREATE' AS x;",
        "CALL { MATCH (n) RETURN n } RETURN n",
        "CALL algo.pageRank('Entity', 'RELATED') YIELD node, score RETURN node, score",
        "CALL db.idx.fulltext.queryNodes('Chunk', 'set') YIELD node RETURN node",
    ],
)
def test_guard_allows_reads(cypher: str) -> None:
    check_read_only(cypher)


@pytest.mark.parametrize(
    "cypher",
    ["", "CALL dbms.killQuery(1)", "CALL `db.labels`()", "CALL apoc.create.node(['A'], {})"],
)
def test_guard_rejects_unknown_procedures_and_empty(cypher: str) -> None:
    with pytest.raises(WriteQueryError):
        check_read_only(cypher)


@pytest.mark.parametrize(
    "cypher",
    [
        "MATCH (n) RETURN n.name AS set",
        "MATCH (n) RETURN n.name AS merge ORDER BY merge",
        "MATCH (n) RETURN n.id AS drop, n.name AS remove",
        "MATCH (n) RETURN count(n) AS detach",
        "MATCH (n) WITH n.name AS delete RETURN delete LIMIT 5",
        "MATCH (n) WITH n AS foreach RETURN foreach.id",
        "UNWIND [1, 2] AS set RETURN set * 2 AS x",
        "CALL db.labels() YIELD label AS create RETURN create",
        "match (n) return n.id as Set order by Set desc;",
        "MATCH (n) WHERE n.order = 1 RETURN n.name AS set ORDER BY set DESC",
        "MATCH (n) RETURN count(DISTINCT n) AS merge, [x IN [1] | x] AS drop",
    ],
)
def test_columns_aliased_like_write_keywords_are_reads(cypher: str) -> None:
    """Regression: ``AS set`` / ``merge`` / ``drop`` / ``remove`` / ``detach`` were rejected."""
    check_read_only(cypher)


@pytest.mark.parametrize(
    "cypher",
    [
        "MATCH (n) WITH n AS set SET set.x = 1",
        "MATCH (n) WITH n AS detach DETACH DELETE detach",
        "MATCH (n) WITH n AS detach\nDELETE n",
        "MATCH (n) WITH n AS DETACH\nDELETE n",
        "MATCH (n) WITH n AS merge MERGE (m:X {id: merge.id})",
        "MATCH (n) WITH n AS remove REMOVE remove.name",
        "WITH 1 AS create CREATE (n)",
        "MATCH (n) WITH [n] AS foreach FOREACH (m IN foreach | SET m.x = 1)",
        "MATCH (n)\u00a0DETACH\u00a0DELETE n",
        "MATCH (n) DETACH /* x */ DELETE n",
        "LOAD CSV FROM 'https://example.com/x.csv' AS row RETURN row",
        "load\tcsv from 'file:///etc/passwd' as row return row",
        # FalkorDB takes any keyword as a variable name, so none may hide a clause
        "MATCH (n), (order) WITH n AS delete, order DELETE order",
        "MATCH (n) WITH n AS delete, n AS order DELETE order",
        "MATCH (n) WITH n, 1 AS as WITH n, as SET n.x = 1",
        "MATCH (desc) WITH desc, 1 AS delete DELETE desc",
        "MATCH (n) WITH n AS set, n AS where WITH set, where SET where.x = 1",
        "MATCH (n) WITH n AS delete UNWIND [n] AS and DELETE and",
    ],
)
def test_writes_behind_aliases_comments_and_odd_spacing_are_rejected(cypher: str) -> None:
    with pytest.raises(WriteQueryError):
        check_read_only(cypher)


@pytest.mark.parametrize(
    "cypher",
    [
        "MATCH (a),(b) RETURN a.id, b.id LIMIT 100000000\x00",
        "CREATE (:X)\x00MATCH (n) RETURN n",
        "MATCH (n) RETURN n\x1b",
        "RETURN '\ud800' AS x",
        "RETURN 1" + " " * 70_000,
    ],
)
def test_control_characters_and_non_utf8_text_are_refused(cypher: str) -> None:
    """Regression: FalkorDB stops reading at a NUL, dropping the LIMIT the store appended."""
    with pytest.raises(UnsafeQueryError):
        check_read_only(cypher)
    assert issubclass(UnsafeQueryError, StoreError)


@pytest.mark.parametrize(
    "cypher",
    [
        "MATCH (n) RETURN n.name AS call",
        "MATCH (n) RETURN n.name AS call ORDER BY call",
        "UNWIND [1, 2] AS call RETURN call * 2 AS x",
        "MATCH (n) WITH n.name AS call RETURN call",
        "MATCH (n) RETURN {call: n.name} AS x",  # a map key (found by the reliability row)
    ],
)
def test_a_column_named_call_is_a_read(cypher: str) -> None:
    """Regression: ``AS call`` was read as a CALL of procedure "?" and rejected."""
    check_read_only(cypher)


@pytest.mark.parametrize(
    "cypher",
    [
        "MATCH (n) RETURN n AS call CALL dbms.killQuery(1)",
        "WITH 1 AS call CALL db.createLabel('x') YIELD x RETURN x",
        "RETURN 1 AS call UNION CALL something.else()",
    ],
)
def test_a_variable_named_call_does_not_hide_a_real_call(cypher: str) -> None:
    with pytest.raises(WriteQueryError):
        check_read_only(cypher)
