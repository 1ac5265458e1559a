"""ace_lab.cli_commands.docs: `ace-lab docs` rewrites stale generated parts; --check lists them."""

from __future__ import annotations

import shutil
from pathlib import Path

from ace_lab.cli import main
from ace_lab.cli_commands.docs import DOCUMENTS, update_docs
from tests.support.paths import REPO

PART = "<!-- main_table: begin -->\n{}\n<!-- main_table: end -->\n"


def _root(tmp_path: Path) -> Path:
    """A repository with the committed main table and every document holding a stale copy."""
    (tmp_path / "results").mkdir()
    shutil.copy(REPO / "results" / "main_table.csv", tmp_path / "results" / "main_table.csv")
    for name in DOCUMENTS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("intro\n" + PART.format("stale"), encoding="utf-8")
    return tmp_path


def test_check_lists_stale_parts_and_update_rewrites_them(tmp_path):
    root = _root(tmp_path)
    stale = update_docs(root, check=True)
    assert [line.split(":")[0] for line in stale] == list(DOCUMENTS)
    assert "stale" in (root / "README.md").read_text()  # --check writes nothing
    assert len(update_docs(root)) == len(DOCUMENTS)
    assert update_docs(root, check=True) == []
    assert "| `hirag` |" in (root / "docs" / "results.md").read_text()


def test_the_command_checks_the_repository(capsys):
    assert main(["docs", "--check"]) == 0
    assert "0 generated part(s) stale" in capsys.readouterr().out
