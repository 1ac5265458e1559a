"""``ace-lab calibrate``: the judge's calibration on every judged metric (stored); with
``--missing`` the judges committed verdicts use that were never calibrated, and the command
that calibrates each."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ace_lab.cli_commands.checks import settings_for
from ace_lab.cli_commands.errors import UsageError

if TYPE_CHECKING:
    from ace_lab.config import Settings


def cmd_calibrate(args: argparse.Namespace) -> int:
    from ace_lab.eval.judging.calibration import METRICS
    from ace_lab.eval.judging.calibration_run import JudgeMismatch, run

    unknown = [m for m in args.metrics or () if m not in METRICS]
    if unknown:
        raise UsageError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(METRICS)}")
    settings = settings_for(args.model)
    if args.missing:
        return print_missing(settings)
    try:
        return run(
            args.metrics or METRICS,
            args.n,
            settings,
            only_estimate=args.estimate,
            identity=args.identity,
        )
    except JudgeMismatch as exc:
        raise UsageError(str(exc)) from exc


def print_missing(settings: Settings) -> int:
    """One line per (metric, judge) the committed verdicts use without a calibration, with
    the command that calibrates it; the exit status (0)."""
    from ace_lab.eval.judging.calibration import load_calibrations
    from ace_lab.eval.judging.judges_used import judges_used, missing

    found = missing(judges_used(settings.results_dir), load_calibrations(settings=settings))
    for metric, identity, count in found:
        print(
            f"{metric:22s} {count:4d} verdicts  {identity.short()}\n"
            f"{'':28s}ace-lab calibrate --metrics {metric} --identity '{identity.model}'"
        )
    print(f"{len(found)} judge(s) behind committed verdicts not calibrated")
    return 0
