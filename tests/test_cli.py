"""ace_lab.cli: commands that need no LLM (the method registry listing)."""

from __future__ import annotations

from ace_lab.cli import main
from ace_lab.registry import METHODS


def test_methods_lists_every_registered_method_with_its_family(capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert all(name in lines for name in METHODS)
    assert "openie" in lines["hipporag"] and "hierarchical" in lines["ace-full"]


def test_methods_name_lists_every_setting_with_bounds_and_help(capsys):
    assert main(["methods", "ace-fixed:gap+depth"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ace-fixed:gap+depth (hierarchical graph)")
    assert "ContextPolicy" in out and "⊆ {depth, breadth}" in out
    assert "prune_threshold" in out and "[-1, 1]" in out


def test_an_unknown_method_is_a_clear_error(capsys):
    assert main(["methods", "bogus"]) == 2
    assert "unknown method 'bogus'" in capsys.readouterr().err


def test_semantic_judges_a_study_and_prints_its_table(tmp_path, monkeypatch, capsys):
    # Every answer takes a fast path (exact, yes/no, empty): no LLM call is made.
    import json

    folder = tmp_path / "toy-n2-s0"
    folder.mkdir()
    rows = [
        {"id": "a", "position": 0, "method": "hirag", "question": "Who?", "gold": ["Ada"],
         "answer": "ada", "em": 1.0},
        {"id": "b", "position": 1, "method": "hirag", "question": "Both?", "gold": ["yes"],
         "answer": "No.", "em": 0.0},
    ]  # fmt: skip
    (folder / "hirag.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("ACE_LAB_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # never reached
    monkeypatch.setenv("ACE_LAB_LLM_MODEL", "judge-under-test")
    assert main(["semantic", "--study", "toy-n2-s0"]) == 0
    out = capsys.readouterr().out
    assert "2 answers judged now" in out and "judge-under-test" in out
    assert (folder / "semantic" / "verdicts.jsonl").read_text().count("\n") == 2
