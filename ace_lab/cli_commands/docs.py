"""``ace-lab docs``: regenerate (or check) every generated number of the documentation.

The documents listed in :data:`DOCUMENTS` carry generated parts (see
:mod:`ace_lab.eval.reporting.docs_numbers`); the figures are the generic ones plus each method
report's.
``ace-lab docs`` rewrites the parts from the committed records, ``ace-lab docs --check`` only
lists the parts that disagree (``tests/project/test_docs.py`` runs the same check).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ace_lab.config import REPO_ROOT

if TYPE_CHECKING:
    from ace_lab.eval.reporting.docs_numbers import Figure

#: The documents with generated parts, relative to the repository root.
DOCUMENTS = (
    "README.md",
    "docs/results.md",
    "docs/evaluation.md",
    "docs/graphs.md",
    "docs/llm-and-serving.md",
    "docs/scaling.md",
    "results/router/README.md",
    "results/ultradomain_mix-n8-s0/README.md",
    "results/hotpotqa_dev_sample200-n20-s0/README.md",
    "results/hotpotqa_dev_sample200-n20-s0-cold/README.md",
    "results/musique_dev_sample292-n10-s0/README.md",
    "results/router_qfs/README.md",
    "results/graphragbench_medical-n20-s0/README.md",
    "results/graphragbench_novel-n20-s0/README.md",
    "results/2wikimultihopqa_hipporag1000-n20-s0/README.md",
)


def figures() -> dict[str, Figure]:
    """Every figure kind: the generic ones, GraphRAG-Bench's tables, the judges behind committed
    verdicts (:mod:`ace_lab.eval.reporting.docs_judges`), the facts of a study's slice, graph,
    records and manifest (``docs_data``, ``docs_records``), the mechanism liveness
    tables (:mod:`ace_lab.cli_commands.liveness`) and those of each method report that has a
    ``docs`` module (``<report>.docs.FIGURES``; the registry names the reports)."""
    from importlib import import_module
    from importlib.util import find_spec

    from ace_lab.cli_commands import liveness
    from ace_lab.eval.reporting import (
        docs_data,
        docs_grb,
        docs_judges,
        docs_preferences,
        docs_records,
        docs_serving,
        docs_verdicts,
    )
    from ace_lab.eval.reporting.docs_numbers import FIGURES
    from ace_lab.registry import METHODS, spec

    known = FIGURES | docs_grb.FIGURES | docs_judges.FIGURES | docs_preferences.FIGURES
    known |= docs_data.FIGURES | docs_serving.FIGURES | liveness.FIGURES | docs_verdicts.FIGURES
    known |= docs_records.FIGURES
    reports = dict.fromkeys(spec(name).report for name in METHODS)
    for report in filter(None, reports):
        if find_spec(f"{report}.docs") is not None:
            known |= import_module(f"{report}.docs").FIGURES
    return known


def update_docs(root: Path | None = None, *, check: bool = False) -> list[str]:
    """Regenerate the parts of :data:`DOCUMENTS` under ``root`` (default the repository) from
    ``root/results``; one line per part that was stale (only listed with ``check``)."""
    from ace_lab.eval.reporting.docs_numbers import regenerate, stale_parts

    root = Path(root or REPO_ROOT or Path.cwd())
    known, stale = figures(), []
    for name in DOCUMENTS:
        path = root / name
        text = path.read_text(encoding="utf-8")
        found = stale_parts(text, known, root / "results")
        stale += [f"{name}: {line}" for line in found]
        if found and not check:
            path.write_text(regenerate(text, known, root / "results"), encoding="utf-8")
    return stale


def cmd_docs(args: argparse.Namespace) -> int:
    """Rewrite (or with ``--check`` list) the documentation's stale generated numbers."""
    stale = update_docs(check=args.check)
    for line in stale:
        print(line)
    verb = "stale" if args.check else "regenerated"
    print(f"{len(stale)} generated part(s) {verb} in {', '.join(DOCUMENTS)}")
    return 1 if args.check and stale else 0
