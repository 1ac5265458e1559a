"""ace_lab.mosaic.report.effort: paths and evidence vs Fixed Wide, from hand-made records"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from ace_lab.mosaic.report.effort import effort_figure, effort_summary, effort_table
from tests.support.mosaic_synthetic import record


def test_effort_is_relative_to_fixed_wide_over_common_questions():
    records = [
        record("mosaic", "q1", paths_evaluated=10, evidence_retained=8, em=1.0),
        record("mosaic", "q2", paths_evaluated=30, evidence_retained=10, em=0.0),
        record("mosaic-fixed:wide", "q1", paths_evaluated=100, evidence_retained=16, em=1.0),
        record("mosaic-fixed:wide", "q2", paths_evaluated=60, evidence_retained=16, em=1.0),
        record("mosaic-fixed:wide", "q3", paths_evaluated=1000, evidence_retained=16),
    ]
    table = effort_table(records)
    assert table.attrs["questions"] == 2
    assert table.loc["mosaic-fixed:wide", "paths_evaluated"] == 80  # q3 is not common
    assert table.loc["mosaic-fixed:wide", "paths_vs_ref"] == 0.0
    assert table.loc["mosaic", "paths_vs_ref"] == pytest.approx(100 * (20 / 80 - 1))
    assert table.loc["mosaic", "evidence_vs_ref"] == pytest.approx(100 * (9 / 16 - 1), abs=0.05)
    assert table.loc["mosaic", "em"] == 0.5
    assert effort_table(records, ["mosaic"])["paths_vs_ref"].isna().all()  # no reference
    assert effort_summary(table).startswith(
        "mosaic vs mosaic-fixed:wide on 2 questions: paths -75.0"
    )
    assert "no records" in effort_summary(effort_table(records, ["mosaic"]))
    zero = [record("mosaic", "q"), record("mosaic-fixed:wide", "q", paths_evaluated=0)]
    assert "evaluated no paths" in effort_summary(effort_table(zero))


def test_effort_figure_draws_the_change_vs_the_reference():
    table = effort_table(
        [
            record("mosaic", "q", paths_evaluated=5),
            record("mosaic-fixed:wide", "q", paths_evaluated=20),
        ]
    )
    fig = effort_figure(table)
    try:
        widths = sorted(round(p.get_width(), 1) for p in fig.axes[0].patches)
        assert widths[0] == -75.0 and 0.0 in widths
    finally:
        plt.close(fig)
