"""MOSAIC's figures in the documentation, generated from the committed records.

Each is a :data:`~ace_lab.eval.reporting.docs_numbers.Figure` (results directory, marker arguments
-> text) that ``ace-lab docs`` adds to the generic ones: the search effort against Fixed Wide
(:func:`~ace_lab.mosaic.report.effort.effort_table`), how many distinct policies the analyzer
wrote (:func:`~ace_lab.mosaic.report.policies.policy_combinations`), on how many questions it
switched connector exploration on, and the mean evidence budget and depth cap its policies give
the slice's budget-matched control.
"""

from __future__ import annotations

from pathlib import Path

from ace_lab.eval.reporting.docs_numbers import Figure, study_records
from ace_lab.mosaic.report.effort import REFERENCE, effort_table
from ace_lab.mosaic.report.policies import (
    budget_matched_name,
    policy_combinations,
    policy_frame,
)


def effort_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``effort STUDY METHOD paths|evidence``: ``60 % fewer paths (83.9 against 210.2)``, the
    method's mean against Fixed Wide's on the questions both answered."""
    study, method, what = args
    column = {"paths": "paths_evaluated", "evidence": "evidence_retained"}[what]
    table = effort_table(study_records(results_dir, study), [method, REFERENCE])
    mine, theirs = table.loc[method, column], table.loc[REFERENCE, column]
    change = 100 * (mine / theirs - 1)
    fewer = "fewer" if what == "paths" else "less"
    direction = fewer if change < 0 else "more"
    return f"{abs(change):.0f} % {direction} {what} ({mine:.1f} against {theirs:.1f})"


def policies_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``policies STUDY METHOD``: the number of distinct policies the analyzer assigned."""
    study, method = args
    return str(len(policy_combinations(study_records(results_dir, study), method)))


def connectors_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``connectors STUDY METHOD [TYPE | other:TYPE]``: ``k of n``, the questions (of one
    question type, of every other type, or all) whose policy switched connectors on."""
    study, method, *kind = args
    frame = policy_frame(study_records(results_dir, study), method)
    if kind and kind[0].startswith("other:"):
        frame = frame[frame["type"] != kind[0].removeprefix("other:").replace("_", " ")]
    elif kind:
        frame = frame[frame["type"] == kind[0].replace("_", " ")]
    return f"{int(frame['connectors'].astype(bool).sum())} of {len(frame)}"


def policy_means_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``policy_means STUDY METHOD``: ``mean evidence budget 12, mean depth cap 2``, the means
    of the analyzer's policies on the slice, each rounded half up, read off the control
    :func:`~ace_lab.mosaic.report.policies.budget_matched_name` names from them (so the
    sentence and the control's name cannot disagree)."""
    study, method = args
    name = budget_matched_name(study_records(results_dir, study), method)
    budget, _, depth = name.rpartition(":")[2].partition("x")
    return f"mean evidence budget {budget}, mean depth cap {depth}"


#: MOSAIC's figures, by marker kind.
FIGURES: dict[str, Figure] = {
    "effort": effort_figure,
    "policies": policies_figure,
    "connectors": connectors_figure,
    "policy_means": policy_means_figure,
}
