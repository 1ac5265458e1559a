"""MOSAIC's headline claims, measured on the evidence each policy selected.

Read by the verdict table (``ace-lab verdicts``). The policy claims pair MOSAIC with its fixed
policies on the committed multi-hop slices' evidence-only studies at the shared 1,500-token
budget; the counterfactual claim replays the committed answered records' policies with one
control flipped (:mod:`ace_lab.mosaic.report.counterfactuals`, no model call):

- MOSAIC beats the strongest fixed policy (abstract: +9.96 points over the strongest canonical
  fixed policy; the best of narrow, medium and wide is chosen per slice on the same questions,
  which favours the fixed policy), measured again in answer F1 where the pooled evidence
  studies were re-answered by the one short reader (``ace-lab reread``);
- relative to Fixed Wide it evaluates fewer paths (abstract: 81.9 % fewer) at no loss;
- output cardinality is the strongest single counterfactual (§7.5: the control whose flip
  improves the most questions; here a question improves when the flip raises its passage recall).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ace_lab.eval.reporting.claim_values import (
    MULTIHOP_STUDIES,
    answered_pooled_studies,
    evidence_studies_of,
    paired_values,
    slice_label,
)
from ace_lab.eval.reporting.verdicts import POOLED, Claim, ClaimValues

PAPER = "MOSAIC"
STUDIES = evidence_studies_of(MULTIHOP_STUDIES)
#: The pooled evidence studies re-answered by the one short reader (``ace-lab reread``).
ANSWERED = answered_pooled_studies(MULTIHOP_STUDIES)
MOSAIC = "mosaic:b1500"
FIXED = tuple(f"mosaic-fixed:{width}+b1500" for width in ("narrow", "medium", "wide"))
WIDE = FIXED[-1]
#: The studies whose MOSAIC records the counterfactual claim replays.
COUNTERFACTUAL_STUDIES = ("hotpotqa_dev_sample200-n20-s0", "musique_dev_sample292-n10-s0")


def paths(records: pd.DataFrame) -> pd.Series:
    """Paths the traversal evaluated per question (the records' ``stats``)."""
    values = [
        s.get("paths_evaluated") if isinstance(s, Mapping) else None for s in records["stats"]
    ]
    return pd.Series(values, index=records["id"], dtype=float)


def improved_by_control(rows: pd.DataFrame) -> pd.DataFrame:
    """Question × control: 1 when some flip of the control raised the question's passage recall
    over the recorded policy's replay, else 0 (counterfactual rows of one study)."""
    flipped = rows[rows["control"] != "-"].copy() if "control" in rows else rows.iloc[:0]
    flipped["up"] = (flipped["passage_recall"] > flipped["base_passage_recall"]).astype(float)
    return flipped.pivot_table(index="id", columns="control", values="up", aggfunc="max")


def cardinality_values(results_dir: Path) -> ClaimValues | None:
    """Per question, cardinality's improvement (0/1) against the control that improved the
    most questions besides it; pooled over :data:`COUNTERFACTUAL_STUDIES`."""
    from dataclasses import replace

    from ace_lab.config import load_settings
    from ace_lab.mosaic.report.counterfactuals import study_rows

    settings = replace(load_settings(), results_dir=Path(results_dir))
    a_parts, b_parts, used, rivals = [], [], [], []
    for study in COUNTERFACTUAL_STUDIES:
        if not (Path(results_dir) / study / "mosaic.jsonl").is_file():
            continue
        table = improved_by_control(study_rows(study, settings)).fillna(0.0)
        if "cardinality" not in table:
            continue
        others = table.drop(columns="cardinality")
        rival = str(others.sum().idxmax())
        a_parts.append(table["cardinality"].to_numpy(float))
        b_parts.append(table[rival].to_numpy(float))
        used.append(slice_label(study))
        rivals.append(f"{slice_label(study)}: {rival}")
    if not used:
        return None
    note = "B = the control that improved the most questions besides cardinality: "
    return ClaimValues(
        np.concatenate(a_parts), np.concatenate(b_parts), tuple(used), note + "; ".join(rivals)
    )


CLAIMS: tuple[Claim, ...] = (
    Claim(
        PAPER,
        "MOSAIC beats the strongest fixed policy",
        "greater",
        "answer coverage",
        MOSAIC,
        "best of mosaic-fixed narrow, medium, wide",
        paired_values(STUDIES, MOSAIC, FIXED, "answer_coverage"),
    ),
    Claim(
        PAPER,
        "MOSAIC beats the strongest fixed policy",
        "greater",
        "answer F1 (short reader)",
        MOSAIC,
        "best of mosaic-fixed narrow, medium, wide",
        paired_values(ANSWERED, MOSAIC, FIXED, "f1"),
        corpus=POOLED,
    ),
    Claim(
        PAPER,
        "MOSAIC evaluates fewer paths than Fixed Wide",
        "fewer",
        "paths evaluated",
        MOSAIC,
        WIDE,
        paired_values(STUDIES, MOSAIC, WIDE, paths),
    ),
    Claim(
        PAPER,
        "... at no loss against Fixed Wide",
        "not worse",
        "answer coverage",
        MOSAIC,
        WIDE,
        paired_values(STUDIES, MOSAIC, WIDE, "answer_coverage"),
    ),
    Claim(
        PAPER,
        "Output cardinality is the strongest single counterfactual",
        "greater",
        "questions improved by the flip",
        "cardinality flipped",
        "the strongest other control flipped",
        cardinality_values,
    ),
)
