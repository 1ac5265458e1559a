"""ace_lab.eval.reporting.docs_records: a study README's facts read off its records and manifest
(how many questions, at which positions, the same contexts, the day a method ran)."""

from __future__ import annotations

import json

import pytest

from ace_lab.eval.reporting import docs_numbers
from ace_lab.eval.reporting.docs_numbers import DocsError
from ace_lab.eval.reporting.docs_records import FIGURES, position_ranges
from tests.support.records import RESULT_IDS, result_record

STUDY = "toy-n6-s0"


@pytest.fixture
def results(tmp_path):
    """``full`` on six questions (served from the cache on the last two, question 3 with no
    model call), ``fixed`` on the first five with the same context pieces but on question 2,
    ``late`` on two; a manifest whose runs started on two days."""
    study = tmp_path / STUDY
    study.mkdir()
    full = [
        result_record(
            "full",
            i,
            cache_hits=int(i >= 4),
            model_calls=0 if i == 2 else 2,
            context_ids=["a", "b", f"c{i}"],
        )
        for i in range(6)
    ]
    fixed = [
        result_record("fixed", i, context_ids=["x"] if i == 1 else [f"c{i}", "b", "a"])
        for i in range(5)
    ]
    late = [result_record("late", i) for i in range(2)]
    for method, records in (("full", full), ("fixed", fixed), ("late", late)):
        lines = "".join(json.dumps(r) + "\n" for r in records)
        (study / f"{method}.jsonl").write_text(lines)
    methods = {
        "full": {"started": "2026-11-29T23:00:00+00:00"},
        "fixed": {
            "started": "2026-11-28T10:00:00+00:00",
            "last_run": {"started": "2026-11-30T01:00:00+00:00"},
        },
        "late": {"started": "2026-12-01T09:00:00+00:00"},
    }
    (study / "manifest.json").write_text(json.dumps({"dataset": "toy", "methods": methods}))
    docs_numbers.study_records.cache_clear()
    yield tmp_path
    docs_numbers.study_records.cache_clear()


def test_the_questions_methods_answered_are_one_number_or_an_error(results):
    assert FIGURES["questions"](results, (STUDY, "full")) == "6"
    assert FIGURES["questions"](results, (STUDY, "fixed")) == "5"
    with pytest.raises(DocsError, match="different numbers of questions"):
        FIGURES["questions"](results, (STUDY, "full", "fixed"))
    with pytest.raises(DocsError, match="no records of 'other'"):
        FIGURES["questions"](results, (STUDY, "other"))


def test_positions_count_from_one_and_join_runs():
    assert position_ranges([3, 1, 2, 5]) == "1–3, 5"
    assert position_ranges([7]) == "7"


def test_positions_of_the_questions_whose_record_holds_a_value(results):
    assert FIGURES["positions"](results, (STUDY, "late")) == "1–2"
    assert FIGURES["positions"](results, (STUDY, "full", "cache_hits=0")) == "1–4"
    assert FIGURES["positions"](results, (STUDY, "full", "cache_hits=1")) == "5–6"
    assert FIGURES["positions"](results, (STUDY, "full", "model_calls=2")) == "1–2, 4–6"
    assert FIGURES["positions"](results, (STUDY, "full", "method=full")) == "1–6"
    with pytest.raises(DocsError, match="no record of 'full' has cache_hits=3"):
        FIGURES["positions"](results, (STUDY, "full", "cache_hits=3"))
    with pytest.raises(DocsError, match="have no 'missing'"):
        FIGURES["positions"](results, (STUDY, "full", "missing=1"))


def test_same_contexts_compare_the_pieces_in_any_order(results):
    assert FIGURES["same_contexts"](results, (STUDY, "fixed", STUDY, "full")) == "4 of 5"
    assert FIGURES["same_contexts"](results, (STUDY, "full", STUDY, "full")) == "6 of 6"


def test_the_run_date_is_the_day_the_last_run_started(results):
    assert FIGURES["run_date"](results, (STUDY, "fixed")) == "2026-11-30"
    assert FIGURES["run_date"](results, (STUDY, "full")) == "2026-11-29"
    both = FIGURES["run_date"](results, (STUDY, "late", "full", "fixed"))
    assert both == "2026-11-29, 2026-11-30 and 2026-12-01"
    with pytest.raises(DocsError, match="no method 'other'"):
        FIGURES["run_date"](results, (STUDY, "other"))
    with pytest.raises(DocsError, match=r"no .*manifest\.json"):
        FIGURES["run_date"](results, ("no-such-study", "full"))


def test_a_total_sums_a_column_over_the_method_records(results):
    assert FIGURES["total"](results, (STUDY, "full", "model_calls")) == "10"
    assert FIGURES["total"](results, (STUDY, "full", "input_tokens")) == "600"
    assert FIGURES["total"](results, (STUDY, "full", "wall_s")) == "6"
    with pytest.raises(DocsError, match="holds 'missing'"):
        FIGURES["total"](results, (STUDY, "full", "missing"))


