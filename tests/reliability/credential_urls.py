"""Credentials in every URL form are masked where a run records its endpoint (issue 40, item 4).

For each form of base URL that carries a key — a path segment (``https://gw/<key>/v1``), a
``?code=`` query and a ``;api_key=`` parameter, and the userinfo and ``?api_key=`` forms
masked before — a short evaluation run against the fake upstream (see ``fault_proxy``) writes
its results, ``manifest.json`` and the LLM cache; the key must appear in none of them, nor in
the cache's ``model`` column, while the run did answer (so the check is not vacuous).
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from ace_lab.llm import LLM
from tests.reliability.fault_proxy import FakeUpstream
from tests.reliability.faulty_endpoint import make_settings, toy_graph, toy_run

ROW = "credentials in every URL form masked in manifest and cache"
KEY = "sk-proj-Sentinel4b7c9e1d2f3a"
#: How the key is written into the fake upstream's base URL ``http://127.0.0.1:<port>/v1``.
FORMS: dict[str, str] = {
    "path segment": "/{key}/v1",
    "?code=": "/v1?code={key}",
    ";api_key=": "/v1;api_key={key}",
    "?api_key=": "/v1?api_key={key}",
    "userinfo": "/v1",  # user:key@host, set below
}


class GatewayUpstream(FakeUpstream):
    """The fake upstream as a gateway that reads its key from the URL: a chat request is
    answered whatever the client made of a base URL with a query (``/v1?code=k/chat/…``)."""

    def handle_post(self, h: Any, body: bytes) -> None:
        if h.path.endswith("chat/completions"):
            h.path = "/v1/chat/completions"
        super().handle_post(h, body)


def form_url(upstream: str, form: str) -> str:
    host = upstream.removesuffix("/v1")
    if form == "userinfo":
        host = host.replace("http://", f"http://tester:{KEY}@")
    return host + FORMS[form].format(key=KEY)


def model_column(root: Path) -> list[str]:
    """The ``model`` column of every LLM cache database under ``root``."""
    values: list[str] = []
    for db in root.rglob("*"):
        if db.is_file() and db.read_bytes()[:16] == b"SQLite format 3\0":
            conn = sqlite3.connect(db)
            try:
                if conn.execute("SELECT 1 FROM sqlite_master WHERE name='responses'").fetchone():
                    values += [r[0] for r in conn.execute("SELECT model FROM responses")]
            finally:
                conn.close()
    return values


def key_places(root: Path) -> list[str]:
    """Every file under ``root`` holding :data:`KEY`, and every cache ``model`` value with it."""
    found = [
        p.relative_to(root).as_posix()
        for p in sorted(root.rglob("*"))
        if p.is_file() and KEY.encode() in p.read_bytes()
    ]
    return found + [f"cache model {m[:60]!r}" for m in model_column(root) if KEY in m]


def one_form(root: Path, form: str, graph: Any) -> list[str]:
    """The places where the key was found after a short run (plus why a run proves nothing)."""
    with GatewayUpstream() as upstream:
        llm = LLM(make_settings(root, form_url(upstream.url, form), 2))
        _, folder = toy_run(llm, graph, "credentials")
    found = key_places(root)
    if not (folder / "manifest.json").is_file() or not model_column(root):
        found.append("the run wrote no manifest or no cached reply")
    return found


def measure(full: bool) -> list[dict[str, Any]]:
    """One row: per form, the manifest, every file written and the cache's model column."""
    graph = toy_graph()
    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="ace-credurls-") as tmp:
        for i, form in enumerate(FORMS):
            failures += [f"{form}: {where}" for where in one_form(Path(tmp) / str(i), form, graph)]
    note = f"{len(FORMS)} URL forms ({', '.join(FORMS)}), each a run of 8 questions"
    if failures:
        note += "; key found in " + "; ".join(failures[:4])
    return [
        {
            "property": ROW,
            "attempts": len(FORMS),
            "held": len(FORMS) - len({f.split(":")[0] for f in failures}),
            "failed": len({f.split(":")[0] for f in failures}),
            "note": note,
        }
    ]
