"""ace_lab.eval.reporting.docs_numbers: generated parts of a document, their figures, and loose
numbers."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ace_lab.eval.reporting import docs_numbers, tables
from ace_lab.eval.reporting.docs_numbers import (
    FIGURES,
    loose_numbers,
    main_table_markdown,
    regenerate,
    stale_parts,
)
from tests.support.records import result_record


@pytest.fixture
def results(tmp_path):
    """A results directory with one study: hirag and naive on four questions."""
    study = tmp_path / "toy-n4-s0"
    study.mkdir()
    for method, ems in (("hirag", [1, 1, 0, 1]), ("naive", [1, 0, 0, 0])):
        lines = [
            json.dumps(result_record(method, i, em=float(em), f1=float(em), context_tokens=100))
            for i, em in enumerate(ems)
        ]
        (study / f"{method}.jsonl").write_text("\n".join(lines) + "\n")
    docs_numbers.study_records.cache_clear()
    yield tmp_path
    docs_numbers.study_records.cache_clear()


def test_inline_figures_are_regenerated_in_place(results):
    key = "hits toy-n4-s0 hirag em"
    text = f"HiRAG answers <!-- {key}: begin -->0 of 0<!-- {key}: end -->."
    assert regenerate(text, FIGURES, results) == text.replace("0 of 0", "3 of 4")
    assert FIGURES["hits_on"](results, ("toy-n4-s0", "naive", "em", "hirag")) == "1 of 4"
    mean = "<!-- mean toy-n4-s0 naive em: begin -->x<!-- mean toy-n4-s0 naive em: end -->"
    assert "-->0.250<!--" in regenerate(mean, FIGURES, results)
    key = "paired toy-n4-s0 hirag naive em"
    paired = f"<!-- {key}: begin --><!-- {key}: end -->"
    assert "-->+0.500 [" in regenerate(paired, FIGURES, results)
    assert "], p = " in regenerate(paired, FIGURES, results)


def test_a_hand_typed_figure_that_disagrees_is_stale(results):
    key = "hits toy-n4-s0 hirag em"
    right = f"<!-- {key}: begin -->3 of 4<!-- {key}: end -->"
    assert stale_parts(right, FIGURES, results) == []
    wrong = right.replace("3 of 4", "4 of 4")
    (line,) = stale_parts(wrong, FIGURES, results)
    assert "'4 of 4'" in line and "'3 of 4'" in line


def test_an_unknown_kind_is_an_error(results):
    with pytest.raises(ValueError, match="unknown generated part 'nope 1'"):
        regenerate("<!-- nope 1: begin -->x<!-- nope 1: end -->", FIGURES, results)


def test_loose_numbers_are_the_ones_outside_parts_code_and_allowed_phrases():
    text = (
        "F1 of qwen1.5b on 2Wiki is 0.42 (`n = 8` in code),\n"
        "<!-- ci a b c: begin -->0.5 [0.1, 0.9]<!-- ci a b c: end --> in notebook 06.\n"
        "```bash\nace-lab run --n 20\n```\n"
    )
    assert [f.split(" in ")[0] for f in loose_numbers(text)] == ["'0.42'", "'06'"]
    assert [f.split(" in ")[0] for f in loose_numbers(text, [r"notebook \d\d"])] == ["'0.42'"]


def _combined(tmp_path):
    """A two-data-set main table written and read back as ``results/main_table.csv`` is."""
    rows = [
        result_record(
            "hirag",
            i,
            em=1.0,
            f1=1.0,
            context_tokens=10 * (i + 1),
            passage_recall=0.5,
            provenance_recall=1.0,
        )
        for i in range(2)
    ]
    main = tables.main_table(pd.DataFrame(rows), ["hirag"])
    combined = tables.main_table_by_dataset({"hotpotqa_dev_sample200": main, "x": main}, ["hirag"])
    combined.to_csv(tmp_path / "main_table.csv", index=False)
    return pd.read_csv(tmp_path / "main_table.csv")


def test_main_table_markdown_splits_accuracy_and_contexts(tmp_path):
    accuracy, context = main_table_markdown(_combined(tmp_path)).split("\n\n")
    assert (
        accuracy.splitlines()[0]
        == "| method | HotpotQA n | HotpotQA EM | HotpotQA F1 | x n | x EM | x F1 |"
    )
    assert accuracy.splitlines()[2].startswith("| `hirag` | 2 | 1.000 [")
    assert context.splitlines()[0].startswith(
        "| method | HotpotQA context tokens | HotpotQA passage"
    )
    # coverage from the run's context_has_answer; no facts, step tokens or raw replies: empty
    assert "| `hirag` | 15.000 | 0.500 | 1.000 | 1.000 |  |  |  | 15.000 |" in context


def test_a_block_part_is_written_on_lines_of_its_own(tmp_path):
    _combined(tmp_path)
    text = "intro\n<!-- main_table: begin -->\nold\n<!-- main_table: end -->\nend\n"
    new = regenerate(text, FIGURES, tmp_path)
    assert new.startswith("intro\n<!-- main_table: begin -->\n| method |") and "old" not in new
    assert new.endswith("|\n<!-- main_table: end -->\nend\n")
    assert regenerate(new, FIGURES, tmp_path) == new


def test_figures_across_studies_and_from_committed_tables(results):
    rerun = results / "toy-rerun"
    rerun.mkdir()
    lines = [
        json.dumps(result_record("hirag", i, em=1.0, f1=1.0, answer="a" if i else "b"))
        for i in range(2)
    ]
    (rerun / "hirag.jsonl").write_text("\n".join(lines) + "\n")
    (results / "toy-n4-s0" / "hirag.jsonl").write_text(
        "".join(json.dumps(result_record("hirag", i, em=0.0, answer="a")) + "\n" for i in range(4))
    )
    across = FIGURES["across"](results, ("toy-rerun", "hirag", "toy-n4-s0", "hirag", "em"))
    assert across.startswith("1.000 vs 0.000 (paired +1.000 [+1.000, +1.000], p = ")
    same = ("toy-rerun", "hirag", "toy-n4-s0", "hirag")
    assert FIGURES["same_answers"](results, same) == "1 of 2"
    pd.DataFrame({"method": ["a", "b"], "share": [0.5, 0.037]}).to_csv(
        results / "toy-n4-s0" / "t.csv", index=False
    )
    assert FIGURES["cell"](results, ("toy-n4-s0/t", "share", "pct", "method=a")) == "50 %"
    assert FIGURES["cell"](results, ("toy-n4-s0/t", "share", "pct", "method=b")) == "3.7 %"
    assert FIGURES["cell"](results, ("toy-n4-s0/t", "share", "2", "method=b")) == "0.04"
    with pytest.raises(ValueError, match="0 rows match"):
        FIGURES["cell"](results, ("toy-n4-s0/t", "share", "pct", "method=c"))


def test_a_committed_table_is_copied_as_a_block_and_a_stale_copy_is_detected(tmp_path):
    bench = tmp_path / "bench"
    bench.mkdir()
    table = "Regenerate with `python bench/x.py --out results/bench/x`.\n\n| k | s |\n|---|---:|\n"
    (bench / "x.md").write_text(table + "| 1 | 2.50 |\n")
    key = "table bench/x"
    text = f"Before.\n<!-- {key}: begin -->\nold\n<!-- {key}: end -->\nAfter.\n"
    fresh = regenerate(text, FIGURES, tmp_path)
    assert f"<!-- {key}: begin -->\n{table}| 1 | 2.50 |\n<!-- {key}: end -->" in fresh
    assert stale_parts(fresh, FIGURES, tmp_path) == []
    (bench / "x.md").write_text(table + "| 1 | 3.10 |\n")  # the bench ran again
    assert [line.split(":")[0] for line in stale_parts(fresh, FIGURES, tmp_path)] == [key]
    with pytest.raises(ValueError, match="no committed table"):
        regenerate("<!-- table bench/y: begin -->\n<!-- table bench/y: end -->", FIGURES, tmp_path)


def test_the_pooled_table_writes_a_dash_where_one_pair_defines_nothing(tmp_path):
    """Regression: a method sharing one question with the baseline printed "nan" cells."""
    row = {
        "method": "m",
        "baseline": "hirag",
        "slices": "hotpotqa_dev_sample200",
        "n": 1,
        "n_slice": 1.0,
        "diff": -1.0,
        "diff [95% CI]": "-1.000 [-1.000, -1.000]",
        "p_permutation": float("nan"),
        "p_holm": float("nan"),
        "sd_diff": float("nan"),
        "mde_per_slice": "—",
        "mde_slice": float("nan"),
        "n_for_+0.05": float("nan"),
    }
    pd.DataFrame([row]).to_csv(tmp_path / "main_pooled.csv", index=False)
    text = docs_numbers.pooled_table_figure(tmp_path, ())
    assert "nan" not in text and text.count("—") == 4
    assert "HotpotQA (1)" in text


def test_the_calibration_table_marks_a_judge_that_says_yes_to_everything(tmp_path):
    folder = tmp_path / "judging"
    folder.mkdir()
    judge = {"judge": "j", "judge_identity": "local:j:gguf:x+llama-server:111", "judge_prompt": "p"}
    yes = {"metric": "evidence_recall", "n_pos": 16, "n_neg": 16, **judge}
    yes |= {"accuracy": 0.5, "tpr": 1.0, "tnr": 0.0, "informative": True}  # recomputed: no
    good = {"metric": "semantic_equivalence", "n_pos": 16, "n_neg": 16, **judge}
    good |= {"accuracy": 0.75, "tpr": 0.9, "tnr": 0.6, "items": 40, "unreadable": 8}
    good |= {"accuracy_readable": 0.95}
    (folder / "calibration.json").write_text(json.dumps({"calibrations": [yes, good]}))
    lines = FIGURES["calibration"](tmp_path, ()).splitlines()
    assert "| j llama-server:111 prompt:p | 16 + 16 |" in lines[2]
    assert lines[2].endswith("| 0.500 | — | 1.000 | 0.000 | judge uninformative |")
    # the unreadable verdicts are their own column, and the accuracy without them beside
    assert lines[3].endswith("| 40 | 8 | 0.750 | 0.950 | 0.900 | 0.600 | informative |")
    with pytest.raises(docs_numbers.DocsError, match="ace-lab calibrate"):
        FIGURES["calibration"](tmp_path / "elsewhere", ())
