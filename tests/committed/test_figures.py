"""Every committed figure reads in a paper: no two texts overlap, none under 7 pt, none wider
than two columns (``ace_lab.viz.text_layout.layout_problems``).

Each figure is drawn again here by the function that wrote it, from the committed records and
with the parameters of the notebook or report that writes it (read from the notebook's
parameters cell, so the two cannot drift apart). A committed figure this file cannot draw from
committed files alone is listed in :data:`DRAWN_ELSEWHERE` with the reason; a new committed
figure in neither place fails :func:`test_every_committed_figure_is_checked`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from ace_lab.viz.text_layout import layout_problems
from tests.support.paths import REPO

RESULTS = REPO / "results"
FIGURES = REPO / "figures"
#: Committed figures not drawn here, and why (what they need beyond committed records).
DRAWN_ELSEWHERE: dict[str, str] = {
    "00_passage_length_distributions": "every full benchmark set (notebook 00, not in a clone)",
    "00_questions_per_set_and_type": "every full benchmark set (notebook 00, not in a clone)",
    "03_stage_costs": "an answer notebook 03 replays from data/responses/",
    "04_interface": "a pyvis view's picture from an answer notebook 04 replays",
    "04_witness": "a pyvis view's picture from an answer notebook 04 replays",
    "05_exploration": "a pyvis view's picture from an answer notebook 05 replays",
    "05_stopping_curve": "MOSAIC slice runs notebook 05 replays",
}


def _parameters(notebook: str) -> dict:
    """The values of ``notebook``'s parameters cell (its first code cell)."""
    cells = json.loads((REPO / "notebooks" / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    first = next(c for c in cells["cells"] if c["cell_type"] == "code")
    values: dict = {}
    exec("".join(first["source"]), values)  # assignments of literals only
    return values


def _study(study: str) -> tuple[str, str]:
    """A study's data set label and answering model, from its manifest."""
    manifest = json.loads((RESULTS / study / "manifest.json").read_text(encoding="utf-8"))
    return manifest.get("dataset") or study, str(manifest.get("model", "?"))


def _table(study: str, name: str) -> pd.DataFrame:
    """The table ``name`` the notebook exported beside ``study`` (what its figure draws)."""
    return pd.read_csv(RESULTS / study / f"{name}.csv")


def _budget_grid() -> Iterator[tuple[str, plt.Figure]]:
    from ace_lab.arc import report as arc_report

    grid = pd.read_csv(RESULTS / "04_budget_grid_pooled.csv")
    title = "EM against the ArcRAG budget (studies pooled)"
    yield "04_budget_grid", arc_report.grid_figure(grid, title=title)


def _main_results() -> Iterator[tuple[str, plt.Figure]]:
    from ace_lab.eval.reporting import plots

    p = _parameters("06_main_results")
    panels = [plots.Panel(*_study(s), _table(s, "main_results")) for s in p["studies"]]
    yield "06_main_results", plots.forest_plot(panels, p["methods"])


def _graphragbench() -> Iterator[tuple[str, plt.Figure]]:
    from ace_lab.eval.graphragbench import plots as grb_plots

    for study in _parameters("06_main_results")["grb_studies"]:
        label, _ = _study(study)
        table = _table(study, "graphragbench")
        methods = list(dict.fromkeys(table["method"]))
        figure = grb_plots.grb_figure(table, "answer_correctness", methods, title=label)
        yield f"06_{label}_answer_correctness", figure


def _ablations() -> Iterator[tuple[str, plt.Figure]]:
    from ace_lab.ace import report as ace_report
    from ace_lab.eval.reporting import plots

    p = _parameters("07_ablations")
    panels = [plots.Panel(*_study(s), _table(s, "07_ablations")) for s in p["studies"]]
    figure = ace_report.ablation_plot(panels, full=p["full"], adaptive=p["adaptive"])
    yield "07_ablations", figure


def _router() -> Iterator[tuple[str, plt.Figure]]:
    from ace_lab.ace import report as ace_report

    p = _parameters("08_context_and_cost")
    shares = {_study(s)[0]: _table(s, "08_router_distribution") for s in p["studies"]}
    changes = {_study(s)[0]: _table(s, "08_f1_change_by_topology") for s in p["studies"]}
    figure = ace_report.router_figure(shares, changes, adaptive=p["adaptive"], full=p["full"])
    yield "08_router", figure


def _mosaic_policies() -> Iterator[tuple[str, plt.Figure]]:
    from dataclasses import replace

    from ace_lab.config import load_settings
    from ace_lab.data import load_slice
    from ace_lab.mosaic import report as mosaic_report

    p = _parameters("05_mosaic_policies")
    assert p["slice_records"] == "results"  # what the committed figures were drawn from
    slice_ = load_slice(p["dataset"], p["n"], seed=p["seed"])
    names = mosaic_report.with_family(p["methods"], p["family"])
    mosaic, wide = mosaic_report.with_family(["mosaic", p["reference"]], p["family"])
    # every method's committed slice records, as the notebook reads them: none is answered
    # here, so no graph or model is needed (nothing is traced)
    runs = mosaic_report.slice_runs(
        None,
        None,
        slice_.questions,
        names,
        study=slice_.slice_id,
        settings=replace(load_settings(tier=p["tier"]), results_dir=RESULTS),
        models={"model": p["tier"], "graph_model": p["graph_model"]},
        progress=None,
    )
    prefix = p["figure_prefix"]
    yield f"{prefix}_policy_distribution", mosaic_report.policy_histograms(runs.records, mosaic)
    effort = mosaic_report.effort_table(runs.records, names, reference=wide)
    yield f"{prefix}_effort_vs_wide", mosaic_report.effort_figure(effort)


def _chooser(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[str, plt.Figure]]:
    from ace_lab.eval.reporting import chooser

    # the committed table the report draws from (fitting it again takes minutes)
    table = pd.read_csv(RESULTS / "chooser" / "chooser_cv.csv", keep_default_na=False)
    yield "09_chooser_curves", chooser.curves_figure(table)
    drawn: list[tuple[str, plt.Figure]] = []
    # pareto_figures saves each figure as it draws it: keep them instead (nothing is written;
    # a closed figure still draws)
    monkeypatch.setattr(
        chooser, "save_figure", lambda fig, stem, _: drawn.append((stem, fig)) or []
    )
    chooser.pareto_figures(RESULTS, table, tmp_path)
    yield from drawn


def _graph_plots() -> Iterator[tuple[str, plt.Figure]]:
    from ace_lab import viz
    from ace_lab.config import load_settings
    from ace_lab.graph.build import load_or_build
    from ace_lab.llm import LLM

    p = _parameters("02_openie_and_typed_graphs")
    settings = load_settings(tier=p["tier"])
    llm = LLM(settings)  # never called: the committed graphs are read, not built
    key = (p["dataset"], p["n"])
    graphs = {
        family: load_or_build(
            *key, family, rebuild=False, seed=p["seed"], settings=settings, llm=llm
        )[0]
        for family in ("hierarchical", "openie", "typed")
    }
    hierarchical = graphs.pop("hierarchical")
    yield "01_nodes_per_level", viz.plot_nodes_per_level(hierarchical)
    yield "01_degree_distribution", viz.plot_degree_distributions({"hierarchical": hierarchical})
    yield "02_relation_vocabulary", viz.plot_relation_vocabulary(graphs)
    yield "02_degree_distributions", viz.plot_degree_distributions(graphs)


def _budget_sweeps() -> Iterator[tuple[str, plt.Figure]]:
    from ace_lab.eval.reporting.budget_report import budget_figure
    from ace_lab.viz.names import dataset_name

    for path in sorted(FIGURES.glob("budget_*.png")):
        slice_id = path.stem.removeprefix("budget_")
        curves = pd.read_csv(RESULTS / f"{slice_id}-evidence" / "budget_curves.csv")
        yield path.stem, budget_figure(curves, dataset_name(slice_id))


def _headline_tasks() -> list:
    from ace_lab.eval.reporting.headline import TASKS

    return [task for task in TASKS if (FIGURES / f"{task.name}.png").is_file()]


def _headlines() -> Iterator[tuple[str, plt.Figure]]:
    from ace_lab.eval.reporting.headline import task_table
    from ace_lab.eval.reporting.headline_report import headline_figure

    for task in _headline_tasks():
        _, points = task_table(task, RESULTS)
        yield task.name, headline_figure(points, task)


#: What draws the committed figures, by group (a group reads its inputs once).
DRAWERS: dict[str, Callable[..., Iterator[tuple[str, plt.Figure]]]] = {
    "budget grid": _budget_grid,
    "main results": _main_results,
    "GraphRAG-Bench": _graphragbench,
    "ablations": _ablations,
    "router": _router,
    "MOSAIC policies": _mosaic_policies,
    "chooser": _chooser,
    "graph plots": _graph_plots,
    "budget sweeps": _budget_sweeps,
    "headlines": _headlines,
}
#: The committed figures each group draws (checked against what it yields).
DRAWN: dict[str, tuple[str, ...]] = {
    "budget grid": ("04_budget_grid",),
    "main results": ("06_main_results",),
    "GraphRAG-Bench": (
        "06_graphragbench_medical_answer_correctness",
        "06_graphragbench_novel_answer_correctness",
    ),
    "ablations": ("07_ablations",),
    "router": ("08_router",),
    "MOSAIC policies": ("05_policy_distribution", "05_effort_vs_wide"),
    "chooser": (
        "09_chooser_curves",
        "09_pareto_hotpotqa",
        "09_pareto_2wiki",
        "09_pareto_musique",
        "09_pareto_grb_novel",
        "09_pareto_grb_medical",
    ),
    "graph plots": (
        "01_nodes_per_level",
        "01_degree_distribution",
        "02_relation_vocabulary",
        "02_degree_distributions",
    ),
    "budget sweeps": tuple(p.stem for p in sorted(FIGURES.glob("budget_*.png"))),
    "headlines": tuple(task.name for task in _headline_tasks()),
}


def test_every_committed_figure_is_checked():
    committed = {path.stem for path in FIGURES.glob("*.png")}
    checked = {stem for stems in DRAWN.values() for stem in stems} | set(DRAWN_ELSEWHERE)
    assert committed - checked == set(), (
        "committed figures no test draws: add them to DRAWERS (or, if they need more than "
        "committed files, to DRAWN_ELSEWHERE with the reason)"
    )
    assert checked - committed == set(), "checked figures that are not committed"


@pytest.mark.parametrize("group", list(DRAWERS))
def test_committed_figures_have_no_overlapping_or_small_text(group, monkeypatch, tmp_path):
    drawer = DRAWERS[group]
    needs = drawer.__code__.co_varnames[: drawer.__code__.co_argcount]
    args = {"monkeypatch": monkeypatch, "tmp_path": tmp_path}
    problems, names = {}, []
    for name, fig in drawer(*(args[n] for n in needs)):
        names.append(name)
        found = layout_problems(fig)
        if found:
            problems[name] = found
        plt.close(fig)
    assert sorted(names) == sorted(DRAWN[group])
    assert problems == {}
