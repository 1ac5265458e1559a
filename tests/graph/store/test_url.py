"""ace_lab.graph.store.url: one store setting, parsed strictly and never holding a password; a
FalkorDB server over TCP (the bundled redis-server + module on loopback) loads a build once,
reuses it, refuses a graph it did not write, and answers reads like the embedded store."""

from __future__ import annotations

import time

import pytest

from ace_lab.graph.store import StoreError
from ace_lab.graph.store.openers import FINGERPRINT_KEY
from ace_lab.graph.store.url import (
    PASSWORD_ENV,
    StoreURL,
    graph_fingerprint,
    open_graph_store,
    parse_store_url,
    server_graph_name,
)
from tests.support.graphs import small_tables


@pytest.mark.parametrize(
    "text, parsed",
    [
        (None, StoreURL("embedded")),
        ("embedded", StoreURL("embedded")),
        ("falkordb://127.0.0.1:6380", StoreURL("falkordb", "127.0.0.1", 6380)),
        ("falkordb://db.lab/hotpot", StoreURL("falkordb", "db.lab", 6379, "hotpot")),
        ("redis://h:1/g", StoreURL("falkordb", "h", 1, "g")),
        ("bolt://neo4j@h:7688/papers", StoreURL("bolt", "h", 7688, "papers", "neo4j")),
        ("neo4j://h", StoreURL("bolt", "h", 7687)),
    ],
)
def test_store_settings_parse(text, parsed) -> None:
    assert parse_store_url(text) == parsed
    assert parse_store_url(str(parsed)) == parsed  # what is printed reads back


@pytest.mark.parametrize(
    "text, says",
    [
        ("bolt://neo4j:secret@h:7687", PASSWORD_ENV),
        ("mysql://h", "not understood"),
        ("falkordb://", "not understood"),
        ("falkordb://h:notaport", "falkordb://h:notaport"),
        ("falkordb://h:1/a/b", "not understood"),
    ],
)
def test_bad_store_settings_are_one_line(text, says) -> None:
    with pytest.raises(StoreError, match=says) as err:
        parse_store_url(text)
    assert "\n" not in str(err.value) and "secret" not in str(err.value)


def test_names_and_fingerprints() -> None:
    assert server_graph_name("hotpot-n20-s0/typed") == "ace_lab__hotpot-n20-s0__typed"
    assert graph_fingerprint(small_tables()) == graph_fingerprint(small_tables())


@pytest.mark.integration
def test_a_server_graph_is_loaded_once_and_reused(falkordb_server: int) -> None:
    url = parse_store_url(f"falkordb://127.0.0.1:{falkordb_server}")
    store, close = open_graph_store(url, small_tables(), "toy/typed")
    try:
        assert store.count() == (7, 6)
        assert store.graph_name == "ace_lab__toy__typed"
        marker = FINGERPRINT_KEY.format(graph=store.graph_name)
        assert store.server_value(marker) == graph_fingerprint(small_tables())
        assert store.server_info("memory")["used_memory"] > 0
    finally:
        close()
    started = time.perf_counter()
    again, close = open_graph_store(url, small_tables(), "toy/typed")
    try:
        assert again.count() == (7, 6)
        embedded, close_embedded = open_graph_store(StoreURL("embedded"), small_tables(), "x")
        try:
            query = "MATCH (p:Person) RETURN p.name AS n ORDER BY n"
            assert again.read(query).rows == embedded.read(query).rows
        finally:
            close_embedded()
    finally:
        close()
    assert time.perf_counter() - started < 30


@pytest.mark.integration
def test_a_graph_ace_lab_did_not_write_is_refused(falkordb_server: int) -> None:
    from falkordb import FalkorDB

    FalkorDB(host="127.0.0.1", port=falkordb_server).select_graph("theirs").query(
        "CREATE (:Secret {id: 'keep me'})"
    )
    url = parse_store_url(f"falkordb://127.0.0.1:{falkordb_server}/theirs")
    with pytest.raises(StoreError, match="not written by ace_lab"):
        open_graph_store(url, small_tables(), "toy/typed")
    rows = (
        FalkorDB(host="127.0.0.1", port=falkordb_server)
        .select_graph("theirs")
        .ro_query("MATCH (n:Secret) RETURN n.id")
    )
    assert rows.result_set == [["keep me"]]


def _on(graph, url: str):
    """``graph`` (same tables and indexes) with its Cypher store at ``url``."""
    from ace_lab.config import GraphSettings
    from ace_lab.retrieval import RetrievalGraph

    store = GraphSettings(store=url)
    return RetrievalGraph(
        graph.tables, graph.indexes, name=graph.name, embedder=graph.embedder, store=store
    )


@pytest.mark.integration
@pytest.mark.parametrize("method, family", [("arcrag", "typed"), ("direct-cypher", "openie")])
def test_methods_answer_alike_over_tcp_and_embedded(
    settings, typed_graph, openie_graph, falkordb_server, method, family
) -> None:
    """The same questions over a FalkorDB server and the embedded store: the same Cypher rows,
    contexts and answers (scripted agents, so only the store differs)."""
    from ace_lab.llm import LLM
    from ace_lab.registry import make_method
    from tests.support.replies import ARC_QUESTION, arc_reply
    from tests.support.scripted import ScriptedClient

    graph = typed_graph if family == "typed" else openie_graph
    name = method if family == "typed" else f"{method}@openie"
    answers = []
    for url in ("embedded", f"falkordb://127.0.0.1:{falkordb_server}"):
        on = _on(graph, url)
        try:
            llm = LLM(settings, client=ScriptedClient(arc_reply()))
            answers.append(make_method(name, on, llm).answer(ARC_QUESTION))
            assert on.store_settings.store == url
        finally:
            on.close()
    embedded, tcp = answers
    assert tcp.text == embedded.text and tcp.text
    assert [e.id for e in tcp.context] == [e.id for e in embedded.context]
    # every prompt of the second run was the first run's (a cache hit): the same rows reached
    # the agents; wall-clock fields differ
    assert tcp.details.stats["cache_hit_share"] == 1.0
    timed = {k for k in embedded.details.stats if k.endswith(("_ms", "_s"))}
    timed.add("cache_hit_share")
    assert {k: v for k, v in tcp.details.stats.items() if k not in timed} == {
        k: v for k, v in embedded.details.stats.items() if k not in timed
    }
