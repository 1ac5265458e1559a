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
