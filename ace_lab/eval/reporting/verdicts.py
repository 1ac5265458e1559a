"""Verdicts on the papers' headline claims: one row per claim, one word each.

A claim compares per-question values of one metric between two runs (``A`` against ``B``,
paired on the questions both have, pooled over the slices named) or tests one run's rate
against zero. Each row gives the metric, the slices, n, the mean difference Δ with its 95 %
bootstrap interval (Wilson for a rate), the sign-flip p (exact up to 20 non-zero
differences), Holm's adjustment over the whole table, the smallest difference the comparison
could detect at its n (paired t, α 0.05, power 0.8, :mod:`~ace_lab.eval.statistics.power`), the
questions a 0.05 difference would need, and the verdict:

- ``greater`` (A > B): **supported** when Holm's p < 0.05 and Δ > 0, **contradicted** when
  Holm's p < 0.05 and Δ < 0, otherwise **inconclusive**;
- ``not worse`` (A ≥ B within :data:`MARGIN`): **supported** when the interval's lower bound
  is above −MARGIN, **contradicted** when its upper bound is below −MARGIN or Holm's p < 0.05
  with Δ < 0, otherwise **inconclusive**;
- ``fewer`` (A < B, a cost): ``greater`` with the sign turned;
- ``rate`` (A's rate > 0): **supported** when the Wilson lower bound is above 0,
  **contradicted** when the upper bound is below the rate the paper reports, else
  **inconclusive**.

The claims themselves are method-specific and live in each method's report package
(``<report>.claims.CLAIMS``); each claim says where its values come from
(:class:`ClaimValues`). This module only turns values into a row.

Each claim is measured on the committed slices, whose corpus is only their own questions'
passages, and again on the pooled corpora (:data:`POOLED`), where a question's passages hide
among a thousand others, when its values know how
(:class:`~ace_lab.eval.reporting.claim_values.StudyValues`) and the pooled studies hold
records; the ``corpus`` column says which. Holm's adjustment runs over every tested row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ace_lab.eval.statistics import paired_bootstrap
from ace_lab.eval.statistics.exact import holm
from ace_lab.eval.statistics.power import TARGET_DIFF, min_detectable_difference, pairs_needed
from ace_lab.eval.statistics.proportions import wilson_interval

#: Family-wise level of the verdicts (Holm over the table).
ALPHA = 0.05
#: Non-inferiority margin of a ``not worse`` claim, in the metric's units.
MARGIN = 0.05
KINDS = ("greater", "not worse", "fewer", "rate")
VERDICTS = ("supported", "contradicted", "inconclusive")
#: The ``corpus`` of a row: the committed slices' own small corpora, or the pooled corpora.
SLICES, POOLED = "committed slices", "pooled corpora"


@dataclass(frozen=True)
class ClaimValues:
    """What a claim's comparison rests on: per-question values of A (and B for a paired
    claim) pooled over ``slices``, and a note on what was left out or how values were made."""

    a: np.ndarray
    b: np.ndarray | None
    slices: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True)
class Claim:
    """One headline claim of a paper and how to measure it here.

    ``values(results_dir)`` returns the :class:`ClaimValues` (None: no records yet, and the
    row says so); ``paper_value`` is the number the paper reports for a ``rate`` claim.
    """

    paper: str
    claim: str
    kind: str
    metric: str
    a: str
    b: str
    values: Callable[[Path], ClaimValues | None] = field(repr=False, compare=False)
    paper_value: float | None = None
    corpus: str = SLICES

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.claim!r}: kind {self.kind!r} not in {KINDS}")

    def on_pooled_corpora(self) -> Claim | None:
        """This claim measured on the pooled corpora, where its values have a ``pooled()``
        counterpart (None: they have none, or this is already the pooled claim)."""
        pooled = getattr(self.values, "pooled", None)
        values = pooled() if self.corpus == SLICES and callable(pooled) else None
        return replace(self, values=values, corpus=POOLED) if values is not None else None


def _row(claim: Claim, found: ClaimValues | None) -> dict[str, object]:
    row: dict[str, object] = {
        "paper": claim.paper,
        "claim": claim.claim,
        "corpus": claim.corpus,
        "metric": claim.metric,
        "A": claim.a,
        "B": claim.b,
    }
    if found is None or len(found.a) == 0:
        return row | {"slices": "", "n": 0, "note": "no records yet"}
    row |= {"slices": ", ".join(found.slices), "n": len(found.a), "note": found.note}
    if claim.kind == "rate":
        hits = int(np.sum(found.a))
        low, high = wilson_interval(hits, len(found.a))
        return row | {
            "delta": hits / len(found.a),
            "low": low,
            "high": high,
            "p": math.nan,
            "mde": math.nan,
            "n_for_0.05": math.nan,
        }
    assert found.b is not None
    sign = -1.0 if claim.kind == "fewer" else 1.0
    d = sign * (found.a - found.b)
    paired = paired_bootstrap(sign * found.a, sign * found.b)
    # every difference equal (often all 0): no spread to size a test by
    sd = float(np.std(d, ddof=1)) if len(d) > 1 and np.ptp(d) > 0 else math.nan
    return row | {
        "delta": paired.mean_diff,
        "low": paired.low,
        "high": paired.high,
        "p": paired.p_value,
        "mde": min_detectable_difference(sd, len(d)),
        # a cost is counted in its own units (tokens, paths): a 0.05 difference means nothing
        "n_for_0.05": pairs_needed(sd) if claim.kind != "fewer" else math.nan,
        "note": "; ".join(
            filter(None, ["Δ = B − A: what A saves" if claim.kind == "fewer" else "", found.note])
        ),
    }


def verdict(kind: str, row: dict[str, object], paper_value: float | None = None) -> str:
    """The verdict word of a row with its Holm-adjusted ``p_holm`` (see the module doc)."""
    if not row.get("n"):
        return "inconclusive"
    delta, low, high = (float(row[k]) for k in ("delta", "low", "high"))  # type: ignore[arg-type]
    p = float(row.get("p_holm", math.nan))  # type: ignore[arg-type]
    significant = math.isfinite(p) and p < ALPHA
    if kind == "rate":
        if low > 0:
            return "supported"
        return "contradicted" if paper_value is not None and high < paper_value else "inconclusive"
    if kind == "not worse":
        if (significant and delta < 0) or high < -MARGIN:
            return "contradicted"
        return "supported" if low > -MARGIN else "inconclusive"
    if significant:
        return "supported" if delta > 0 else "contradicted"
    return "inconclusive"


def verdict_table(claims: Sequence[Claim], results_dir: Path) -> pd.DataFrame:
    """One row per claim on the committed slices, and one more on the pooled corpora where
    they hold its records (a claim made for the pooled corpora alone, such as one on the
    answers of their reread studies, likewise only once they hold records): the comparison,
    Holm over every tested row, the verdict."""
    measured: list[tuple[Claim, ClaimValues | None]] = []
    for claim in claims:
        values = claim.values(Path(results_dir))
        if claim.corpus == POOLED and (values is None or not len(values.a)):
            continue  # a pooled-corpus row appears once its studies hold records
        measured.append((claim, values))
        pooled = claim.on_pooled_corpora()
        found = pooled.values(Path(results_dir)) if pooled is not None else None
        if pooled is not None and found is not None and len(found.a):
            measured.append((pooled, found))
    claims = [claim for claim, _ in measured]
    rows = [_row(claim, found) for claim, found in measured]
    table = pd.DataFrame(rows)
    if "p" not in table:
        table["p"] = math.nan
    tested = table["p"].notna()
    table["p_holm"] = math.nan
    if tested.any():
        table.loc[tested, "p_holm"] = holm(table.loc[tested, "p"].tolist())
    words = [
        verdict(c.kind, r, c.paper_value)
        for c, r in zip(claims, table.to_dict("records"), strict=True)
    ]
    table["verdict"] = words
    return table


def verdict_markdown(table: pd.DataFrame) -> pd.DataFrame:
    """The table as the docs show it: Δ with its interval in one cell, p values to 3 places,
    the detectable difference and the n for 0.05 (the slices and notes kept)."""

    def cell(row: pd.Series) -> str:
        if not row.get("n"):
            return ""
        return f"{row['delta']:+.3f} [{row['low']:+.3f}, {row['high']:+.3f}]"

    def number(value: object, fmt: str) -> str:
        return format(value, fmt) if isinstance(value, float) and math.isfinite(value) else ""

    shown = pd.DataFrame(
        {
            "paper": table["paper"],
            "claim": table["claim"],
            "corpus": table["corpus"],
            "A": table["A"],
            "B": table["B"],
            "metric": table["metric"],
            "slices": table["slices"],
            "n": table["n"],
            "Δ [95% CI]": table.apply(cell, axis=1),
            "p": table["p"].map(lambda v: number(v, ".3f")),
            "p (Holm)": table["p_holm"].map(lambda v: number(v, ".3f")),
            "detectable Δ": table.get("mde", pd.Series(math.nan, index=table.index)).map(
                lambda v: number(v, ".3f")
            ),
            f"n for Δ={TARGET_DIFF}": table.get(
                "n_for_0.05", pd.Series(math.nan, index=table.index)
            ).map(lambda v: number(v, ".0f")),
            "verdict": table["verdict"],
            "note": table["note"],
        }
    )
    return shown
