"""ace_lab.methods.reader: the short, grammar-bound reader and reader selection, on scripted
replies (the grammar is what a llama.cpp server would sample under; a scripted client only
shows what is sent and what is read back)."""

from __future__ import annotations

import json

import pytest

from ace_lab.llm.cache import cache_key
from ace_lab.methods.generate import generate
from ace_lab.methods.reader import (
    READERS,
    SHORT_MAX_TOKENS,
    SHORT_TAG,
    active_reader,
    read_short,
    reader_of_tags,
    reading,
    record_reader,
    short_grammar,
    short_reply_ok,
)
from ace_lab.prompts import load_prompt
from tests.support.replies import QA_REPLY
from tests.support.scripted import scripted_llm


def test_short_grammar_allows_one_line_without_a_bounded_repetition() -> None:
    assert short_grammar() == "root ::= [^\\n\\t ] [^\\n]*\n"
    assert "{" not in short_grammar()  # llama.cpp expands {0,n} into n nested rules: slow


@pytest.mark.parametrize(
    ("raw", "ok"),
    [
        ("Paris", True),
        ("yes", True),
        ("x" * 300, True),  # the token cap bounds the length, not the grammar
        ("Reasoning: a\nParis", False),
        (" Paris", False),
        ("", False),
        ('{"answer": "Paris"}', True),
    ],
)
def test_short_reply_ok(raw: str, ok: bool) -> None:
    assert short_reply_ok(raw) is ok


def test_read_short_sends_the_grammar_and_a_token_bound(settings) -> None:
    llm = scripted_llm(settings, ["Ada Lovelace"])
    assert llm.takes_grammar  # the local tier is a llama.cpp server
    raw, answer = read_short(llm, "Who?", "- Ada Lovelace wrote it.")
    assert (raw, answer) == ("Ada Lovelace", "Ada Lovelace")
    sent = llm.client().requests[0]
    assert sent["extra_body"] == {"grammar": short_grammar()}
    assert sent["max_tokens"] == SHORT_MAX_TOKENS and "response_format" not in sent
    assert sent["messages"] == load_prompt("answer_qa_short").messages(
        query="Who?", context="- Ada Lovelace wrote it."
    )
    assert llm.ledger.calls[-1].tag == SHORT_TAG


def test_read_short_uses_a_json_schema_where_no_grammar_is_taken(settings) -> None:
    remote = settings.with_llm(base_url="http://endpoint.invalid/v1", model="m")
    llm = scripted_llm(remote, ['{"answer": "Ada Lovelace"}'])
    assert not llm.takes_grammar
    raw, answer = read_short(llm, "Who?", "ctx")
    assert answer == "Ada Lovelace" and short_reply_ok(raw)
    sent = llm.client().requests[0]
    schema = sent["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["answer"] and sent["max_tokens"] > SHORT_MAX_TOKENS
    assert "extra_body" not in sent


def test_the_grammar_is_part_of_the_cache_key(settings) -> None:
    llm = scripted_llm(settings, ["Paris", "Paris"])
    read_short(llm, "Where?", "ctx")
    read_short(llm, "Where?", "ctx")  # the same request: answered from the cache
    assert len(llm.client().requests) == 1
    messages = load_prompt("answer_qa_short").messages(query="Where?", context="ctx")
    keys = {
        cache_key(llm.request(messages, max_tokens=SHORT_MAX_TOKENS, grammar=g))
        for g in (short_grammar(), "root ::= [a-z]+\n", None)
    }
    assert len(keys) == 3


def test_reading_selects_the_reader_of_every_qa_answer_call(settings) -> None:
    llm = scripted_llm(settings, ["Paris", '{"reasoning": "r", "answer": "Rome"}', QA_REPLY])
    assert active_reader() is None
    with reading("short"):
        assert active_reader() == "short"
        assert generate(llm, "q", "c").answer == "Paris"
    with reading("json"):
        assert generate(llm, "q", "c").answer == "Rome"  # a task-style method, JSON reader
    assert generate(llm, "q", "c", style="task").answer == "y"  # outside: the method's own
    tags = [c.tag for c in llm.ledger.calls]
    assert tags == [SHORT_TAG, "generate.qa.json", "generate.qa"]
    assert reader_of_tags(tags) == "tagged" and reader_of_tags(tags[:1]) == "short"
    with pytest.raises(ValueError, match="unknown reader 'long'"), reading("long"):
        pass


def test_open_tasks_and_the_generic_ablation_keep_their_prompts(settings) -> None:
    llm = scripted_llm(settings, ["A full sentence.", "plain"])
    with reading("short"):
        assert generate(llm, "q", "c", task="open").answer == "A full sentence."
        generate(llm, "q", "c", style="generic")
    assert [c.tag for c in llm.ledger.calls] == ["generate.open", "generate.qa"]
    assert "extra_body" not in llm.client().requests[0]


def test_record_reader_names_old_records_by_their_reply() -> None:
    assert record_reader({"reader": "short", "raw": "x"}) == "short"
    assert record_reader({"raw": QA_REPLY}) == "tagged"
    assert record_reader({"raw": json.dumps({"reasoning": "r", "answer": "a"})}) == "json"
    assert record_reader({"raw": None}) is None  # an evidence-only record
    assert set(READERS) == {"tagged", "json", "short"}
