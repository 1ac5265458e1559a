"""ace_lab.methods.final_answer: the answer span read out of a model reply, also when a small
model bends the ``[FINAL_ANSWER] … [/FINAL_ANSWER]`` format."""

from __future__ import annotations

import json

import pytest

from ace_lab.methods.final_answer import (
    MAX_ANSWER_WORDS,
    Extraction,
    extract,
    extract_final_answer,
)
from tests.support.paths import TEST_DATA

#: Every committed raw output (``results/*/*.jsonl``) the extractor of issue 13 read wrongly,
#: with the records that hold it, the answer committed then and the hand-checked answer.
COMMITTED_FAILURES = json.loads((TEST_DATA / "committed_failed_answers.json").read_text("utf-8"))


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
    from ace_lab.eval.studies import study

    assert study.extract_final_answer is extract_final_answer


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


# ------------------------------------------------------------------ regressions (issue 14)
def test_the_committed_failures_are_all_there():
    assert len(COMMITTED_FAILURES) == 29
    assert sum(len(c["records"]) for c in COMMITTED_FAILURES) == 38
    assert all(c["answer"] != c["committed"] for c in COMMITTED_FAILURES)


@pytest.mark.parametrize(
    "case", COMMITTED_FAILURES, ids=[c["records"][0] for c in COMMITTED_FAILURES]
)
def test_every_committed_output_that_failed_gives_its_answer(case):
    assert extract_final_answer(case["raw"]) == case["answer"]


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        # made-up pairs in any case, and answers with "/"
        (
            "Result: [Modeling and Performance] [/MODELING AND PERFORMANCE]",
            "Modeling and Performance",
        ),
        ("Result: [2012/13 Premier League] [/2012/13 Premier League]", "2012/13 Premier League"),
        ("Result: [2012/13 Premier League]", "2012/13 Premier League"),
        ("Result: [TAG] 2012/13 [/tag]", "2012/13"),
        ("[FINAL_ANSWER] [and/or] [/FINAL_ANSWER]", "and/or"),
        # stray closing tags
        ("Result: Kelly Reichardt [/Kelly Reichardt]", "Kelly Reichardt"),
        ("Result: Shakthi Chidambaram [/SHAKTHI CHIDAMBARAM]", "Shakthi Chidambaram"),
        ("Kelly Reichardt\n[/Kelly Reichardt]", "Kelly Reichardt"),
        # bridge entity and answer bracketed side by side: the last bracket
        ("Result: [Chuck Berry] [St. Louis, Missouri] [/FINAL_ANSWER]", "St. Louis, Missouri"),
        # "Reasoning:" lines are not answers; their "the answer is X" is
        ("Reasoning: a, b. Therefore, the answer is Polish. [/FINAL_ANSWER]", "Polish"),
        (
            "Reasoning: it was St. Louis. So the answer is St. Louis, Missouri.",
            "St. Louis, Missouri",
        ),
        ("Reasoning: the pianist was helped in 1944.", ""),
        ("Reasoning: x is a guitarist.\nReasoning: y is a guitarist.", ""),
        ("Some thought.\nThe answer is Oslo.", "Oslo"),
        ("Result: the answer is Oslo", "Oslo"),
    ],
)
def test_bent_formats_of_issue_14(text, answer):
    assert extract_final_answer(text) == answer


def test_length_guard_refuses_reasoning_as_an_answer():
    sentence = " ".join(["word"] * (MAX_ANSWER_WORDS + 1))
    assert extract_final_answer(f"Result: {sentence}") == ""
    assert extract_final_answer(f"[FINAL_ANSWER] {sentence} [/FINAL_ANSWER]") == ""
    long_but_said = f"[FINAL_ANSWER] {sentence}, so the answer is Oslo. [/FINAL_ANSWER]"
    assert extract_final_answer(long_but_said) == "Oslo"
    fourteen = "The Blue Collar Worker And The Hairdresser In A Whirl Of Sex And Politics"
    assert extract_final_answer(f"Result: [{fourteen}]") == fourteen  # longest gold: kept
    # a line over the guard ends the search: an earlier line is not read as the answer
    assert extract_final_answer(f"Paris\n{sentence}") == ""


def test_a_tagged_answer_is_kept_as_written():
    """Inside a proper tag, "the answer is" is the model's answer span, not rewritten."""
    assert extract_final_answer("[FINAL_ANSWER] The answer is 3.5. [/FINAL_ANSWER]") == (
        "The answer is 3.5"
    )


@pytest.mark.parametrize(
    ("text", "answer", "source"),
    [
        ("Reasoning: x\nResult: [FINAL_ANSWER] Oslo [/FINAL_ANSWER]", "Oslo", "tag"),
        ("Result: [Final Answer] Yes [/Final Answer]", "Yes", "tag"),
        ('{"reasoning": "x", "answer": "Oslo"}', "Oslo", "json"),
        ("[FINAL_ANSWER] Oslo\nbecause", "Oslo", "unclosed_tag"),
        ("Result: Oslo [/FINAL_ANSWER]", "Oslo", "prefix"),
        ("Reasoning: x.\nOslo", "Oslo", "line"),
        ("Reasoning: no idea.", "", "none"),
    ],
)
def test_extract_says_where_the_answer_came_from(text, answer, source):
    found = extract(text)
    assert found == Extraction(answer, source)
    assert found.compliant is (source in ("tag", "json"))


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ('{"reasoning": "Bridge: Rush.", "answer": "Rush"}', "Rush"),
        ('```json\n{"reasoning": "r", "answer": "[Rush]"}\n```', "Rush"),
        ('{"reasoning": "r", "answer": "Rush", "reasoning_ext', "Rush"),  # cut off after it
        (
            '{"reasoning": "He said \\"hi\\"", "answer": "The \\"Rush\\" band", "x',
            'The "Rush" band',
        ),
        ('{"reasoning": "cut off before the answer', ""),
        ('{"reasoning": "r", "answer": ""}', ""),
    ],
)
def test_json_replies_give_their_answer_field(text, answer):
    assert extract_final_answer(text) == answer


@pytest.mark.parametrize(
    "text, answer",
    [
        ("[FINAL_ANSWER] Paris [/FINAL_ANSWER]\u200b", "Paris"),
        ("[FINAL_ANSWER] Paris\u200b [/FINAL_ANSWER]", "Paris"),
        ("Paris\ufeff", "Paris"),
        ("<FINAL_ANSWER>Paris</FINAL_ANSWER>", "Paris"),
        ("Reasoning: it is the capital.\n<FINAL_ANSWER> Paris </FINAL_ANSWER>", "Paris"),
        ("FINAL_ANSWER: Paris", "Paris"),
        ("Reasoning: capital of France.\nFINAL_ANSWER: Paris", "Paris"),
        ("Answer - Paris", "Paris"),
        ("Answer – Paris", "Paris"),
        ("```\nParis\n```", "Paris"),
        ("```text\n[FINAL_ANSWER] Paris [/FINAL_ANSWER]\n```", "Paris"),
        ('```json\n{"answer": "Paris"}\n```', "Paris"),
    ],
)
def test_formats_seen_in_the_reliability_probe(text, answer):
    """Regression (probe round 2): a trailing zero-width space, angle-bracket tags, a
    ``FINAL_ANSWER:`` or ``Answer -`` prefix and a fenced block each lost the answer."""
    assert extract_final_answer(text) == answer
