"""ace_lab.eval.reporting.claim_values: a claim's values read from records, paired over the
committed slices' studies, and the same comparison on their pooled-corpus counterparts."""

from __future__ import annotations

import json

from ace_lab.eval.reporting.claim_values import (
    POOLED_STUDIES,
    paired_values,
    pooled_studies_of,
    rate_values,
)
from ace_lab.eval.reporting.verdicts import POOLED, SLICES, Claim, verdict_table

HOTPOT, WIKI = "hotpotqa_dev_sample200-n20-s0", "2wikimultihopqa_hipporag1000-n20-s0"
STUDIES = (f"{HOTPOT}-evidence", f"{WIKI}-evidence")


def _write(results_dir, study: str, method: str, covered: list[bool]) -> None:
    folder = results_dir / study
    folder.mkdir(parents=True, exist_ok=True)
    records = [
        {"id": f"q{i}", "method": method, "answer_coverage": hit, "evidence_only": True}
        for i, hit in enumerate(covered)
    ]
    with (folder / f"{method}.jsonl").open("a") as out:
        out.writelines(json.dumps(r) + "\n" for r in records)


def test_pooled_counterparts_keep_the_evidence_suffix_and_leave_out_sets_without_one():
    pooled = POOLED_STUDIES[HOTPOT]
    assert pooled_studies_of(STUDIES) == (f"{pooled}-evidence",)
    assert pooled_studies_of((WIKI,)) == ()
    assert paired_values((WIKI,), "a", "b", "answer_coverage").pooled() is None
    assert rate_values(STUDIES, "a", "answer_coverage").pooled().studies == (f"{pooled}-evidence",)


def test_a_claim_gains_a_pooled_row_once_the_pooled_studies_hold_records(tmp_path):
    values = paired_values(STUDIES, "a", "b", "answer_coverage")
    claim = Claim("P", "A keeps the answer more often", "greater", "coverage", "a", "b", values)
    _write(tmp_path, STUDIES[0], "a", [True] * 6)
    _write(tmp_path, STUDIES[0], "b", [False] * 6)
    table = verdict_table([claim], tmp_path)
    assert table["corpus"].tolist() == [SLICES]  # no pooled records yet: no pooled row
    assert table.iloc[0]["n"] == 6 and table.iloc[0]["slices"] == "HotpotQA"

    pooled = f"{POOLED_STUDIES[HOTPOT]}-evidence"
    _write(tmp_path, pooled, "a", [True] * 30)
    _write(tmp_path, pooled, "b", [False] * 30)
    table = verdict_table([claim], tmp_path).set_index("corpus")
    assert table.loc[POOLED, "n"] == 30 and table.loc[POOLED, "slices"] == "HotpotQA (pooled)"
    assert table.loc[POOLED, "verdict"] == "supported"
    assert table.loc[SLICES, "n"] == 6  # each row reads its own corpus only


def test_a_claim_whose_values_are_a_plain_function_has_no_pooled_row(tmp_path):
    claim = Claim("P", "c", "greater", "m", "A", "B", lambda _: None)
    assert claim.on_pooled_corpora() is None
    assert verdict_table([claim], tmp_path)["corpus"].tolist() == [SLICES]
