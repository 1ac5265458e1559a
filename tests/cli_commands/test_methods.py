"""``ace-lab methods``: every registered name, head, variant family, ``auto`` and composition in
at most 100 columns, each example name one the registry resolves."""

from __future__ import annotations

import pytest

from ace_lab.cli import main
from ace_lab.cli_commands.methods import WIDTH, examples, listing
from ace_lab.registry import METHODS, head_of, spec
from ace_lab.registry.compose import source_heads


def test_the_listing_fits_in_100_columns(capsys):
    assert WIDTH == 100
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    too_wide = [line for line in out.splitlines() if len(line) > WIDTH]
    assert not too_wide, too_wide
    assert out.strip() == listing().strip()


def test_the_listing_names_every_method_head_auto_and_composition():
    text = listing()
    rows = {line.split()[0] for line in text.splitlines() if line and not line.startswith(" ")}
    assert set(METHODS) <= rows  # every registered name starts a row
    heads = {head_of(name) for name in METHODS} | set(source_heads()) | {"auto"}
    assert all(head in text for head in heads)
    assert "auto:<λ>" in text and "<source>/<method>" in text
    assert "'>' is the same separator" in text  # the old spelling, and why to quote it
    assert examples()  # every plugin's examples, and its compositions
    for example in examples():
        assert example in text, example


@pytest.mark.parametrize("name", examples())
def test_every_example_name_resolves(name):
    assert spec(name).name
