"""Committed tables match their data: every ``results/**/*.{md,csv,tex}`` table is remade from
the committed records by the ace_lab calls that made it, and must come out byte for byte the same.

:data:`~tests.support.table_producers.PRODUCERS` is the explicit map from each table file
(``<study>`` for any study folder) to the notebook or command that writes it and the function
that repeats its calls, with the notebooks' own default parameters (read from their papermill
``parameters`` cells). A table file with no entry fails, so a new table must be registered
there; a study README is prose, not a table. No LLM is called: records, judge verdicts and the
data sets' supporting passages (for passage recall of records written before it was stored) are
all read from disk: the studies' slices from the full sets, or from their committed files
(data/slices) on a fresh clone.

After changing a table, regenerate: ``python -m ace_lab.notebooks notebooks/06_main_results.ipynb
notebooks/07_ablations.ipynb notebooks/08_context_and_cost.ipynb``, ``ace-lab report --study
<study> --export`` for studies with ``main_table``/``cost_table``/``paired_tests``,
``python -m ace_lab.mosaic.report`` (``05_counterfactuals``, ``05_policy_diversity``),
``python -m ace_lab.ace.report.composition`` (``09_composition``), and
``ace-lab docs`` (the documentation's copies and figures, ``tests/project/test_docs.py``).
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pandas as pd
import pytest

from ace_lab.data import DataError, load_slice
from ace_lab.eval.liveness import write_liveness
from ace_lab.eval.reporting.docs_numbers import main_table_markdown
from ace_lab.eval.reporting.export import export_table, markdown_section
from tests.support.datasets import need_dataset
from tests.support.paths import REPO
from tests.support.table_producers import (
    BUDGET_COMMAND,
    HEADLINE_COMMAND,
    PRODUCERS,
    RESULTS,
    notebook_parameters,
)

SUFFIXES = (".csv", ".md", ".tex")
#: Files under results/ with a table suffix that are not tables.
PROSE = {"README.md"}


# ---------------------------------------------------------------------------------- the test
#: Tables written by their own writer (not csv/md/tex by ``export_table``): key → writer.
OWN_WRITERS = {"<study>/liveness": write_liveness}

#: Folders whose tables another test remakes from their own records (not csv/md/tex triples).
OWN_CHECK = {
    "router": "tests/bench/test_router_accuracy.py",
    "router_qfs": "tests/bench/test_router_accuracy.py",
    "serving": "tests/bench/test_llm_serving.py",
    "chooser": "tests/eval/reporting/test_chooser.py",
    "bench": "tests/bench/test_graph_scale_results.py",  # bench tables: remade from their .json
}


def committed_tables() -> list[str]:
    """Stems (relative to results/) of every table file under results/."""
    files = [
        p
        for p in RESULTS.rglob("*")
        if p.suffix in SUFFIXES
        and p.name not in PROSE
        and p.relative_to(RESULTS).parts[0] not in OWN_CHECK
    ]
    return sorted({p.relative_to(RESULTS).with_suffix("").as_posix() for p in files})


def producer_key(stem: str) -> tuple[str, str]:
    """(the :data:`PRODUCERS` key of a table stem, its study or "")."""
    study, _, name = stem.rpartition("/")
    return (f"<study>/{name}" if study else name), study


@pytest.fixture(scope="module", autouse=True)
def _benchmark_data() -> None:
    """Passage recall of older records needs each study's slice (its supporting ids): from the
    full set, or its committed file (data/slices) where the full set is absent."""
    for manifest in RESULTS.glob("*/manifest.json"):
        study = json.loads(manifest.read_text(encoding="utf-8"))
        dataset = study.get("dataset")
        if dataset and dataset != "toy":
            try:
                load_slice(dataset, study.get("n"), seed=study.get("seed", 0))
            except DataError:
                need_dataset(dataset)


def _first_difference(path: Path, made: Path) -> str:
    old, new = path.read_text(encoding="utf-8"), made.read_text(encoding="utf-8")
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), "committed", "remade", n=0)
    return "\n".join(list(diff)[:12])


@pytest.mark.parametrize("stem", committed_tables())
def test_committed_table_is_what_its_producer_makes(stem, tmp_path):
    key, study = producer_key(stem)
    assert key in PRODUCERS, f"results/{stem}: no producer; register it in PRODUCERS"
    who, remake = PRODUCERS[key]
    made = remake(study)
    assert stem in made, f"results/{stem}: {who} does not make it (stale, or not in its studies)"
    writer = OWN_WRITERS.get(key, lambda t, d: export_table(t, Path(stem).name, d))
    paths = writer(made[stem], tmp_path)
    for suffix in SUFFIXES:
        committed = RESULTS / f"{stem}{suffix}"
        if committed.is_file():
            fresh = paths[suffix[1:]]
            assert committed.read_bytes() == fresh.read_bytes(), (
                f"results/{stem}{suffix} differs from what {who} makes now; regenerate it "
                f"(see this file's docstring):\n{_first_difference(committed, fresh)}"
            )


def test_every_table_file_has_its_csv():
    """A table is exported as csv, md and tex together; a lone md is hand-made or stale."""
    lone = [s for s in committed_tables() if not (RESULTS / f"{s}.csv").is_file()]
    assert not lone, f"tables without their csv: {lone}"


def test_the_producer_map_names_real_producers_and_finds_keys():
    assert producer_key("main_table") == ("main_table", "")
    assert producer_key("hotpot-n20/08_cost") == ("<study>/08_cost", "hotpot-n20")
    assert producer_key("hotpot-n20/new_table")[0] not in PRODUCERS  # so it would fail above
    assert notebook_parameters("07_ablations")["figure_prefix"] == "07"
    assert notebook_parameters("08_context_and_cost")["figure_prefix"] == "08"
    assert {who for who, _ in PRODUCERS.values()} == {
        "notebook 04",
        "notebook 06",
        "notebook 07",
        "notebook 08",
        "ace-lab report --export",
        "python -m ace_lab.mosaic.report",
        "python -m ace_lab.ace.report.composition",
        BUDGET_COMMAND,
        "ace-lab verdicts",
        HEADLINE_COMMAND,
        "ace-lab liveness",
    }


def test_results_page_copies_the_main_table():
    page = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    combined = pd.read_csv(RESULTS / "main_table.csv")
    expected = markdown_section(page, "main_table", main_table_markdown(combined))
    assert page == expected, (
        "docs/results.md's main table differs from results/main_table.csv; run `ace-lab docs`"
    )
