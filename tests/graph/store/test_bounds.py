"""ace_lab.graph.store.bounds: row limits, huge ranges, parameters, timeouts (no server)."""

from __future__ import annotations

import math

import pytest

from ace_lab.graph.store import (
    MAX_RANGE_ITEMS,
    StoreError,
    UnsafeQueryError,
    check_params,
    check_ranges,
    clamp_timeout,
    limit_query,
)


def test_limit_is_appended_to_a_final_return() -> None:
    assert limit_query("MATCH (n) RETURN n", 10) == "MATCH (n) RETURN n\nLIMIT 11"
    assert limit_query("MATCH (n) RETURN n ;", 10) == "MATCH (n) RETURN n\nLIMIT 11"
    assert limit_query("MATCH (n) RETURN n // why", 10) == "MATCH (n) RETURN n\nLIMIT 11"
    assert limit_query("MATCH (n) RETURN n SKIP 2", 5).endswith("SKIP 2\nLIMIT 6")
    assert limit_query("MATCH (n) WITH n LIMIT 3 RETURN n", 5).endswith("\nLIMIT 6")
    assert limit_query("CALL { MATCH (n) RETURN n LIMIT 9 } RETURN n", 5).endswith("\nLIMIT 6")
    assert limit_query("RETURN {limit: 5} AS m", 5) == "RETURN {limit: 5} AS m\nLIMIT 6"
    for untouched in (
        "MATCH (n) RETURN n LIMIT 3",
        "MATCH (n) RETURN n LIMIT 6",
        "CALL db.labels()",
    ):
        assert limit_query(untouched, 5) == untouched


def test_an_explicit_limit_above_the_cap_is_rewritten_before_execution() -> None:
    """Regression: ``LIMIT 100000000`` skipped the cap; 1.25 M rows were decoded, then sliced."""
    huge = "MATCH (a),(b) RETURN a.id, b.id LIMIT 100000000"
    assert limit_query(huge, 1000) == "MATCH (a),(b) RETURN a.id, b.id LIMIT 1001"
    assert limit_query("MATCH (n) RETURN n LIMIT $k", 10, {"k": 10**9}) == (
        "MATCH (n) RETURN n LIMIT 11"
    )
    assert limit_query("MATCH (n) RETURN n LIMIT $k", 10, {"k": 4}).endswith("LIMIT $k")
    for bad in ("MATCH (n) RETURN n LIMIT toInteger('9')", "MATCH (n) RETURN n LIMIT $missing"):
        with pytest.raises(UnsafeQueryError, match="LIMIT"):
            limit_query(bad, 10)


def test_every_union_branch_is_limited_and_distinct_under_union() -> None:
    union = "MATCH (n) RETURN n.id AS id UNION MATCH (m) RETURN m.id AS id"
    assert limit_query(union, 5) == (
        "MATCH (n) RETURN DISTINCT n.id AS id \nLIMIT 6\nUNION MATCH (m) RETURN DISTINCT m.id AS id"
        "\nLIMIT 6"
    )
    union_all = "MATCH (n) RETURN n.id AS id LIMIT 99 UNION ALL MATCH (m) RETURN m.id AS id"
    assert limit_query(union_all, 5) == (
        "MATCH (n) RETURN n.id AS id LIMIT 6\nUNION ALL MATCH (m) RETURN m.id AS id\nLIMIT 6"
    )
    kept = "RETURN 1 AS x LIMIT 1 UNION RETURN DISTINCT 2 AS x"
    assert limit_query(kept, 5) == "RETURN 1 AS x LIMIT 1 UNION RETURN DISTINCT 2 AS x\nLIMIT 6"


@pytest.mark.parametrize(
    "cypher, params",
    [
        ("UNWIND range(1, 2000000000) AS x RETURN sum(x)", None),
        ("RETURN range(1, 2 * 1000000000)", None),
        ("RETURN RANGE (0, -5000000, -1)", None),
        ("UNWIND range(1, $n) AS x RETURN x", {"n": 10**10}),
        ("RETURN [x IN range(1, (1000001)) | x]", None),
    ],
)
def test_a_range_known_to_be_huge_is_refused(cypher: str, params: dict | None) -> None:
    """Regression: FalkorDB fills such a list while planning, before any timeout is checked."""
    with pytest.raises(UnsafeQueryError, match="range"):
        check_ranges(cypher, params)


@pytest.mark.parametrize(
    "cypher",
    [
        f"RETURN range(1, {MAX_RANGE_ITEMS})",
        "RETURN range(0, size(x) - 1)",
        "RETURN range(1, 10, 0)",
        "RETURN n.range(1, 10000000000)",
        "RETURN 'range(1, 10000000000)'",
        "RETURN range(10, 1)",
    ],
)
def test_small_unknown_or_quoted_ranges_pass(cypher: str) -> None:
    check_ranges(cypher, {})


@pytest.mark.parametrize(
    "params",
    [
        {"a b": 1},
        {"": 1},
        {"a`b": 1},
        {"x) MATCH (n) DETACH DELETE n //": 1},
        {1: 1},
        {"x": "a\x00b"},
        {"x": "\ud800"},
        {"x": math.nan},
        {"x": [math.inf]},
        {"x": {"k`": 1}},
        {"x": object()},
        {"x": b"bytes"},
    ],
)
def test_odd_parameters_are_a_store_error(params: dict) -> None:
    """Regression: odd parameter names raised the client's bare ValueError."""
    with pytest.raises(UnsafeQueryError) as info:
        check_params(params)
    assert isinstance(info.value, StoreError)


def test_parameters_come_back_as_plain_values() -> None:
    import numpy as np

    got = check_params({"a": (1, 2), "b": np.int64(3), "c": {"k": [None, True, 1.5, "s"]}})
    assert got == {"a": [1, 2], "b": 3, "c": {"k": [None, True, 1.5, "s"]}}
    assert type(got["b"]) is int
    assert check_params(None) == {}


def test_timeouts_are_whole_milliseconds_never_zero() -> None:
    """Regression: ``timeout_ms=0.5`` became 0, which FalkorDB reads as "no timeout"."""
    assert clamp_timeout(0.5) == 1
    assert clamp_timeout(1.2) == 2
    assert clamp_timeout(500) == 500
    assert clamp_timeout(10**9, 120_000) == 120_000
    for bad in (0, -1, math.nan, math.inf, "soon"):
        with pytest.raises(ValueError):
            clamp_timeout(bad)
