"""ace_lab.eval.reporting.docs_judges: the judges behind committed verdicts beside their exact
calibration, an uncalibrated build said so."""

from __future__ import annotations

import json

from ace_lab.eval.reporting.docs_judges import FIGURES

BUILD_1 = "local:qwen1.5b:gguf:x+llama-server:111"
BUILD_2 = "local:qwen1.5b:gguf:x+llama-server:222"


def test_each_judge_is_set_beside_its_own_calibration(tmp_path):
    judging = tmp_path / "judging"
    judging.mkdir()
    record = {"metric": "semantic_equivalence", "judge": "qwen1.5b", "n_pos": 16, "n_neg": 32}
    record |= {"accuracy": 0.9, "tpr": 0.9, "tnr": 0.9, "judge_identity": BUILD_1}
    record |= {"judge_prompt": "p"}
    (judging / "calibration.json").write_text(json.dumps({"calibrations": [record]}))
    verdicts = tmp_path / "s" / "semantic" / "verdicts.jsonl"
    verdicts.parent.mkdir(parents=True)
    lines = [{"by": "judge", "judge_identity": b, "judge_prompt": "p"} for b in (BUILD_1, BUILD_2)]
    verdicts.write_text("".join(json.dumps(line) + "\n" for line in lines * 2))
    table = FIGURES["judges"](tmp_path, ()).splitlines()
    assert table[2] == (
        "| `semantic_equivalence` | qwen1.5b llama-server:111 prompt:p | 2 | 0.900 (n=48) "
        "| informative |"
    )
    assert table[3] == (
        "| `semantic_equivalence` | qwen1.5b llama-server:222 prompt:p | 2 | — "
        "| judge not calibrated |"
    )
