"""Tests for ace_lab.data.user_questions: questions files in each format and the task they imply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ace_lab.data import DataError
from ace_lab.data.user_questions import answer_style, question_id, read_questions

EXPECTED = [
    {
        "id": "q1",
        "question": "Where was Ilse Marrin born?",
        "answer": "Kesterholm",
        "answer_aliases": ["the capital", "Kesterholm city"],
        "type": "bridge",
    },
    {
        "id": question_id("Who founded the observatory?"),
        "question": "Who founded the observatory?",
        "answer": None,
        "answer_aliases": [],
        "type": None,
    },
]


def test_the_three_formats_give_the_same_questions(tmp_path: Path) -> None:
    (tmp_path / "q.json").write_text(
        json.dumps(
            [
                {
                    "id": "q1",
                    "question": "Where was  Ilse Marrin born?",
                    "answer": "Kesterholm",
                    "answer_aliases": ["the capital", "Kesterholm city"],
                    "type": "bridge",
                },
                {"question": "Who founded the observatory?"},
            ]
        )
    )
    (tmp_path / "q.jsonl").write_text(
        '{"id": "q1", "question": "Where was Ilse Marrin born?", "answer": "Kesterholm", '
        '"answer_aliases": "the capital|Kesterholm city", "type": "bridge"}\n'
        '\n{"question": "Who founded the observatory?", "answer": ""}\n'
    )
    (tmp_path / "q.csv").write_text(
        "id,question,answer,answer_aliases,type\n"
        "q1,Where was Ilse Marrin born?,Kesterholm,the capital|Kesterholm city,bridge\n"
        ",Who founded the observatory?,,,\n"
    )
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"questions": json.loads((tmp_path / "q.json").read_text())}))
    for name in ("q.json", "q.jsonl", "q.csv", "wrapped.json"):
        assert read_questions(tmp_path / name) == (EXPECTED, []), name


def test_ids_default_to_a_stable_hash_of_the_question() -> None:
    assert question_id("Who founded the observatory?") == "q-05a0739b061b"  # on every machine
    assert question_id("a") == question_id("a") != question_id("b")


def test_bad_records_and_repeats_are_skipped_alone(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    records = [
        {"question": "Fine?"},
        {"answer": "no question"},
        ["not", "an", "object"],
        {"question": "Aliases?", "answer_aliases": [1, 2]},
        {"question": "Fine?"},
        {"id": "x", "question": "One"},
        {"id": "x", "question": "Two"},
    ]
    path.write_text(json.dumps(records))
    questions, skipped = read_questions(path)
    assert [q["question"] for q in questions] == ["Fine?", "One"]
    assert skipped == [
        ("q.json#1", "no 'question' text"),
        ("q.json#2", "a list, expected an object with a 'question' field"),
        ("q.json#3", "field 'answer_aliases' must be a list of strings"),
        ("q.json#4", f"repeats record 0 (same id {question_id('Fine?')!r})"),
        ("q.json#6", "repeats record 5 (same id 'x')"),
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("q.txt", "Who?", "questions must be .json, .jsonl or .csv"),
        ("q.json", "[{", "corrupt JSON"),
        ("q.csv", "query,answer\nWho?,me\n", "CSV without a 'question' column"),
        ("q.json", "", "empty file"),
    ],
)
def test_an_unreadable_questions_file_is_one_line(tmp_path, name, content, message) -> None:
    (tmp_path / name).write_text(content)
    with pytest.raises(DataError, match=message) as info:
        read_questions(tmp_path / name)
    assert "\n" not in str(info.value) and name in str(info.value)


def test_the_default_task_follows_the_gold_answers() -> None:
    def asked(*answers: str | None) -> list[dict]:
        return [{"answer": a} for a in answers]

    assert answer_style(asked("Kesterholm", "River Sende", None)) == ("qa", "spans")
    sentence = "It destroyed the first factory and closed the line until the spring."
    assert answer_style(asked(sentence, sentence, "Brinemouth")) == ("open", "sentences")
    assert answer_style(asked(None, None)) == ("open", "none")
    assert answer_style([]) == ("open", "none")