def test_judged_positions_are_those_a_judge_build_gave_a_verdict_on(results):
    verdicts = [
        {"method": "full", "id": RESULT_IDS[i], "judge_identity": f"local:m:gguf:x+{build}"}
        for i, build in [(0, "srv:old"), (1, "srv:old"), (3, "srv:new"), (1, "srv:new")]
    ]
    verdicts.append({"method": "fixed", "id": RESULT_IDS[4], "judge_identity": "m+srv:new"})
    folder = results / STUDY / "semantic"
    folder.mkdir()
    (folder / "verdicts.jsonl").write_text("".join(json.dumps(v) + "\n" for v in verdicts))
    assert FIGURES["judged_positions"](results, (STUDY, "full", "srv:old")) == "1–2"
    assert FIGURES["judged_positions"](results, (STUDY, "full", "srv:new")) == "2, 4"
    assert FIGURES["judged_positions"](results, (STUDY, "fixed", "srv:new")) == "5"
    with pytest.raises(DocsError, match="no verdict on 'late'"):
        FIGURES["judged_positions"](results, (STUDY, "late", "srv:new"))
    with pytest.raises(DocsError, match=r"no .*verdicts\.jsonl"):
        FIGURES["judged_positions"](results, ("no-such-study", "full", "srv:new"))


def test_the_evidence_table_has_one_row_per_named_method_in_that_order(results):
    table = FIGURES["evidence"](results, (STUDY, "late", "full"))
    rows = [line for line in table.splitlines() if line.startswith("| ")][2:]  # past the header
    assert [row.split("|")[1].strip() for row in rows] == ["late", "full"]
    # context_has_answer stands in for answer coverage in older records: all six covered
    assert "| full | 6 | 1.000" in table
    with pytest.raises(DocsError, match="no records of 'other'"):
        FIGURES["evidence"](results, (STUDY, "full", "other"))


def test_the_answered_table_gives_em_f1_and_the_judged_accuracy_with_its_judge(tmp_path):
    study = tmp_path / "answered"
    study.mkdir()
    for method, right in (("a", [1, 1, 0, 1]), ("b", [0, 1, 0, 0])):
        records = [
            result_record(method, i, answer=f"ans{i}", gold=[f"ans{i}"], reader="short")
            | {"em": float(ok), "f1": float(ok)}
            for i, ok in enumerate(right)
        ]
        (study / f"{method}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    judge = {"judge_model": "m", "judge_identity": "local:m", "judge_prompt": "p"}
    verdicts = [
        {"method": "a", "id": RESULT_IDS[i], "answer": f"ans{i}", "semantic": 1.0} | judge
        for i in range(3)
    ]
    (study / "semantic").mkdir()
    (study / "semantic" / "verdicts.jsonl").write_text(
        "".join(json.dumps(v) + "\n" for v in verdicts)
    )
    docs_numbers.study_records.cache_clear()
    table = FIGURES["answered"](tmp_path, ("answered", "b", "a"))
    rows = [line for line in table.splitlines() if line.startswith("| ")][2:]
    assert [row.split("|")[1].strip() for row in rows] == ["b", "a"]
    a_row = rows[1]
    assert "| a | 4 | short | 0.750 [" in a_row
    assert "1.000 [0.439, 1.000] (judged 3)" in a_row  # Wilson on 3 of 3
    assert a_row.rstrip(" |").endswith("judge not calibrated")
    assert "not judged" in rows[0]
    with pytest.raises(DocsError, match="no records of 'c'"):
        FIGURES["answered"](tmp_path, ("answered", "a", "c"))
    docs_numbers.study_records.cache_clear()


def test_the_readers_table_compares_a_study_with_its_reread(tmp_path):
    for study, reader, extra in (
        ("tagged", "tagged", {"model_calls": 1, "input_tokens": 200, "output_tokens": 60}),
        ("tagged-reread-short", "short", {"reader_input_tokens": 180, "reader_output_tokens": 4}),
    ):
        (tmp_path / study).mkdir()
        records = [
            result_record("naive", i, answer=f"ans{i}", gold=[f"ans{i}"], reader=reader)
            | {"em": 1.0, "f1": 1.0, "raw": f"ans{i}"}
            | extra
            for i in range(3)
        ]
        lines = "".join(json.dumps(r) + "\n" for r in records)
        (tmp_path / study / "naive.jsonl").write_text(lines)
    docs_numbers.study_records.cache_clear()
    table = FIGURES["readers"](tmp_path, ("tagged", "tagged-reread-short", "naive"))
    rows = [line for line in table.splitlines() if line.startswith("| ")][2:]
    assert rows[0].startswith("| tagged | 3 |") and rows[0].rstrip(" |").endswith(
        "200.000 | 60.000"
    )
    assert rows[1].startswith("| short | 3 |") and rows[1].rstrip(" |").endswith("180.000 | 4.000")
    with pytest.raises(DocsError, match="no records of 'hirag'"):
        FIGURES["readers"](tmp_path, ("tagged", "tagged-reread-short", "hirag"))
    docs_numbers.study_records.cache_clear()
