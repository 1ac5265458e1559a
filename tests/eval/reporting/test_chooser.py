"""The chooser's committed table, model and figures regenerate byte for byte from the records."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ace_lab.chooser import ChooserModel
from ace_lab.eval.reporting.chooser import judge_cells, regenerate, summary_table, write_tables
from tests.support.paths import REPO

RESULTS = REPO / "results"
FIGURES = REPO / "figures"


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    out = tmp_path_factory.mktemp("chooser")
    results = out / "results"
    results.mkdir()
    for item in RESULTS.iterdir():  # the committed records, read in place
        if item.name != "chooser":
            (results / item.name).symlink_to(item)
    return out, regenerate(results, out / "figures")


def test_regeneration_matches_the_committed_files(regenerated):
    _, written = regenerated
    names = sorted(p.name for p in written)
    assert "09_chooser_curves.png" in names and "model.json" in names
    assert sum(n.startswith("09_pareto_") for n in names) == 10  # five slices, png and pdf
    for path in written:
        committed = (RESULTS / "chooser" if path.parent.name == "chooser" else FIGURES) / path.name
        assert committed.read_bytes() == path.read_bytes(), f"{committed} is stale"


def test_the_table_scores_every_chooser_against_methods_and_oracle(regenerated):
    table = pd.read_csv(RESULTS / "chooser" / "chooser_cv.csv", keep_default_na=False)
    hotpot = table[table["slice"] == "HotpotQA"]
    assert {"auto", "auto:loo", "auto:prior", "auto:slice-out", "oracle"} <= set(hotpot["row"])
    assert set(hotpot["n"]) == {20}
    oracle = hotpot[hotpot["row"] == "oracle"].set_index("lam")["accuracy"]
    single = hotpot[hotpot["lam"] == ""]["accuracy"]
    assert oracle["0"] >= single.max()
    assert {"pooled QA", "pooled GRB"} <= set(table["slice"])


def test_the_runtime_model_names_its_command_and_slices():
    model = ChooserModel.from_json((RESULTS / "chooser" / "model.json").read_text())
    assert model.command.startswith("python -m ace_lab.eval.reporting.chooser")
    assert len(model.slices) == 3 and model.metric == "f1"


def test_the_summary_sets_each_chooser_against_the_best_method_and_the_oracle():
    table = pd.DataFrame(
        [
            {"slice": "S", "metric": "F1", "n": 4, "row": r, "lam": lam, "accuracy": a, "tokens": t}
            for r, lam, a, t in (
                ("naive", "", 0.4, 100.0),
                ("hirag", "", 0.5, 300.0),
                ("auto", "0", 0.45, 200.0),
                ("auto", "inf", 0.4, 100.0),
                ("oracle", "0", 0.9, 150.0),
            )
        ]
    )
    summary = summary_table(table).set_index("row")
    assert list(summary.index) == ["best single: hirag", "auto", "oracle"]  # λ = 0 rows only
    assert summary.loc["auto", "vs best single"] == pytest.approx(-0.05)
    assert summary.loc["auto", "vs oracle"] == pytest.approx(-0.45)
    assert summary.loc["oracle", "input tokens"] == 150.0


def test_the_summary_is_computed_from_unrounded_values_and_names_the_judge(tmp_path):
    """The audit's twice-rounded cell: 0.78054 read back from a four-decimal CSV (0.7805) prints
    0.780 where the table beside it prints 0.781; the summary now comes from the unrounded table.
    A judged slice's rows carry its judge's calibration (here none: not calibrated)."""
    rows = [
        {"slice": "GRB-Medical", "metric": "judged ACC", "n": 20, "row": r, "lam": lam}
        | {"accuracy": a, "tokens": 100.0, "picked": ""}
        for r, lam, a in (("hipporag", "", 0.78054), ("auto", "0", 0.7), ("oracle", "0", 0.9))
    ]
    table = pd.DataFrame(rows)
    write_tables(table, tmp_path)
    summary = (tmp_path / "chooser" / "chooser_summary.md").read_text().splitlines()
    assert summary[0].startswith("| slice | metric | judge calibration |")
    assert "| best single: hipporag | 0.781 |" in summary[2]
    assert "judge not calibrated" in summary[2]
    cv = pd.read_csv(tmp_path / "chooser" / "chooser_cv.csv", keep_default_na=False)
    assert list(cv["judge calibration"]) == ["judge not calibrated"] * 3
    assert judge_cells(tmp_path)["HotpotQA"] == ""  # F1 needs no judge
