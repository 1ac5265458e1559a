"""ace_lab.graph.store.limits: the embedded server's load-time limits."""

from __future__ import annotations

import pytest

from ace_lab.graph.store import ServerLimits, StoreError


def test_module_and_redis_arguments() -> None:
    limits = ServerLimits(timeout_max_ms=9000, query_mem_mb=64, reply_mb=4)
    args = limits.module_args("/private/dir")
    pairs = dict(zip(args[::2], args[1::2], strict=True))
    assert pairs["TIMEOUT_MAX"] == "9000" and pairs["TIMEOUT_DEFAULT"] == "5000"
    assert pairs["QUERY_MEM_CAPACITY"] == str(64 * 1024 * 1024)
    assert pairs["RESULTSET_SIZE"] == "10000"
    assert pairs["IMPORT_FOLDER"] == "/private/dir/import/"
    assert limits.redis_args() == ["--client-output-buffer-limit", "normal 4mb 4mb 0"]


@pytest.mark.parametrize(
    "kw",
    [
        {"timeout_max_ms": 0},
        {"query_mem_mb": -1},
        {"grace_ms": 1.5},
        {"reply_mb": True},
        {"timeout_default_ms": 10_000, "timeout_max_ms": 5_000},
    ],
)
def test_bad_limits_are_refused(kw: dict) -> None:
    with pytest.raises(StoreError):
        ServerLimits(**kw)
