"""The chooser's committed table, model and figures regenerate byte for byte from the records."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ace_lab.chooser import ChooserModel
from ace_lab.eval.reporting.chooser import regenerate

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
FIGURES = ROOT / "figures"


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
