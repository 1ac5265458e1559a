"""ace_lab.mosaic.report.policy_figures: histograms of the policies over a slice"""

from __future__ import annotations

import matplotlib.pyplot as plt

from ace_lab.mosaic.report.policies import policy_combinations
from ace_lab.mosaic.report.policy_figures import control_range, policy_histograms
from tests.support.mosaic_synthetic import slice_records


def test_histograms_cover_each_control_range_and_count_every_question():
    records = slice_records()
    fig = policy_histograms(records)
    try:
        depth, seeds, budget = fig.axes[:3]
        lo, hi = control_range("seed_count")
        assert [t.get_text() for t in seeds.get_xticklabels()] == [
            str(v) for v in range(lo, hi + 1)
        ]
        assert sum(p.get_height() for p in seeds.patches) == 40
        assert sum(p.get_height() for p in budget.patches) == 40
        assert sum(p.get_height() for p in depth.patches) == 80  # assigned + reached
        n = len(policy_combinations(records))
        assert f"{n} distinct policy combinations" in fig._suptitle.get_text()
    finally:
        plt.close(fig)
