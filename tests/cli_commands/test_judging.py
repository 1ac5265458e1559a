"""ace_lab.cli_commands.judging: ``ace-lab calibrate --missing`` lists the judges committed
verdicts use without a calibration (and how to calibrate each), ``--identity`` refuses to
calibrate a judge other than the configured one, ``--estimate`` calls nothing."""

from __future__ import annotations

import json

from ace_lab.cli import main

REMOTE = "http://127.0.0.1:9/v1#judge-under-test"


def _remote(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(tmp_path))
    monkeypatch.setenv("ACE_LAB_LLM_BASE_URL", "http://127.0.0.1:9/v1")  # never reached
    monkeypatch.setenv("ACE_LAB_LLM_MODEL", "judge-under-test")


def test_missing_lists_uncalibrated_judges_with_their_command(monkeypatch, tmp_path, capsys):
    _remote(monkeypatch, tmp_path)
    folder = tmp_path / "study" / "semantic"
    folder.mkdir(parents=True)
    line = {"by": "judge", "judge_identity": "local:q:gguf:x+llama-server:222", "judge_prompt": "p"}
    (folder / "verdicts.jsonl").write_text(json.dumps(line) + "\n")
    assert main(["calibrate", "--missing"]) == 0
    out = capsys.readouterr().out
    assert "semantic_equivalence" in out and "q llama-server:222 prompt:p" in out
    command = "ace-lab calibrate --metrics semantic_equivalence --identity"
    assert f"{command} 'local:q:gguf:x+llama-server:222'" in out
    assert "1 judge(s) behind committed verdicts not calibrated" in out


def test_identity_other_than_the_configured_judge_is_a_usage_error(monkeypatch, tmp_path, capsys):
    _remote(monkeypatch, tmp_path)
    args = ["calibrate", "--metrics", "semantic_equivalence", "--n", "1"]
    assert main([*args, "--identity", "local:q:gguf:x+llama-server:222"]) == 2
    err = capsys.readouterr().err
    assert f"the configured judge is {REMOTE}" in err and "llama-server:222" in err
    assert not (tmp_path / "judging").exists()  # nothing judged


def test_estimate_prints_the_cost_of_the_near_miss_probes(monkeypatch, tmp_path, capsys):
    _remote(monkeypatch, tmp_path)
    assert main(["calibrate", "--metrics", "semantic_equivalence", "--estimate"]) == 0
    assert "semantic_equivalence    59 probes" in capsys.readouterr().out
