"""The documentation's table of the judges behind committed verdicts, each beside the
calibration of exactly that judge (model, server build, prompt): a figure kind of
:mod:`ace_lab.eval.reporting.docs_numbers` (:data:`FIGURES`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ace_lab.eval.judging.calibration import CALIBRATION_NAME, JUDGING_FOLDER, load_calibrations
from ace_lab.eval.judging.judges_used import calibration_rows, judges_used
from ace_lab.eval.reporting.docs_numbers import Figure
from ace_lab.eval.reporting.export import to_markdown


def judges_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``judges``: one row per (metric, judge identity) that committed verdicts use or a
    calibration measured: how many committed verdicts it gave and its calibration (balanced
    accuracy and n of independent probes) or ``judge not calibrated``."""
    calibrations = load_calibrations(Path(results_dir) / JUDGING_FOLDER / CALIBRATION_NAME)
    rows = calibration_rows(judges_used(Path(results_dir)), calibrations)
    shown = [
        {
            "metric": f"`{row['metric']}`",
            "judge (model, server build, prompt)": row["judge"].short(),
            "committed verdicts": row["verdicts"],
            "calibration": row["calibration"] or "—",
            "mark": row["mark"],
        }
        for row in rows
    ]
    return to_markdown(pd.DataFrame(shown))


FIGURES: dict[str, Figure] = {"judges": judges_figure}
