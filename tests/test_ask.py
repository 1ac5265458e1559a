"""ace_lab.ask: choosing the question — a slice's by id, or free text with a stable id."""

from __future__ import annotations

import pytest

from ace_lab.ask import find_question, pick_question, slice_of, text_question
from ace_lab.data import DataError
from ace_lab.data.user_questions import question_id


def test_a_free_text_question_has_a_stable_id_and_no_gold():
    q = text_question("  Where is the   tidal lantern?\n", "toy")
    assert q.question == "Where is the tidal lantern?" and q.dataset == "toy"
    assert q.id == text_question("Where is the tidal lantern?", "other").id
    assert q.id.startswith("q-") and q.id != text_question("Where is it?", "toy").id
    # The id a questions file gives the same question without an id: results line up.
    assert q.id == question_id("Where is the tidal lantern?")
    assert q.answer is None and q.answers == () and q.supporting_ids == ()
    with pytest.raises(ValueError, match="empty"):
        text_question(" \n", "toy")


def test_find_question_by_id_first_by_default_and_unknown_ids_listed():
    questions = slice_of("toy", 8).questions
    assert find_question("toy", 8, None) == questions[0]
    assert find_question("toy", 8, questions[3].id) == questions[3]
    with pytest.raises(DataError, match=r"question 'nope' is not in the toy n=8 slice; e\.g\."):
        find_question("toy", 8, "nope")


def test_pick_question_checks_the_slice_and_refuses_both():
    assert pick_question("toy", 8, text="Who?").question == "Who?"
    with pytest.raises(ValueError, match="not both"):
        pick_question("toy", 8, "toy-q1", "Who?")
    with pytest.raises(DataError, match="n=9 is more than its 8 questions"):
        pick_question("toy", 9, text="Who?")  # the graph is the slice's: n still matters


def test_free_text_equal_to_a_slice_question_is_that_question_with_its_gold():
    from ace_lab.data import load_slice

    first = load_slice("toy", 8).questions[0]
    picked = pick_question("toy", 8, text=f"  {first.question} ")
    assert picked.id == first.id and picked.answers == first.answers
    assert pick_question("toy", 8, text="Who built it?").answer is None


def test_score_line_is_em_and_f1_against_the_gold_answers_only_where_there_is_one():
    from ace_lab.ask import score_line
    from ace_lab.evidence import Answer, Context
    from ace_lab.trace import Trace

    def answer(text: str) -> Answer:
        return Answer(text, Context([]), Trace())

    question = find_question("toy", 8, None)
    gold = question.answers[0]
    assert score_line(question, answer(gold)) == "EM 1  F1 1.00"
    assert score_line(question, answer("nothing like it")) == "EM 0  F1 0.00"
    assert score_line(text_question("anything?", "toy"), answer(gold)) is None


def test_a_corpus_inside_the_context_budget_is_warned_about():
    from ace_lab.ask import corpus_tokens, whole_corpus_warning
    from ace_lab.evidence import CONTEXT_BUDGET_TOKENS

    tokens = corpus_tokens("toy", 8)
    assert tokens > 0
    fits = whole_corpus_warning(tokens, budget=tokens)
    assert fits is not None and f"{tokens:,} tokens" in fits and "same passages" in fits
    assert whole_corpus_warning(tokens, budget=tokens - 1) is None
    assert whole_corpus_warning(CONTEXT_BUDGET_TOKENS + 1) is None
