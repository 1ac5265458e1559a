"""The documentation's pairwise win-rate table, generated from a study's committed preference
tables (``qfs_preferences``, ``07_qfs_ablations``: :func:`ace_lab.eval.judging.preference_table`)
with each row's judge calibration: a figure kind of :mod:`ace_lab.eval.reporting.docs_numbers`
(:data:`FIGURES`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ace_lab.eval.reporting.docs_numbers import STUDIES, DocsError, Figure
from ace_lab.eval.reporting.export import to_markdown


def _overall(results_dir: Path, study: str, tables: list[str]) -> pd.DataFrame:
    frames = []
    for name in tables:
        path = Path(results_dir) / STUDIES.get(study, study) / f"{name}.csv"
        if not path.is_file():
            raise DocsError(f"no committed table {path}: run the notebook that writes it first")
        frames.append(pd.read_csv(path, keep_default_na=False))
    table = pd.concat(frames, ignore_index=True)
    table = table[(table["criterion"] == "Overall") & (table["n"].astype(int) > 0)]
    return table.drop_duplicates(["a", "b"])


def win_rates_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``win_rates STUDY METHOD TABLE...``: METHOD's Overall win rate against every method it
    was judged with in the study's committed preference TABLEs (a pair stored the other way
    round is turned: wins and losses swapped, the rate and its interval taken from 1): wins /
    losses / ties, the win rate with its 95 % interval, how often the judge picked the answer
    it read first, and the judge's calibration."""
    study, method, *tables = args
    rows = []
    for _, row in _overall(results_dir, study, tables).iterrows():
        if method not in (row["a"], row["b"]):
            continue
        turned = row["b"] == method
        wins, losses = (row["wins_b"], row["wins_a"]) if turned else (row["wins_a"], row["wins_b"])
        rate, low, high = (float(row[c]) for c in ("win_rate_a", "win_rate_low", "win_rate_high"))
        if turned:
            rate, low, high = 1 - rate, 1 - high, 1 - low
        rows.append(
            {
                "against": f"`{row['a'] if turned else row['b']}`",
                "W / L / T": f"{int(wins)} / {int(losses)} / {int(row['ties'])}",
                "win rate [95% CI]": f"{rate:.3f} [{low:.3f}, {high:.3f}]",
                "judge picked the first-shown answer": f"{float(row['first_shown']):.2f}",
                "judge calibration": row["judge_calibration"],
            }
        )
    if not rows:
        raise DocsError(f"no judged pair of {method!r} in {study}'s {', '.join(tables)}")
    return to_markdown(pd.DataFrame(rows))


def wins_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``wins STUDY A B TABLE``: ``k wins, m losses, t ties`` of A against B (Overall) in the
    committed preference TABLE."""
    study, a, b, table = args
    found = _overall(results_dir, study, [table])
    found = found[(found["a"] == a) & (found["b"] == b)]
    if len(found) != 1:
        raise DocsError(f"{study}/{table}: no Overall row of {a} against {b}")
    row = found.iloc[0]
    return f"{int(row['wins_a'])} wins, {int(row['wins_b'])} losses, {int(row['ties'])} ties"


FIGURES: dict[str, Figure] = {"win_rates": win_rates_figure, "wins": wins_figure}
