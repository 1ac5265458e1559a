"""ace_lab.eval.judging.identity: a judge is its model identity (weights, server build) and the
fingerprint of the prompt files its metric sends; a record names both or has no full identity."""

from __future__ import annotations

import pytest

from ace_lab.eval.judging.calibration import METRICS
from ace_lab.eval.judging.identity import (
    PROMPTS,
    JudgeIdentity,
    of_record,
    prompt_fingerprint,
    prompt_text,
    text_fingerprint,
)

MODEL = "local:qwen1.5b:gguf:cc32+llama-server:3fc97ed78579"


def test_every_calibrated_metric_has_its_prompts_and_a_stable_fingerprint():
    assert set(PROMPTS) == set(METRICS)
    for metric, names in PROMPTS.items():
        texts = {name: prompt_text(name) for name in names}
        assert prompt_fingerprint(metric) == text_fingerprint(texts)
        assert len(prompt_fingerprint(metric)) == 12
    assert len({prompt_fingerprint(m) for m in PROMPTS}) == len(PROMPTS)
    with pytest.raises(KeyError, match="no judge prompt known"):
        prompt_fingerprint("f1")


def test_a_changed_prompt_or_order_is_another_fingerprint():
    base = text_fingerprint({"a": "[system]\nx\n[user]\n{q}"})
    assert text_fingerprint({"a": "[system]\nx.\n[user]\n{q}"}) != base
    assert text_fingerprint({"a": "1", "b": "2"}) != text_fingerprint({"b": "2", "a": "1"})


def test_identity_key_short_name_and_completeness():
    judge = JudgeIdentity(MODEL, "0a1b")
    assert judge.key() == f"{MODEL}|prompt:0a1b" and judge.complete
    assert judge.short() == "qwen1.5b llama-server:3fc97ed78579 prompt:0a1b"
    inproc = JudgeIdentity("local:qwen1.5b:gguf:cc32", "")
    assert inproc.short() == "qwen1.5b xllamacpp prompt:not recorded" and not inproc.complete
    assert JudgeIdentity("http://h/v1#gpt", "p").short() == "http://h/v1#gpt prompt:p"


def test_of_record_reads_each_kind_of_judged_record():
    semantic = {"judge_identity": MODEL, "judge_prompt": "s1"}
    assert of_record(semantic, "semantic_equivalence") == JudgeIdentity(MODEL, "s1")
    pairwise = {"judge_model_identity": MODEL, "judge_prompt": "p1"}
    assert of_record(pairwise, "pairwise_preference") == JudgeIdentity(MODEL, "p1")
    grb = {"judge_identity": MODEL, "judge_prompts": {"acc_statements": "a1"}}
    assert of_record(grb, "acc_statements") == JudgeIdentity(MODEL, "a1")
    assert of_record(grb, "coverage") == JudgeIdentity(MODEL, "")  # not recorded for it
    assert of_record({}, "coverage") == JudgeIdentity("", "")
