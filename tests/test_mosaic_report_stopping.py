"""ace_lab.mosaic.report.stopping: gain and completeness per depth, from hand-made traces"""

from __future__ import annotations

import matplotlib.pyplot as plt

from ace_lab.mosaic.policy import FIXED_POLICIES
from ace_lab.mosaic.report.stopping import stopping_curve, stopping_figure
from tests.mosaic_synthetic import make_trace, two_depth_trace


def test_stopping_curve_reads_gain_completeness_and_the_policy_threshold():
    curve = stopping_curve(two_depth_trace(policy=FIXED_POLICIES["wide"], reason="converged"))
    assert list(curve["depth"]) == [1, 2]
    assert list(curve["gain"]) == [1.0, 0.1] and list(curve["completeness"]) == [0.2, 0.5]
    assert set(curve["threshold"]) == {0.5}  # wide stops "deep"
    assert list(curve["stop"]) == ["", "converged"]
    assert list(curve["connectors"]) == [0, 1] and list(curve["scored"]) == [6, 9]


def test_stopping_figure_labels_each_query_with_its_stop_reason():
    fig = stopping_figure({"q1": two_depth_trace(), "q2": make_trace([{"gain": 1.0}])})
    try:
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        assert labels == ["q1 (stop: converged)", "q2 (stop: converged)"]
    finally:
        plt.close(fig)
