"""ace_lab.eval.judging: stored, resumable pairwise judging and the preference tables."""

from __future__ import annotations

import json
import math

import pytest

from ace_lab.cli import build_parser
from ace_lab.eval.judging import (
    PREFERENCE_VIEW,
    describe_preferences,
    judge_command,
    judge_study,
    load_verdicts,
    preference_by_variant,
    preference_table,
    run_command,
    verdicts_path,
)
from ace_lab.eval.judging.identity import prompt_fingerprint
from ace_lab.eval.judging.judge import CRITERIA
from ace_lab.eval.studies.study import results_path
from ace_lab.llm import LLM
from tests.support.scripted import ScriptedClient

STUDY = "toyqfs-n4-s0"
QUESTIONS = [f"What connects theme {i}?" for i in range(4)]


def _write_method(settings, method: str, ids: list[int], tag: str) -> None:
    path = results_path(STUDY, method, settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for i in ids:
            record = {
                "id": f"q{i}",
                "position": i,
                "question": QUESTIONS[i],
                "answer": f"{tag} answer to question {i}",
                "method": method,
            }
            fh.write(json.dumps(record) + "\n")


@pytest.fixture
def study(settings):
    """ace-full answered q0..q3, naive q0..q2 (q3 missing): three shared questions."""
    _write_method(settings, "ace-full", [0, 1, 2, 3], "FULL")
    _write_method(settings, "naive", [0, 1, 2], "NAIVE")
    return settings


def _verdict(winner: str) -> str:
    return json.dumps({c: {"winner": winner, "explanation": "because"} for c in CRITERIA})


class Judge:
    """Prefers the FULL answer in both orders; a tie on ``tie_on``, an error on ``fail_on``."""

    def __init__(self, fail_on: str | None = None, tie_on: str | None = None) -> None:
        self.fail_on = fail_on
        self.tie_on = tie_on

    def __call__(self, request: dict) -> str:
        text = request["messages"][-1]["content"]
        if self.fail_on and self.fail_on in text:
            raise RuntimeError("judge fell over")
        if self.tie_on and self.tie_on in text:
            return _verdict("Tie")
        full_first = text.index("FULL answer") < text.index("NAIVE answer")
        return _verdict("Answer 1" if full_first else "Answer 2")


def test_judges_shared_questions_and_resumes(study):
    settings = study
    client = ScriptedClient(Judge(tie_on=QUESTIONS[1]))
    llm = LLM(settings, client=client)
    first = judge_study(STUDY, "ace-full", "naive", settings=settings, llm=llm, limit=2)
    assert list(first["id"]) == ["q0", "q1"] and first.attrs["errors"] == 0
    assert len(client.requests) == 4  # two questions, both orders
    assert list(first["overall"]) == ["a", "tie"]
    assert first["judge_model"].iloc[0] == llm.model

    path = verdicts_path(STUDY, "ace-full", "naive", settings)
    assert path.name == "ace-full__vs__naive.jsonl" and path.parent.name == "judge"

    second = judge_study(STUDY, "ace-full", "naive", settings=settings, llm=llm)
    assert len(client.requests) == 6  # only q2 is new; q3 was not answered by naive
    assert list(second["id"]) == ["q0", "q1", "q2"]
    assert len(path.read_text().splitlines()) == 3

    # Nothing left to judge: no LLM is needed at all.
    again = judge_study(STUDY, "ace-full", "naive", settings=settings, llm=None)
    assert list(again["id"]) == ["q0", "q1", "q2"] and len(client.requests) == 6
    # each verdict names its full judge: the model identity and the prompt's fingerprint
    assert set(again["judge_prompt"]) == {prompt_fingerprint("pairwise_preference")}
    assert set(again["judge_model_identity"]) == {llm.model_identity}

    table = preference_table(STUDY, [("ace-full", "naive")], settings)
    assert list(table["criterion"]) == ["Overall", "Comprehensiveness", "Diversity", "Empowerment"]
    overall = table.iloc[0]
    assert (overall["n"], overall["wins_a"], overall["wins_b"], overall["ties"]) == (3, 2, 0, 1)
    assert overall["win_rate_a"] == pytest.approx(2.5 / 3)
    assert overall["win_rate_b"] == pytest.approx(0.5 / 3)
    assert overall["win_rate_a [95% CI]"].startswith("0.833 [")
    assert overall["note"] == ""


def test_failed_judge_call_is_not_written_and_is_retried(study):
    settings = study
    judge = Judge(fail_on=QUESTIONS[1])
    client = ScriptedClient(judge)
    llm = LLM(settings, client=client)
    first = judge_study(STUDY, "ace-full", "naive", settings=settings, llm=llm)
    assert first.attrs["errors"] == 1 and list(first["id"]) == ["q0", "q2"]
    lines = [json.loads(x) for x in verdicts_path(STUDY, "ace-full", "naive", settings).open()]
    assert [r["id"] for r in lines] == ["q0", "q2"]

    partial = preference_table(STUDY, [("ace-full", "naive")], settings)
    assert partial.iloc[0]["n"] == 2 and "2 of 3 shared questions" in partial.iloc[0]["note"]

    judge.fail_on = None
    second = judge_study(STUDY, "ace-full", "naive", settings=settings, llm=llm)
    assert second.attrs["errors"] == 0 and list(second["id"]) == ["q0", "q1", "q2"]
    assert (second["overall"] == "a").all()


def test_missing_verdicts_are_a_row_naming_the_command(study):
    settings = study
    table = preference_table(STUDY, [("ace-full", "naive"), ("ace-adaptive", "ace-full")], settings)
    assert len(table) == 2
    first, second = table.iloc[0], table.iloc[1]
    assert first["n"] == 0 and math.isnan(first["win_rate_a"])
    assert judge_command(STUDY, "ace-full", "naive") in first["note"]
    assert "ace-lab run" not in first["note"]  # both methods have answers already
    # ace-adaptive has no results: the note says to run it first, on the study's slice.
    assert "ace-lab run --methods ace-adaptive --dataset toyqfs --n 4" in second["note"]
    assert "ace-lab judge --study toyqfs-n4-s0 --a ace-adaptive --b ace-full" in second["note"]
    with pytest.raises(FileNotFoundError, match="ace-lab judge"):
        load_verdicts(STUDY, "ace-full", "naive", settings)


def test_run_command_without_results_reads_the_study_name(settings):
    assert run_command(["naive", "hirag"], "hotpotqa_dev_sample200-n20-s0", settings) == (
        "ace-lab run --methods naive hirag --dataset hotpotqa_dev_sample200 --n 20"
    )
    assert run_command(["ace-full"], "mine", settings) == (
        "ace-lab run --methods ace-full --dataset <DATASET> --n 20 --study mine"
    )


def test_judge_subcommand_arguments():
    args = build_parser().parse_args(
        ["judge", "--study", STUDY, "--a", "ace-full", "--b", "naive", "--limit", "5"]
    )
    assert (args.study, args.a, args.b, args.limit, args.model) == (
        STUDY,
        "ace-full",
        "naive",
        5,
        None,
    )
    assert args.handler == "studies:cmd_judge"


def test_same_method_is_rejected(study):
    with pytest.raises(ValueError, match="two different methods"):
        judge_study(STUDY, "naive", "naive", settings=study, llm=None)


def test_preferences_by_variant_and_their_description(study, capsys):
    settings = study
    llm = LLM(settings, client=ScriptedClient(Judge(tie_on=QUESTIONS[1])))
    judge_study(STUDY, "ace-full", "naive", settings=settings, llm=llm)
    pairs = [("ace-full", "naive"), ("ace-full", "ace-adaptive")]
    preferences = preference_table(STUDY, pairs, settings)
    assert set(PREFERENCE_VIEW) <= set(preferences.columns)
    wide = preference_by_variant(preferences)
    assert list(wide["variant (b)"]) == ["naive"]  # ace-adaptive has no verdicts: left out
    overall = ["variant (b)", "n", "Overall", "Comprehensiveness", "Diversity", "Empowerment"]
    assert list(wide.columns) == [*overall, "first_shown", "judge_calibration"]
    # the scripted judge (smollm135m) has no calibration: the table says so beside its numbers
    assert wide["judge_calibration"].tolist() == ["judge not calibrated"]
    row = wide.iloc[0]
    assert row["n"] == 3 and row["Overall"] == pytest.approx(2.5 / 3)
    assert preference_by_variant(preferences[preferences["n"] == 0]).empty

    describe_preferences(preferences)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"judge model: {llm.model}"
    assert out[1].startswith("note: no verdicts: run `ace-lab run --methods ace-adaptive")


def test_a_remote_judge_has_pairs_in_flight_and_writes_each_verdict_once(study):
    from tests.support.inflight import Overlap, remote

    settings = remote(study, 3)
    overlap = Overlap()
    judge = Judge()

    def script(request: dict) -> str:
        overlap.script(request)
        return judge(request)

    llm = LLM(settings, client=ScriptedClient(script, delay_s=0.05, in_flight=overlap.served))
    frame = judge_study(STUDY, "ace-full", "naive", settings=settings, llm=llm)
    assert overlap.peak == 3  # three pairs judged at once (two calls each, one after the other)
    lines = verdicts_path(STUDY, "ace-full", "naive", settings).read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == ["q0", "q1", "q2"]
    assert list(frame["id"]) == ["q0", "q1", "q2"]
