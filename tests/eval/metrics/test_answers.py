"""ace_lab.eval.metrics: SQuAD/HotpotQA scoring, coverage/recovery, the two recalls, extraction,
answer format."""

from __future__ import annotations

import pytest

from ace_lab.eval.metrics import (
    ANSWER_FORMATS,
    answer_format,
    answer_in_context,
    coverage_and_recovery,
    exact_match,
    f1_score,
    is_yes_no,
    normalize_answer,
    passage_recall,
    provenance_recall,
    support_recall,
)


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  A   cat,  an apple; THE end. ", "cat apple end"),
        ("Théâtre-du-Nord", "théâtredunord"),  # punctuation is removed, not replaced by a space
        ("anthem", "anthem"),  # articles only as whole words
        ("", ""),
    ],
)
def test_normalize_answer(raw, normalised):
    assert normalize_answer(raw) == normalised


def test_exact_match_uses_normalisation_and_aliases():
    assert exact_match("the Beatles.", ["Beatles"]) == 1.0
    assert exact_match("NYC", ["New York City", "NYC"]) == 1.0
    assert exact_match("New York", ["New York City", "NYC"]) == 0.0
    assert exact_match("anything", []) == 0.0


def test_f1_partial_overlap_hand_computed():
    # "quick brown fox" vs "quick red fox jumps": 2 common tokens, P = 2/3, R = 2/4.
    assert f1_score("The quick brown fox", ["quick red fox jumps"]) == pytest.approx(4 / 7)


def test_f1_takes_the_best_alias():
    # vs "President Obama": P = R = 1/2, F1 0.5; vs "Barack Hussein Obama": P 1, R 2/3, F1 0.8.
    assert f1_score("Barack Obama", ["President Obama", "Barack Hussein Obama"]) == pytest.approx(
        0.8
    )
    assert f1_score("x", []) == 0.0


@pytest.mark.parametrize(
    ("prediction", "gold", "f1"),
    [
        ("yes", "yes", 1.0),
        ("Yes.", "yes", 1.0),
        ("no", "yes", 0.0),
        ("yes", "yes it is", 0.0),  # a special answer must match exactly: no partial credit
        ("yes it is", "yes", 0.0),
        ("noanswer", "no answer", 0.0),
    ],
)
def test_f1_yes_no_as_hotpotqa(prediction, gold, f1):
    assert f1_score(prediction, [gold]) == f1


def test_is_yes_no():
    assert is_yes_no(["yes"]) and is_yes_no(["No."])
    assert not is_yes_no(["Norway"]) and not is_yes_no([])


def test_answer_in_context_matches_whole_words():
    context = "The Lakeshore Library, designed by Mira Holt, opened in 1978 in Toronto."
    assert answer_in_context(context, ["lakeshore library"])
    assert answer_in_context(context, ["the 1978"])  # articles dropped on both sides
    assert answer_in_context(context, ["Montreal", "Toronto"])  # any alias
    assert not answer_in_context(context, ["197"])  # not inside a longer token
    assert not answer_in_context(context, ["art"])
    assert not answer_in_context(context, ["", "the"])  # empty after normalisation


def test_coverage_and_recovery_hand_computed():
    # None = yes/no question, excluded. Of the other 5: initially covered 2, finally 3;
    # initially uncovered are questions 1, 2, 4, of which 1 and 4 are covered finally.
    initial = [True, False, False, None, False, True]
    final = [True, True, False, None, True, False]
    assert coverage_and_recovery(initial, final) == {
        "n": 5,
        "coverage_initial": pytest.approx(2 / 5),
        "coverage_final": pytest.approx(3 / 5),
        "n_uncovered": 3,
        "recovery": pytest.approx(2 / 3),
    }


def test_coverage_edge_cases():
    assert coverage_and_recovery([True, None], [True, None])["recovery"] is None
    empty = coverage_and_recovery([None], [None])
    assert empty["n"] == 0 and empty["coverage_initial"] is None
    with pytest.raises(ValueError, match="same questions"):
        coverage_and_recovery([True, None], [True, False])
    with pytest.raises(ValueError, match="entries"):
        coverage_and_recovery([True], [True, False])


def test_support_recall_with_passage_and_chunk_ids():
    supporting = ["doc1", "doc2", "doc3"]
    assert support_recall(["doc1", "doc9"], supporting) == pytest.approx(1 / 3)
    assert support_recall(["doc1#0", "doc2#3", "doc2#4"], supporting) == pytest.approx(2 / 3)
    assert support_recall(["doc10#0", "doc3x"], supporting) == 0.0  # prefixes must end at "#"
    assert support_recall(iter(["doc1", "doc2#1", "doc3#0"]), supporting) == 1.0
    assert support_recall(["doc1"], []) is None


def test_passage_recall_counts_only_passages_while_provenance_counts_every_source():
    supporting = ["d1", "d2"]
    # A whole context's ids: an entity from d2 is not d2's text, only d1 (a chunk of it) is.
    context_ids = ["ent:lantern", "rel:lantern|brinemouth", "sum:1:4", "path:ent:a|ent:b", "d1#2"]
    assert passage_recall(context_ids, supporting) == 0.5
    assert provenance_recall(["d1#2", "d2", "d2"], supporting) == 1.0  # d2 via the entity
    assert passage_recall(["d1", "d2"], []) is None and provenance_recall([], []) is None
    assert passage_recall([], supporting) == 0.0


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ("Reasoning: x.\n[FINAL_ANSWER] Mika Häkkinen [/FINAL_ANSWER]", "tag"),
        ("[final answer]Rush[/Final_Answer]", "tag"),  # case and separator are free
        ("[FINAL_ANSWER] [/FINAL_ANSWER]\n[FINAL_ANSWER]**Rush**[/FINAL_ANSWER]", "tag"),
        # Committed replies that are not a proper pair:
        ("Reasoning: y.\nResult: [Mika Häkkinen] [/Mika Häkkinen]", "prefix"),
        ("Reasoning: y.\n\nResult: Graduados [/FINAL_ANSWER]", "prefix"),  # stray closing tag
        ("Reasoning: y.\n**Answer:**\nBrinemouth", "prefix"),  # the answer on the next line
        ("Reasoning: y.\n[FINAL_ANSWER] Brinemouth", "prefix"),  # closing tag missing
        ("Reasoning: y.\n[FINAL_ANSWER] [/FINAL_ANSWER]\nResult: Rush", "prefix"),  # empty pair
        ("Reasoning: both born in Sharjah. Therefore, yes. [/FINAL_ANSWER]", "line"),
        ("Dash was born on January 10, 1960.\n\nResult: [/FINAL_ANSWER]", "line"),
        ("[FINAL_ANSWER] ** [/FINAL_ANSWER]", "empty"),
        ("  \n", "empty"),
        (None, "empty"),
    ],
)
def test_answer_format_reads_how_the_reply_gave_its_answer(raw, kind):
    assert answer_format(raw) == kind
    assert kind in ANSWER_FORMATS
