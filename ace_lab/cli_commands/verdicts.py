"""``ace-lab verdicts``: the verdict on every headline claim of the three papers, from records.

The claims are each method report's (``<report>.claims.CLAIMS``; the registry names the
reports), the statistics :mod:`ace_lab.eval.reporting.verdicts`'. The table is written to
``results/verdicts.{csv,md,tex}``; ``docs/results.md`` and notebook 06 show it, and the
README's summary line quotes it (``ace-lab docs``). No model call.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from ace_lab.eval.reporting.verdicts import Claim

#: The table's file stem under ``results/``.
VERDICTS = "verdicts"


def all_claims() -> list[Claim]:
    """Every method report's claims, in the registry's order of reports."""
    from importlib import import_module
    from importlib.util import find_spec

    from ace_lab.registry import METHODS, spec

    claims: list[Claim] = []
    for report in filter(None, dict.fromkeys(spec(name).report for name in METHODS)):
        if find_spec(f"{report}.claims") is not None:
            claims += import_module(f"{report}.claims").CLAIMS
    return claims


def write_verdicts(results_dir: Path) -> pd.DataFrame:
    """Compute the verdict table from the records under ``results_dir`` and export it."""
    from ace_lab.eval.reporting.export import export_table
    from ace_lab.eval.reporting.verdicts import verdict_markdown, verdict_table

    table = verdict_table(all_claims(), results_dir)
    export_table(verdict_markdown(table), VERDICTS, results_dir)
    return table


def cmd_verdicts(args: argparse.Namespace) -> int:
    """Write ``results/verdicts.*`` and print the table."""
    from ace_lab.config import load_settings

    results_dir = Path(load_settings().results_dir)
    write_verdicts(results_dir)
    print((results_dir / f"{VERDICTS}.md").read_text(encoding="utf-8"))
    return 0
