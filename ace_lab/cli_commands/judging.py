"""``ace-lab calibrate``: the judge's calibration on every judged metric (stored)."""

from __future__ import annotations

import argparse

from ace_lab.cli_commands.checks import settings_for
from ace_lab.cli_commands.errors import UsageError


def cmd_calibrate(args: argparse.Namespace) -> int:
    from ace_lab.eval.judging.calibration import METRICS
    from ace_lab.eval.judging.calibration_run import run

    unknown = [m for m in args.metrics or () if m not in METRICS]
    if unknown:
        raise UsageError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(METRICS)}")
    settings = settings_for(args.model)
    return run(args.metrics or METRICS, args.n, settings, only_estimate=args.estimate)
