"""ace_lab.mosaic.report.stopping: gain and completeness per depth, from hand-made traces"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from ace_lab.data import load_slice
from ace_lab.mosaic.policy import FIXED_POLICIES
from ace_lab.mosaic.report.runs import short_label
from ace_lab.mosaic.report.stopping import stopping_curve, stopping_figure
from ace_lab.viz.sizes import DOUBLE_COLUMN
from ace_lab.viz.text_layout import layout_problems
from tests.support.mosaic_synthetic import make_trace, two_depth_trace


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


def test_stopping_figure_of_several_queries_reads_in_a_paper():
    """The committed figure comes from traces notebook 05 replays: drawn here on as many
    queries as it shows and more, labelled as it labels them (``short_label`` of the
    committed slice's questions), stopping at different depths under different policies."""
    questions = load_slice("hotpotqa_dev_sample200", 20).questions[:5]
    policies = ["narrow", "medium", "wide", "medium", "wide"]
    reasons = ["converged", "budget", "max_depth", "converged", "no_candidates"]
    traces = {
        short_label(q): make_trace(
            [
                {"gain": round(0.9 - 0.25 * d, 2), "completeness": round(0.2 + 0.15 * d, 2)}
                for d in range(1 + i % 4)
            ],
            policy=FIXED_POLICIES[policies[i]],
            reason=reasons[i],
        )
        for i, q in enumerate(questions)
    }
    fig = stopping_figure(traces)
    try:
        assert fig.get_size_inches()[0] == DOUBLE_COLUMN
        assert len(fig.legends[0].get_texts()) == len(traces)
        assert layout_problems(fig) == []
    finally:
        plt.close(fig)
