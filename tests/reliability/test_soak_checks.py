"""The soak's checks (bench/soak.py) can fail: duplicates, lost records, a cached failure and a
process left in a worker's session are each seen."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.soak_checks import cache_problems, count_records, leftover_processes

pytestmark = pytest.mark.reliability


def test_duplicated_and_lost_records_are_counted(tmp_path: Path) -> None:
    lines = [{"id": "q1", "answer": "a"}, {"id": "q1", "answer": "a"}, {"id": "q2"}]
    (tmp_path / "naive.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    (tmp_path / "naive.errors.jsonl").write_text(json.dumps({"id": "q3"}) + "\n")
    assert count_records(tmp_path, {"q1", "q2", "q3"}) == (3, 1, 1)


def test_a_cached_empty_reply_is_a_problem(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "llm.sqlite")
    conn.execute("CREATE TABLE responses (key TEXT, model TEXT, text TEXT)")
    conn.execute("INSERT INTO responses VALUES ('k', 'm', 'fine'), ('k2', 'm', '')")
    conn.commit()
    conn.close()
    assert cache_problems(tmp_path) == ["llm.sqlite: 1 cached empty replies"]


def test_a_process_left_in_a_worker_session_is_found() -> None:
    leader = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)"], start_new_session=True
    )
    try:
        found = leftover_processes({leader.pid}, set(), "/no/such/marker")
        assert leader.pid in found
        assert not leftover_processes({-1}, set(), "/no/such/marker")
    finally:
        leader.kill()
        leader.wait()
    assert leader.pid not in leftover_processes({leader.pid}, set(), "/no/such/marker")
