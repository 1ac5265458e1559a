"""ace_lab.data.picks: questions of a slice by id or position, each once, in the order asked."""

from __future__ import annotations

import pytest

from ace_lab.data import load_dataset, pick_questions


def test_pick_questions_by_id_or_position():
    questions = load_dataset("toy").questions
    ids = [q.id for q in questions]
    assert [q.id for q in pick_questions(questions)] == ids[:3]
    picked = pick_questions(questions, [ids[4], 0, "4", ids[0]])
    assert [q.id for q in picked] == [ids[4], ids[0]]
    with pytest.raises(KeyError):
        pick_questions(questions, ["no-such-question"])
    with pytest.raises(IndexError):
        pick_questions(questions, [len(questions)])
