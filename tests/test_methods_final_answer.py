"""ace_lab.methods.final_answer: the answer span read out of a model reply, also when a small
model bends the ``[FINAL_ANSWER] … [/FINAL_ANSWER]`` format."""

from __future__ import annotations

import pytest

from ace_lab.methods.final_answer import extract_final_answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Reasoning...\n[FINAL_ANSWER] Mira Holt [/FINAL_ANSWER]", "Mira Holt"),
        ("[final_answer]Toronto.[/final_answer]", "Toronto"),
        ("blah\n[FINAL_ANSWER] 1978\nbecause the record says so", "1978"),  # no closing tag
        ("**[FINAL_ANSWER]** `Lakeshore Library` **[/FINAL_ANSWER]**", "Lakeshore Library"),
        ('[FINAL_ANSWER] "yes" [/FINAL_ANSWER]', "yes"),
        ("[FINAL_ANSWER] Answer: Paris [/FINAL_ANSWER]", "Paris"),
        ("I will use [FINAL_ANSWER] tags.\n[FINAL_ANSWER] Rome [/FINAL_ANSWER]", "Rome"),
        ("[FINAL_ANSWER] [/FINAL_ANSWER]\nAnswer: Oslo", "Oslo"),  # empty tags: fall through
        ("Let me think.\n**Answer:** Paris.\nHope this helps!", "Paris"),
        ("Step 1...\nResult: 42", "42"),
        ("**Final answer**: the Beatles", "the Beatles"),
        ("The question asks for a city.\n\nParis.\n", "Paris"),
        ("Result: [FINLANDISH Driver] Mika Häkkinen [/FINLANDISH Driver]", "Mika Häkkinen"),
        ("Answer: [1998] was the year", "[1998] was the year"),  # not a tag pair
        ("Reasoning: x\nResult: [Mika Häkkinen] [/Mika Häkkinen]", "Mika Häkkinen"),
        ("Reasoning: y\nResult: [Kim Polese]", "Kim Polese"),
        ("Result: IJA [/FINAL_ANSWER]", "IJA"),
        ("", ""),
    ],
)
def test_extract_final_answer(text, answer):
    assert extract_final_answer(text) == answer


def test_evaluation_rescores_with_the_same_extractor():
    from ace_lab.eval import extract_final_answer as rescoring

    assert rescoring is extract_final_answer


# ------------------------------------------------------------------ regressions (issue 13)
def test_answer_on_the_line_after_a_bare_prefix():
    assert extract_final_answer("Answer:\nBrinemouth") == "Brinemouth"
    assert extract_final_answer("Final answer:\n\n**Brinemouth**.") == "Brinemouth"
    assert extract_final_answer("[FINAL_ANSWER]\nAnswer:\nBrinemouth") == "Brinemouth"
    assert extract_final_answer("Answer: Oslo\nAnswer:") == "Oslo"


def test_a_closed_tag_beats_a_later_unclosed_one():
    reply = "[FINAL_ANSWER] Brinemouth [/FINAL_ANSWER]\nOn reflection: [FINAL_ANSWER] Oslo"
    assert extract_final_answer(reply) == "Brinemouth"
    assert extract_final_answer("x [FINAL_ANSWER] A [/FINAL_ANSWER] [FINAL_ANSWER] B") == "A"


@pytest.mark.parametrize(
    "reply",
    [
        # took tens of seconds: nested quantifiers around the spaces of a made-up tag pair
        "[FINAL_ANSWER] [ANSWER]"
        + " " * 3000
        + "Brinemouth"
        + " " * 3000
        + "[/ANSWER [/FINAL_ANSWER]",
        "[FINAL_ANSWER] [A]" + " " * 3000 + "Brinemouth" + " " * 3000 + "[/A]x [/FINAL_ANSWER]",
        "Answer:\n" * 50_000,
        "[FINAL_ANSWER] x [/FINAL_ANSWER]" * 100_000,
    ],
)
def test_extraction_is_linear_on_hostile_replies(reply):
    import time

    start = time.perf_counter()
    answer = extract_final_answer(reply)
    assert isinstance(answer, str) and time.perf_counter() - start < 1.0


def test_a_made_up_pair_padded_with_spaces_still_gives_its_answer():
    reply = "[FINAL_ANSWER][A]" + " " * 3000 + "Brinemouth" + " " * 3000 + "[/A][/FINAL_ANSWER]"
    assert extract_final_answer(reply) == "Brinemouth"
