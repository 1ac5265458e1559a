"""ace_lab.eval.judging.judges_used: the judges behind committed verdicts, counted per metric and
exact identity, set beside their calibrations; the committed records' uncalibrated judges are
the ones the audit found (MuSiQue's semantic verdicts come from another llama-server build)."""

from __future__ import annotations

import json
from pathlib import Path

from ace_lab.eval.judging.calibration import NOT_CALIBRATED, Calibrations, load_calibrations
from ace_lab.eval.judging.calibration import summarize as calibrate
from ace_lab.eval.judging.identity import JudgeIdentity
from ace_lab.eval.judging.judges_used import calibration_rows, judges_used, missing
from tests.support.paths import REPO

A = JudgeIdentity("local:q:gguf:x+llama-server:111", "p")
B = JudgeIdentity("local:q:gguf:x+llama-server:222", "p")


def _write(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_counts_judged_verdicts_per_metric_and_identity(tmp_path):
    semantic = [
        {"by": "judge", "judge_identity": A.model, "judge_prompt": "p"},
        {"by": "exact", "judge_identity": A.model, "judge_prompt": "p"},  # no judge asked
        {"by": "fallback", "judge_identity": B.model, "judge_prompt": "p"},
    ]
    _write(tmp_path / "s" / "semantic" / "verdicts.jsonl", semantic)
    grb = [{"holds": ["answer_correctness", "rouge_score"], "judge_identity": A.model,
            "judge_prompts": {"acc_statements": "p"}}]  # fmt: skip
    _write(tmp_path / "g" / "graphragbench" / "scores.jsonl", grb)
    _write(tmp_path / "q" / "judge" / "a__vs__b.jsonl", [{"judge_model_identity": B.model}])
    used = judges_used(tmp_path)
    assert used == {
        ("semantic_equivalence", A): 1,
        ("semantic_equivalence", B): 1,
        ("acc_statements", A): 1,
        ("pairwise_preference", JudgeIdentity(B.model, "")): 1,
    }
    good = calibrate("semantic_equivalence", "q", [(True, True), (False, False)], identity=A)
    calibrations = Calibrations((good,))
    assert {(m, i) for m, i, _ in missing(used, calibrations)} == {
        ("semantic_equivalence", B),
        ("acc_statements", A),
        ("pairwise_preference", JudgeIdentity(B.model, "")),
    }
    rows = {(r["metric"], r["judge"]): r for r in calibration_rows(used, calibrations)}
    assert rows[("semantic_equivalence", A)]["calibration"] == "1.000 (n=2)"
    assert rows[("semantic_equivalence", B)]["mark"] == NOT_CALIBRATED


def test_the_committed_musique_verdicts_are_of_an_uncalibrated_build(tmp_path):
    """The audit's case: MuSiQue's semantic verdicts come from a llama-server build the 0.97
    calibration did not measure, so no calibration may be cited for them."""
    results = REPO / "results"
    study = "musique_dev_sample292-n10-s0"
    copy = tmp_path / study / "semantic" / "verdicts.jsonl"
    copy.parent.mkdir(parents=True)
    copy.write_bytes((results / study / "semantic" / "verdicts.jsonl").read_bytes())
    (identity,) = {i for m, i in judges_used(tmp_path) if m == "semantic_equivalence"}
    calibrations = load_calibrations(results / "judging" / "calibration.json")
    assert calibrations.find("semantic_equivalence", identity) is None
    calibrated = [c for c in calibrations.records if c.metric == "semantic_equivalence"]
    assert calibrated and all(c.identity.model != identity.model for c in calibrated)
    assert calibrated[0].judge == identity.model.split(":")[1]  # the same model name
