"""ace_lab.eval.reporting.verdicts: a claim's statistics and its one word."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ace_lab.eval.reporting.verdicts import MARGIN, Claim, ClaimValues, verdict, verdict_table


def _claim(kind: str, a: list[float], b: list[float] | None, paper_value: float | None = None):
    values = ClaimValues(np.asarray(a, float), None if b is None else np.asarray(b, float), ("s",))
    return Claim("P", f"{kind} claim", kind, "m", "A", "B", lambda _: values, paper_value)


def test_a_clear_win_is_supported_and_a_clear_loss_contradicted(tmp_path):
    win = _claim("greater", [1.0] * 12, [0.0] * 12)
    loss = _claim("greater", [0.0] * 12, [1.0] * 12)
    table = verdict_table([win, loss], tmp_path)
    assert table["verdict"].tolist() == ["supported", "contradicted"]
    assert (table["p_holm"] >= table["p"]).all()


def test_small_n_is_inconclusive_with_its_detectable_difference(tmp_path):
    table = verdict_table([_claim("greater", [1, 0, 1, 0, 1], [0, 1, 0, 0, 1])], tmp_path)
    row = table.iloc[0]
    assert row["verdict"] == "inconclusive"
    assert row["mde"] > 0.5 and row["n_for_0.05"] > 100


def test_no_spread_gives_no_detectable_difference(tmp_path):
    row = verdict_table([_claim("greater", [1, 1, 1], [1, 1, 1])], tmp_path).iloc[0]
    assert row["verdict"] == "inconclusive" and math.isnan(row["mde"])


def test_fewer_turns_the_sign(tmp_path):
    table = verdict_table([_claim("fewer", [10.0] * 12, [50.0] * 12)], tmp_path)
    assert table.iloc[0]["verdict"] == "supported" and table.iloc[0]["delta"] == pytest.approx(40)


def test_not_worse_and_rate():
    row = {"n": 40, "delta": 0.0, "low": -0.02, "high": 0.02, "p_holm": 1.0}
    assert verdict("not worse", row) == "supported"
    assert verdict("not worse", row | {"low": -MARGIN - 0.1}) == "inconclusive"
    assert verdict("not worse", row | {"high": -MARGIN - 0.01, "low": -0.3}) == "contradicted"
    rate = {"n": 10, "delta": 0.0, "low": 0.0, "high": 0.03, "p_holm": math.nan}
    assert verdict("rate", rate, paper_value=0.062) == "contradicted"
    assert verdict("rate", rate | {"high": 0.3}, paper_value=0.062) == "inconclusive"
    assert verdict("rate", rate | {"low": 0.01}) == "supported"


def test_a_claim_without_records_says_so(tmp_path):
    claim = Claim("P", "c", "greater", "m", "A", "B", lambda _: None)
    row = verdict_table([claim], tmp_path).iloc[0]
    assert row["n"] == 0 and row["note"] == "no records yet" and row["verdict"] == "inconclusive"
    with pytest.raises(ValueError, match="kind"):
        Claim("P", "c", "better", "m", "A", "B", lambda _: None)
