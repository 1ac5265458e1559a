"""ace_lab.eval.reporting.docs_verdicts: the README's verdict sentence, per corpus."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.eval.reporting.docs_numbers import DocsError
from ace_lab.eval.reporting.docs_verdicts import verdicts_figure
from ace_lab.eval.reporting.verdicts import POOLED, SLICES


def _table(tmp_path, rows: list[tuple[str, ...]]) -> None:
    columns = ["claim", "corpus", "verdict", "metric"]
    frame = pd.DataFrame([(*row, "m")[:4] for row in rows], columns=columns)
    frame.to_csv(tmp_path / "verdicts.csv", index=False)


def test_the_summary_counts_each_corpus_on_its_own(tmp_path):
    _table(tmp_path, [("c1", SLICES, "supported"), ("c2", SLICES, "inconclusive")])
    text = verdicts_figure(tmp_path, ("summary",))
    assert text == (
        "of 2 tests of headline claims, 1 supported, 0 contradicted and 1 inconclusive at the"
        " committed n (c1: supported)"
    )
    _table(tmp_path, [("c1", SLICES, "inconclusive"), ("c1", POOLED, "contradicted")])
    slices, pooled = verdicts_figure(tmp_path, ("summary",)).split("; ")
    assert slices.startswith("of 1 tests of headline claims, 0 supported, 0 contradicted and 1")
    assert pooled.endswith("inconclusive on the pooled corpora (c1: contradicted)")
    assert verdicts_figure(tmp_path, ("count", "contradicted")) == "1"
    with pytest.raises(DocsError, match="summary or count"):
        verdicts_figure(tmp_path, ("all",))


def test_a_claim_measured_in_several_metrics_names_the_metric_of_each_verdict(tmp_path):
    rows = [
        ("c1", POOLED, "supported", "F1"),
        ("c1", POOLED, "inconclusive", "judged"),
        ("c2", POOLED, "contradicted", "tokens"),
    ]
    _table(tmp_path, rows)
    text = verdicts_figure(tmp_path, ("summary",)).split("; ", 1)[1]
    assert text.startswith("of 3 tests of headline claims, 1 supported, 1 contradicted and 1")
    assert text.endswith("pooled corpora (c1 (F1): supported; c2: contradicted)")
