"""save_figure: an unchanged figure saves to the same bytes, in one process or two; the
data-set plots and the stage-cost plot draw."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ace_lab import viz
from ace_lab.viz.figures import plot_stage_costs


def _figure() -> plt.Figure:
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [1, 3, 2], label="line")
    ax.set_title("same figure")
    ax.legend()
    return fig


def test_saving_the_same_figure_twice_gives_identical_bytes(tmp_path):
    fig = _figure()
    formats = ("png", "pdf", "svg")
    first = viz.save_figure(fig, "fig", tmp_path / "a", formats=formats)
    time.sleep(1.1)  # a creation date would now differ by at least a second
    second = viz.save_figure(fig, "fig", tmp_path / "b", formats=formats)
    plt.close(fig)
    assert [p.name for p in first] == ["fig.png", "fig.pdf", "fig.svg"]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    pdf = first[1].read_bytes()
    assert b"CreationDate" not in pdf and b"Matplotlib" not in pdf
    assert b"matplotlib" not in first[0].read_bytes().lower()[:4096]  # no Software chunk


def test_two_fresh_figures_with_the_same_content_save_identically(tmp_path):
    paths = [viz.save_figure(_figure(), f"f{i}", tmp_path) for i in range(2)]
    plt.close("all")
    for a, b in zip(*paths, strict=True):
        assert a.read_bytes() == b.read_bytes()


def test_save_figure_accepts_a_path_stem_and_a_dotted_name(tmp_path):
    fig = _figure()
    paths = viz.save_figure(fig, tmp_path / "sub" / "v1.2_plot", formats=("png",))
    plt.close(fig)
    assert paths == [tmp_path / "sub" / "v1.2_plot.png"] and paths[0].is_file()


def test_data_set_plots_draw_one_row_per_set():
    counts = {"a": pd.Series({"bridge": 3, "comparison": 1}), "b": pd.Series({"bridge": 2})}
    fig = viz.plot_question_types(counts)
    assert len(fig.axes[0].patches) == 4  # 2 sets x 2 types (a missing type is a 0 bar)
    lengths = {"a": np.array([5, 10, 20]), "b": np.array([50, 80])}
    fig2 = viz.plot_length_distributions(lengths, unit="words")
    assert [t.get_text() for t in fig2.axes[0].get_yticklabels()] == ["a", "b"]
    assert viz.layout_problems(fig) == [] and viz.layout_problems(fig2) == []
    named = viz.plot_length_distributions({"hotpotqa_dev_sample200": np.array([5, 10])})
    assert [t.get_text() for t in named.axes[0].get_yticklabels()] == ["HotpotQA"]
    plt.close("all")


_SAVE_IN_A_PROCESS = """
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from ace_lab import viz
fig, ax = plt.subplots(figsize=(3, 2))
ax.plot([0, 1, 2], [1, 3, 2], label="line")
ax.set_title("same figure: Zürich")
ax.legend()
viz.save_figure(fig, "fig", sys.argv[1], formats=("png", "pdf", "svg"))
"""


def test_two_processes_with_other_dates_and_hash_seeds_save_the_same_bytes(tmp_path):
    """What `make reproduce` needs on another day, in another kernel: no date, no process
    state in the bytes (SOURCE_DATE_EPOCH would otherwise set the PDF's CreationDate)."""
    for name, epoch, seed in (("a", "1000000000", "1"), ("b", "1700000000", "2")):
        env = {**os.environ, "SOURCE_DATE_EPOCH": epoch, "PYTHONHASHSEED": seed}
        code = _SAVE_IN_A_PROCESS
        subprocess.run([sys.executable, "-c", code, str(tmp_path / name)], env=env, check=True)
    for suffix in ("png", "pdf", "svg"):
        first, second = (tmp_path / d / f"fig.{suffix}" for d in ("a", "b"))
        assert first.read_bytes() == second.read_bytes(), suffix


def test_stage_costs_plot_calls_and_tokens_not_seconds():
    costs = pd.DataFrame(
        {
            "step": ["retrieve", "generate"],
            "seconds": [0.5, 9.0],
            "llm_calls": [0, 1],
            "input_tokens": [0, 120],
            "output_tokens": [0, 8],
        }
    )
    fig = plot_stage_costs(costs, "naive: cost per step")
    assert [ax.get_xlabel() for ax in fig.axes] == ["LLM calls", "tokens (cold-cache)"]
    assert [p.get_width() for p in fig.axes[0].patches] == [0, 1]
    legend = [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    assert legend == ["input", "output"]  # words, not the frame's column names
    assert fig._suptitle.get_text() == "naive: cost per step"
    assert viz.layout_problems(fig) == []  # two columns wide, 7 pt or more, nothing overlaps
    plt.close(fig)


def test_a_single_column_figure_is_saved_at_print_resolution(tmp_path):
    from PIL import Image

    from ace_lab.viz.sizes import paper_figure

    fig, ax = paper_figure(1, 2.0)
    ax.plot([0, 1], [0, 1])
    (png,) = viz.save_figure(fig, "column", tmp_path, formats=("png",))
    wide, _ = plt.subplots(figsize=(6.9, 2.0))
    (wide_png,) = viz.save_figure(wide, "wide", tmp_path, formats=("png",))
    plt.close("all")
    assert Image.open(png).width > 900  # 3.3 in at 300 dpi, less the tight crop
    assert Image.open(wide_png).width < 1100  # 6.9 in at the default 150 dpi
