"""What each producer of a committed table writes: the calls of the notebook or command that
made each ``results/`` table, repeated with the notebooks' own default parameters (read from their
papermill ``parameters`` cells), and :data:`PRODUCERS`, the map from each table file to them
(``tests/committed/test_results.py`` remakes every table with it)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any

import pandas as pd

from ace_lab.ace.report import composition as ace_composition
from ace_lab.ace.report import tables as ace_tables
from ace_lab.arc.report import results as arc_results
from ace_lab.arc.report.families import family_table
from ace_lab.cli_commands.liveness import study_liveness
from ace_lab.cli_commands.verdicts import VERDICTS, all_claims
from ace_lab.config import load_settings
from ace_lab.eval import judging
from ace_lab.eval.graphragbench import store as graphragbench_store
from ace_lab.eval.judging import semantic
from ace_lab.eval.metrics.context_stats import with_context
from ace_lab.eval.reporting import pooled as pooling
from ace_lab.eval.reporting import revisions, tables
from ace_lab.eval.reporting.budget_report import (
    POWER_TABLE,
    budget_tables,
    power_table,
    study_task,
    sweep_metrics,
)
from ace_lab.eval.reporting.docs_numbers import study_records
from ace_lab.eval.reporting.headline import TASKS, task_table
from ace_lab.eval.reporting.report import StudyReport
from ace_lab.eval.reporting.verdicts import verdict_markdown, verdict_table
from ace_lab.eval.studies.study import load_results
from ace_lab.mosaic.report import policies as mosaic_tables
from ace_lab.mosaic.report import regenerate as mosaic_regenerate
from tests.support.paths import REPO

BUDGET_COMMAND = "python -m ace_lab.eval.reporting.budget_report"
HEADLINE_COMMAND = "python -m ace_lab.eval.reporting.headline_report"
RESULTS = REPO / "results"
SETTINGS = replace(load_settings(), results_dir=RESULTS)

Tables = dict[str, pd.DataFrame]  # table stem relative to results/ → table


def notebook_parameters(name: str) -> dict[str, Any]:
    """The defaults of a notebook's papermill ``parameters`` cell."""
    cells = json.loads((REPO / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    (cell,) = [c for c in cells["cells"] if "parameters" in c["metadata"].get("tags", [])]
    values: dict[str, Any] = {}
    exec("".join(cell["source"]), {}, values)
    return values


def _report() -> StudyReport:
    return StudyReport(SETTINGS)


# ------------------------------------------------------------------ what each producer writes
@cache
def notebook_06() -> Tables:
    """notebooks/06_main_results.ipynb: per study ``main_results`` (tables.main_table) and
    ``main_results_paired`` (tables.paired_tests), ``semantic`` (eval.semantic); ``main_table``
    (tables.main_table_by_dataset); ``main_pooled`` (pooled.pooled_tests); ``main_revisions``
    (revisions.revision_table);
    ``<qfs_study>/qfs_preferences`` (judging.preference_table); per GraphRAG-Bench study
    ``graphragbench`` (graphragbench_store.grb_table over the stored scores) and
    ``graphragbench_paired`` (graphragbench_store.grb_paired against ``grb_baseline``)."""
    p = notebook_parameters("06_main_results")
    methods, baseline = p["methods"], p["baseline"]
    found = _report().load_studies(p["studies"], methods, require=methods)
    out: Tables = {}
    main = {}
    for study, info in found.items():
        present = info.present(methods)
        main[study] = out[f"{study}/main_results"] = tables.main_table(info.df, present)
        verdicts = semantic.load_semantic(study, SETTINGS)
        if not (judged := semantic.semantic_report(info.df, verdicts, present)).empty:
            out[f"{study}/semantic"] = judged
        if baseline in present and len(present) > 1:
            out[f"{study}/main_results_paired"] = tables.paired_tests(info.df, baseline, present)
    combined = tables.main_table_by_dataset({found[s].label: t for s, t in main.items()}, methods)
    if not combined.empty:
        out["main_table"] = combined
    frames = {info.label: info.df for info in found.values()}
    if not (pooled := pooling.pooled_tests(frames, baseline, methods)).empty:
        out["main_pooled"] = pooled
    if not (revised := revisions.revision_table(frames, p["revisions"])).empty:
        out["main_revisions"] = revised
    if p["qfs_study"]:
        pairs = [tuple(pair) for pair in p["qfs_pairs"]]
        preferences = judging.preference_table(p["qfs_study"], pairs, SETTINGS)
        if (preferences["n"] > 0).any():
            out[f"{p['qfs_study']}/qfs_preferences"] = preferences
    listed = [m for m in p["grb_methods"] if m != mosaic_tables.BUDGET_MATCHED]
    grb_infos = _report().load_studies(p["grb_studies"], listed)
    for study, info in grb_infos.items():
        names = info.present(mosaic_tables.with_budget_matched(p["grb_methods"], info.df))
        scores = graphragbench_store.load_scores(study, SETTINGS)
        graded = graphragbench_store.grb_table(info.df, scores, names)
        if not graded.empty:
            out[f"{study}/graphragbench"] = graded
            paired = graphragbench_store.grb_paired(info.df, scores, p["grb_baseline"], names)
            if not paired.empty:
                out[f"{study}/graphragbench_paired"] = paired
    grb_pooled = graphragbench_store.pooled_table(grb_infos, listed, p["grb_baseline"], SETTINGS)
    if not grb_pooled.empty:
        out["graphragbench_pooled"] = grb_pooled
    return out


@cache
def notebook_07() -> Tables:
    """notebooks/07_ablations.ipynb: per study ``07_ablations`` (ace_tables.ablation_report with
    context_stats.with_context); ``<qfs_study>/07_qfs_ablations`` (judging.preference_table)."""
    p = notebook_parameters("07_ablations")
    full, ablations, adaptive, prefix = p["full"], p["ablations"], p["adaptive"], p["figure_prefix"]
    wanted = ace_tables.ablation_methods(full, ablations, adaptive)
    found = _report().load_studies(p["studies"], wanted, require=[full, *ablations, *adaptive])
    out: Tables = {}
    for study, info in found.items():
        table = ace_tables.ablation_report(
            info.df, full, ablations, adaptive, n_permutations=p["n_permutations"]
        )
        out[f"{study}/{prefix}_ablations"] = with_context(table, info.df)
    if p["qfs_study"]:
        pairs = [(full, variant) for variant in p["qfs_variants"]]
        preferences = judging.preference_table(p["qfs_study"], pairs, SETTINGS)
        if not judging.preference_by_variant(preferences).empty:
            out[f"{p['qfs_study']}/{prefix}_qfs_ablations"] = preferences
    return out


@cache
def notebook_08() -> Tables:
    """notebooks/08_context_and_cost.ipynb: per study ``08_coverage`` (tables.coverage_table),
    ``08_transfer`` (tables.transfer_table), ``08_cost`` (tables.cost_table),
    ``08_router_distribution``, ``08_f1_change_by_topology``, ``08_router_accuracy`` and
    ``08_router_confusion`` (ace_tables); and
    ``<cold_study>/08_cost_cold`` (tables.cost_table)."""
    p = notebook_parameters("08_context_and_cost")
    full, adaptive, transfer, prefix = p["full"], p["adaptive"], p["transfer"], p["figure_prefix"]
    cost_methods, reference, routers = p["cost_methods"], p["reference"], p["routers"]
    wanted = list(dict.fromkeys([full, adaptive, *routers, *transfer, *cost_methods]))
    out: Tables = {}
    for study, info in _report().load_studies(p["studies"], wanted).items():
        if present := info.present([full, adaptive]):
            coverage = tables.coverage_table(info.df, present)
            out[f"{study}/{prefix}_coverage"] = coverage.rename(columns=tables.COVERAGE_LABELS)
        if info.has(*transfer):
            out[f"{study}/{prefix}_transfer"] = tables.transfer_table(info.df, *transfer)
        if present := info.present(cost_methods):
            cost = tables.cost_table(info.df, present, reference=reference)
            out[f"{study}/{prefix}_cost"] = cost
        if info.has(adaptive):
            dist = ace_tables.router_distribution(info.df, adaptive)
            out[f"{study}/{prefix}_router_distribution"] = dist
            if info.has(full):
                change = ace_tables.f1_change_by_topology(info.df, adaptive, full)
                out[f"{study}/{prefix}_f1_change_by_topology"] = change
        if present := info.present(routers):
            accuracy = ace_tables.router_accuracy(info.df, present)
            out[f"{study}/{prefix}_router_accuracy"] = accuracy
            out[f"{study}/{prefix}_router_confusion"] = ace_tables.router_confusions(
                info.df, present
            )
    cold_study = p["cold_study"]
    if cold_study and (cold := _report().load_studies([cold_study], cost_methods).get(cold_study)):
        cost = tables.cost_table(cold.df, cold.present(cost_methods), reference=reference)
        out[f"{cold_study}/{prefix}_cost_cold"] = cost
    return out


@cache
def notebook_04(study: str) -> Tables:
    """notebooks/04_arcrag_interface_and_witness.ipynb, section 8, for the study it read:
    ``04_budget_grid``, ``04_cypher_quality``, ``04_token_split`` (arc.report.results) and
    ``04_families`` (arc.report.families)."""
    df = load_results(study, SETTINGS)
    if arc_results.arc_rows(df).empty:
        return {}
    return {
        f"{study}/04_budget_grid": arc_results.budget_grid(df),
        f"{study}/04_cypher_quality": arc_results.cypher_quality(df),
        f"{study}/04_token_split": arc_results.token_split(df),
        f"{study}/04_families": family_table(df),
    }


@cache
def notebook_04_pooled() -> Tables:
    """notebooks/04_arcrag_interface_and_witness.ipynb, section 8: ``04_budget_grid_pooled``
    over its default ``results_studies``."""
    studies = notebook_parameters("04_arcrag_interface_and_witness")["results_studies"]
    records = {study: load_results(study, SETTINGS) for study in studies}
    return {"04_budget_grid_pooled": arc_results.pooled_budget_grid(records)}


@cache
def cli_report(study: str) -> Tables:
    """``ace-lab report --study <study> --export`` (ace_lab.cli_commands.studies.cmd_report, default
    ``--baseline hirag``): ``main_table``, ``cost_table`` and ``paired_tests``."""
    baseline = "hirag"
    df = load_results(study, SETTINGS)
    out = {
        f"{study}/main_table": tables.main_table(df),
        f"{study}/cost_table": tables.cost_table(df, reference=baseline),
    }
    if baseline in set(df["method"]) and df["method"].nunique() > 1:
        out[f"{study}/paired_tests"] = tables.paired_tests(df, baseline)
    return out


@cache
def mosaic_report() -> Tables:
    """``python -m ace_lab.mosaic.report`` (ace_lab.mosaic.report.regenerate): per study with
    ``mosaic`` records ``05_counterfactuals`` (retrieval replayed over its committed graph, no
    model call) and ``05_policy_diversity``."""
    return mosaic_regenerate.counterfactual_tables(SETTINGS)


@cache
def composition_report() -> Tables:
    """``python -m ace_lab.ace.report.composition``: ``09_composition``, every composed method
    the committed slices hold against its parts."""
    table = ace_composition.composition_report(RESULTS)
    return {ace_composition.TABLE: ace_composition.view(table)}


@cache
def budget_report(study: str) -> Tables:
    """``python -m ace_lab.eval.reporting.budget_report``: an evidence study's ``budget_curves``
    and ``budget_auc``."""
    metrics = sweep_metrics(study_task(study, RESULTS))
    made = budget_tables(load_results(study, SETTINGS), metrics)
    return {f"{study}/{name}": table for name, table in made.items()}


@cache
def power_report() -> Tables:
    """``python -m ace_lab.eval.reporting.budget_report``: ``power_by_metric`` over the slices."""
    return {POWER_TABLE: power_table(RESULTS)}


@cache
def headline_report() -> Tables:
    """``python -m ace_lab.eval.reporting.headline_report``: each task's headline table."""
    return {task.name: task_table(task, RESULTS)[0] for task in TASKS}


@cache
def liveness_report(study: str) -> Tables:
    """``ace-lab liveness``: a study's ``liveness`` (how often each decision took each value)."""
    return {f"{study}/liveness": study_liveness(study_records(RESULTS, study))}


@cache
def verdicts_report() -> Tables:
    """``ace-lab verdicts``: the verdict on each claim of every method report."""
    return {VERDICTS: verdict_markdown(verdict_table(all_claims(), RESULTS))}


def _notebook(make: Callable[[], Tables]) -> Callable[[str], Tables]:
    return lambda study: make()


#: Table file (stem relative to results/; ``<study>`` is any study folder) → (who writes it,
#: the function that remakes what that producer writes). Register every new table here.
PRODUCERS: dict[str, tuple[str, Callable[[str], Tables]]] = {
    "<study>/04_budget_grid": ("notebook 04", notebook_04),
    "<study>/04_cypher_quality": ("notebook 04", notebook_04),
    "<study>/04_token_split": ("notebook 04", notebook_04),
    "<study>/04_families": ("notebook 04", notebook_04),
    "04_budget_grid_pooled": ("notebook 04", _notebook(notebook_04_pooled)),
    "main_table": ("notebook 06", _notebook(notebook_06)),
    "main_pooled": ("notebook 06", _notebook(notebook_06)),
    "main_revisions": ("notebook 06", _notebook(notebook_06)),
    "<study>/main_results": ("notebook 06", _notebook(notebook_06)),
    "<study>/main_results_paired": ("notebook 06", _notebook(notebook_06)),
    "<study>/semantic": ("notebook 06", _notebook(notebook_06)),
    "<study>/qfs_preferences": ("notebook 06", _notebook(notebook_06)),
    "<study>/graphragbench": ("notebook 06", _notebook(notebook_06)),
    "<study>/graphragbench_paired": ("notebook 06", _notebook(notebook_06)),
    "graphragbench_pooled": ("notebook 06", _notebook(notebook_06)),
    "<study>/07_ablations": ("notebook 07", _notebook(notebook_07)),
    "<study>/07_qfs_ablations": ("notebook 07", _notebook(notebook_07)),
    "<study>/08_coverage": ("notebook 08", _notebook(notebook_08)),
    "<study>/08_transfer": ("notebook 08", _notebook(notebook_08)),
    "<study>/08_cost": ("notebook 08", _notebook(notebook_08)),
    "<study>/08_cost_cold": ("notebook 08", _notebook(notebook_08)),
    "<study>/08_router_distribution": ("notebook 08", _notebook(notebook_08)),
    "<study>/08_f1_change_by_topology": ("notebook 08", _notebook(notebook_08)),
    "<study>/08_router_accuracy": ("notebook 08", _notebook(notebook_08)),
    "<study>/08_router_confusion": ("notebook 08", _notebook(notebook_08)),
    "<study>/main_table": ("ace-lab report --export", cli_report),
    "<study>/cost_table": ("ace-lab report --export", cli_report),
    "<study>/paired_tests": ("ace-lab report --export", cli_report),
    "<study>/05_counterfactuals": ("python -m ace_lab.mosaic.report", _notebook(mosaic_report)),
    "05_policy_diversity": ("python -m ace_lab.mosaic.report", _notebook(mosaic_report)),
    "09_composition": (ace_composition.COMMAND, _notebook(composition_report)),
    "<study>/budget_curves": (BUDGET_COMMAND, budget_report),
    "<study>/budget_auc": (BUDGET_COMMAND, budget_report),
    POWER_TABLE: (BUDGET_COMMAND, _notebook(power_report)),
    VERDICTS: ("ace-lab verdicts", _notebook(verdicts_report)),
    "<study>/liveness": ("ace-lab liveness", liveness_report),
    **{task.name: (HEADLINE_COMMAND, _notebook(headline_report)) for task in TASKS},
}
