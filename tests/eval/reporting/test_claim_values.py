"""ace_lab.eval.reporting.claim_values: a claim's values read from records, paired over the
committed slices' studies, and the same comparison on their pooled-corpus counterparts."""

from __future__ import annotations

import json

from ace_lab.eval.judging.semantic import SEMANTIC_FILE
from ace_lab.eval.reporting.claim_values import (
    POOLED_STUDIES,
    SEMANTIC,
    answered_pooled_studies,
    paired,
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


def test_the_answered_pooled_studies_are_the_pooled_evidence_studies_reread_short():
    pooled = POOLED_STUDIES[HOTPOT]
    assert answered_pooled_studies((HOTPOT, WIKI)) == (f"{pooled}-evidence-reread-short",)


def test_the_semantic_metric_is_the_stored_verdict_on_the_answer_each_record_holds(tmp_path):
    folder = tmp_path / "s"
    (folder / "semantic").mkdir(parents=True)
    answers = {"a": ["Paris", "Rome", "Oslo"], "b": ["Lyon", "Rome", "Bern"]}
    for method, said in answers.items():
        records = [
            {"id": f"q{i}", "method": method, "answer": answer, "gold": ["x"]}
            for i, answer in enumerate(said)
        ]
        (folder / f"{method}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    judge = {"judge_model": "m", "judge_identity": "local:m", "judge_prompt": "p1"}
    verdicts = [
        ("a", "q0", "Paris", True), ("a", "q1", "Rome", True), ("a", "q2", "Oslo", False),
        ("b", "q0", "Lyon", False), ("b", "q1", "Rome", True),
        ("b", "q2", "Geneva", True),  # about an answer b no longer holds: does not count
    ]  # fmt: skip
    lines = [
        {"method": m, "id": i, "answer": ans, "semantic": float(ok), "by": "llm"} | judge
        for m, i, ans, ok in verdicts
    ]
    (tmp_path / "s" / SEMANTIC_FILE).write_text("".join(json.dumps(r) + "\n" for r in lines))
    found = paired(tmp_path, ("s",), "a", "b", SEMANTIC)
    assert found is not None
    assert found.a.tolist() == [1.0, 1.0] and found.b.tolist() == [0.0, 1.0]  # q2: b unjudged
    assert found.note == "judge calibration: judge not calibrated"


def test_a_claim_made_for_the_pooled_corpora_alone_appears_once_they_hold_records(tmp_path):
    answered = answered_pooled_studies((HOTPOT,))
    values = paired_values(answered, "a", "b", "answer_coverage")
    claim = Claim("P", "A answers better", "greater", "F1", "a", "b", values, corpus=POOLED)
    slices = Claim("P", "c", "greater", "m", "A", "B", lambda _: None)
    assert verdict_table([slices, claim], tmp_path)["claim"].tolist() == ["c"]
    _write(tmp_path, answered[0], "a", [True] * 8)
    _write(tmp_path, answered[0], "b", [False] * 8)
    table = verdict_table([slices, claim], tmp_path)
    assert table["corpus"].tolist() == [SLICES, POOLED] and table.iloc[1]["n"] == 8
