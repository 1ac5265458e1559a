"""The README as a newcomer reads it: the five-minute section's Python entry runs as written (a
scripted model plays the LLM: the build's extraction, MOSAIC's analyzer, every answer), the
section says what a newcomer needs first (the virtualenv, what the smoke tier is for, which
method to try first), and every notebook count it states is the number of notebooks."""

from __future__ import annotations

import re

import pytest

import ace_lab.ask
import ace_lab.graph.build
from ace_lab.llm import LLM
from tests.support.extraction import hierarchy_reply
from tests.support.paths import REPO
from tests.support.replies import mosaic_reply
from tests.support.scripted import ScriptedClient

README = (REPO / "README.md").read_text(encoding="utf-8")
FIVE_MINUTES = README.split("## Five minutes", 1)[1].split("\n## ", 1)[0]
#: Phrases of the graph builder's prompts (hierarchy_reply plays them).
BUILD_PROMPTS = ("knowledge graph", "levels of abstraction", "description")


def _reply(kwargs: dict) -> str:
    system = kwargs["messages"][0]["content"]
    if any(phrase in system for phrase in BUILD_PROMPTS):
        return hierarchy_reply(kwargs)
    return mosaic_reply()(kwargs)


def test_the_five_minute_section_says_what_a_newcomer_needs_first():
    text = " ".join(FIVE_MINUTES.split())
    assert "source .venv/bin/activate" in text
    assert "smoke tier" in text and "noise" in text
    assert "see the verdict table in [docs/results.md]" in text
    # --trace: the steps, then the answer (what cmd_ask prints)
    assert "prints every step the method took" in text and "then the answer" in text


@pytest.mark.integration
def test_the_python_entry_runs_as_written(tmp_path, monkeypatch, capsys):
    (block,) = re.findall(r"```python\n(.*?)```", FIVE_MINUTES, re.S)
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) == 5, "the entry is five lines"
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("ACE_LAB_USER_DATA", str(tmp_path / "user"))
    monkeypatch.setenv("ACE_LAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("ACE_LAB_GRAPHS_DIR", str(tmp_path / "graphs"))
    scripted = ScriptedClient(_reply)
    monkeypatch.setattr(ace_lab.graph.build, "LLM", lambda s: LLM(s, client=scripted))
    monkeypatch.setattr(ace_lab.ask, "get_llm", lambda s: LLM(s, client=scripted))
    exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "naive" in out and "hirag" in out  # the comparison table's rows
    assert list((tmp_path / "graphs").rglob("*")), "the graph was built outside the checkout"


NUMBER_WORDS = dict(
    zip(
        [
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ],
        range(1, 13),
        strict=True,
    )
)


def test_every_notebook_count_the_readme_states_is_the_notebooks_there():
    notebooks = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert re.findall(r"^\| `(\d\d_\w+)` \|", README, re.M) == notebooks  # its table
    pattern = r"\b(" + "|".join(NUMBER_WORDS) + r") (?:ordered )?notebooks\b"
    stated = [NUMBER_WORDS[word.lower()] for word in re.findall(pattern, README, re.I)]
    assert stated, "the README states no notebook count"
    assert set(stated) == {len(notebooks)}, f"the README says {stated}; there are {len(notebooks)}"
