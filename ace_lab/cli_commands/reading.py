"""``ace-lab reread``: re-answer a study's stored contexts with a reader, one call per record
(:mod:`ace_lab.eval.studies.reread`); no retrieval, no method call."""

from __future__ import annotations

import argparse
from typing import Any

from ace_lab.cli_commands.errors import UsageError
from ace_lab.config import DEFAULT_TIER

#: The readers ``--reader`` offers (:data:`ace_lab.methods.reader.READERS`; kept here so the
#: parser imports no LLM code, and a test checks the two agree).
READER_CHOICES = ("tagged", "json", "short")


def add_reread_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The ``reread`` subcommand's parser."""
    reread = sub.add_parser(
        "reread",
        parents=[common],
        help="re-answer a study's stored contexts with a reader (no retrieval)",
    )
    reread.add_argument("--study", required=True, help="results/<study>/ folder")
    reread.add_argument(
        "--reader", default="short", choices=READER_CHOICES, help="the reader (default: short)"
    )
    reread.add_argument("--methods", nargs="+", help="methods to reread (default: all)")
    reread.add_argument("--model", help=f"local model tier reading (default: {DEFAULT_TIER})")
    reread.add_argument(
        "--estimate",
        action="store_true",
        help="print the calls, tokens and hours the reread would take; run nothing",
    )
    reread.set_defaults(handler="reading:cmd_reread")


def cmd_reread(args: argparse.Namespace) -> int:
    from ace_lab.cli_commands.checks import settings_for
    from ace_lab.eval.reporting.export import to_markdown
    from ace_lab.eval.reporting.tables import MAIN_VIEW, main_table
    from ace_lab.eval.studies.reread import reread, reread_study
    from ace_lab.eval.studies.study import load_results

    settings = settings_for(args.model)
    if args.estimate:
        from ace_lab.eval.studies.estimate import estimate_text
        from ace_lab.eval.studies.reread_estimate import estimate_reread

        try:
            table = estimate_reread(args.study, args.reader, args.methods, settings=settings)
        except (ValueError, FileNotFoundError) as exc:
            raise UsageError(str(exc)) from exc
        print(estimate_text(table))
        return 0
    try:
        counts = reread(args.study, args.reader, args.methods, settings=settings)
    except (ValueError, FileNotFoundError) as exc:
        raise UsageError(str(exc)) from exc
    target = reread_study(args.study, args.reader)
    for method, count in counts.items():
        skipped = f", {count['skipped']} skipped (no stored context)" if count["skipped"] else ""
        print(f"{method}: {count['reread']} reread, {count['kept']} kept{skipped}")
    if any(c["reread"] or c["kept"] for c in counts.values()):
        table = main_table(load_results(target, settings))
        print(f"\n# {target}\n")
        print(to_markdown(table[[c for c in MAIN_VIEW if c in table]]))
    return 0
