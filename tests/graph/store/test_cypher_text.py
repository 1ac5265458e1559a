"""ace_lab.graph.store.cypher_text: masking follows FalkorDB's lexer, positions stay aligned."""

from __future__ import annotations

from ace_lab.graph.store.cypher_text import call_args, depths, mask, next_word, prev_word


def test_mask_blanks_literals_identifiers_and_comments_same_length() -> None:
    text = "MATCH (n) // CREATE\nWHERE n.x = 'a\\' SET' /* DELETE */ RETURN n AS `merge`"
    masked = mask(text)
    assert len(masked) == len(text)
    assert "CREATE" not in masked and "SET" not in masked and "DELETE" not in masked
    assert "merge" not in masked and masked.endswith("AS `_____`")
    assert masked.index("RETURN") == text.index("RETURN")


def test_doubled_quotes_are_two_strings_as_in_falkordb() -> None:
    # FalkorDB has no '' escape: 'it''s' is two literals, so text between them is code
    assert mask("RETURN 'it''s'") == "RETURN '  '' '"


def test_helpers() -> None:
    masked = "RETURN range(1, f(2, 3), [4, 5]) AS x"
    spans = list(call_args(masked, masked.index("(")))
    assert [masked[a:b].strip() for a, b in spans] == ["1", "f(2, 3)", "[4, 5]"]
    assert depths("(a[b])c") == [1, 1, 2, 2, 2, 1, 0]
    assert prev_word("n AS  set", 6) == "AS" and next_word("x  ORDER BY", 1) == "ORDER"
