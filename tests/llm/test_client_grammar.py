"""ace_lab.llm.client: a GBNF ``grammar`` goes to llama.cpp servers as ``extra_body`` and into
the cache key only when set; every request made without one keeps the key it always had (the
committed replay archives are keyed so)."""

from __future__ import annotations

import types
from dataclasses import replace

from ace_lab.llm import LLM
from ace_lab.llm.cache import cache_key
from tests.support.scripted import ScriptedClient

MESSAGES = [{"role": "system", "content": "You compile."}, {"role": "user", "content": "Where?"}]
FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "CypherOut", "schema": {"type": "object"}, "strict": True},
}
#: Keys of two requests as the client before the grammar field made them (computed with the
#: committed ``LLM.request`` of the previous commit for this model identity).
OLD_KEYS = {
    "json": "297ea4e084b27c523fb98f2e8e8c68df468b82dc71e4a0f3123b8012d68bbf05",
    "stop": "ffe3b33e4fe3ebe616852216da7be81730a06132f8f14b67b91ba3cc85b90967",
}
GRAMMAR = 'root ::= "{\\"cypher\\": \\"\\"}"\n'


def test_requests_without_a_grammar_keep_their_keys():
    me = types.SimpleNamespace(model_identity="local:smoke:sha256-test")
    json_request = LLM.request(me, MESSAGES, max_tokens=600, seed=1, response_format=FORMAT)
    stop_request = LLM.request(me, MESSAGES, temperature=0.5, stop=["\n"])
    assert "grammar" not in json_request and "grammar" not in stop_request
    assert cache_key(json_request) == OLD_KEYS["json"]
    assert cache_key(stop_request) == OLD_KEYS["stop"]
    with_grammar = LLM.request(me, MESSAGES, max_tokens=600, seed=1, grammar=GRAMMAR)
    assert with_grammar["grammar"] == GRAMMAR and cache_key(with_grammar) not in OLD_KEYS.values()


def test_a_grammar_is_sent_as_extra_body_and_cached_under_its_own_key(settings):
    client = ScriptedClient(['{"cypher": ""}', "plain"])
    llm = LLM(settings, client=client)
    constrained = llm.chat(MESSAGES, tag="t", grammar=GRAMMAR)
    plain = llm.chat(MESSAGES, tag="t")
    assert client.requests[0]["extra_body"] == {"grammar": GRAMMAR}
    assert "extra_body" not in client.requests[1] and "response_format" not in client.requests[0]
    assert constrained.key != plain.key and plain.text == "plain"
    again = llm.chat(MESSAGES, tag="t", grammar=GRAMMAR)
    assert again.cache_hit and again.text == '{"cypher": ""}'


def test_which_endpoints_take_a_grammar(settings):
    assert LLM(settings, client=ScriptedClient([])).takes_grammar  # the local llama.cpp tier
    remote = replace(
        settings, llm=replace(settings.llm, base_url="http://127.0.0.1:9/v1", model="m")
    )
    assert not LLM(remote, client=ScriptedClient([])).takes_grammar
    marked = replace(remote, llm=replace(remote.llm, gbnf=True))
    assert LLM(marked, client=ScriptedClient([])).takes_grammar
