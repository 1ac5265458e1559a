"""ace_lab.eval.reporting.readers: two readers on the same contexts, compared on the questions
both hold, with the answer call's own tokens."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.eval.reporting.readers import READER_VIEW, reader_comparison


def _records(answers: list[str], **columns) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "method": "naive",
            "id": [f"q{i}" for i in range(len(answers))],
            "gold": [["Paris"]] * len(answers),
            "answer": answers,
            "em": [float(a == "Paris") for a in answers],
            "f1": [float(a == "Paris") for a in answers],
            **columns,
        }
    )


def test_each_reader_is_scored_on_the_shared_questions_with_its_answer_call_tokens() -> None:
    tagged = _records(
        ["Paris", "Lyon", "Paris", "Nice"],
        raw=["[FINAL_ANSWER] Paris [/FINAL_ANSWER]", "Lyon", "x [FINAL_ANSWER] Paris", "Nice"],
        reader="tagged",
        model_calls=1,
        input_tokens=[100, 120, 140, 160],
        output_tokens=[50, 70, 90, 500],
    )
    short = _records(
        ["Paris", "Paris", "Paris"],
        raw=["Paris", "Paris", " Paris"],
        reader="short",
        model_calls=1,
        input_tokens=0,
        output_tokens=0,
        reader_input_tokens=[90, 110, 130],
        reader_output_tokens=[3, 3, 6],
    )  # the reread holds q0–q2 only, so q3 (tagged's 500 output tokens) is left out
    table = reader_comparison(tagged, short, "naive")
    assert list(table.columns) == READER_VIEW
    first, second = table.to_dict("records")
    assert (first["reader"], first["n"], second["reader"], second["n"]) == ("tagged", 3, "short", 3)
    assert first["format_compliance"] == pytest.approx(1 / 3)
    assert second["format_compliance"] == pytest.approx(2 / 3)  # a leading space breaks it
    assert first["EM [95% CI]"].startswith("0.667") and second["EM [95% CI]"].startswith("1.000")
    assert first["F1 vs first reader (paired)"] == ""
    assert second["F1 vs first reader (paired)"].startswith("+0.333 [")
    assert (first["answer input tokens"], first["answer output tokens"]) == (120, 70)
    assert (second["answer input tokens"], second["answer output tokens"]) == (110, 4)


def test_a_source_with_calls_besides_the_answer_is_refused() -> None:
    ace = _records(
        ["Paris"],
        raw=["Paris"],
        reader="tagged",
        model_calls=3,
        input_tokens=900,
        output_tokens=300,
    )
    short = _records(
        ["Paris"], raw=["Paris"], reader="short", reader_input_tokens=[90], reader_output_tokens=[3]
    )
    with pytest.raises(ValueError, match="besides the answer"):
        reader_comparison(ace, short, "naive")
    with pytest.raises(ValueError, match="share no question"):
        reader_comparison(ace, short.assign(id="other"), "naive")
