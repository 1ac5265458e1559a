"""ace_lab.eval.judging.semantic: stored semantic verdicts of a study — judged once, resumed, a
failed call retried, a changed answer judged again, and the report joined to the current answers."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ace_lab.eval.judging.identity import prompt_fingerprint
from ace_lab.eval.judging.semantic import (
    SEMANTIC_FILE,
    load_semantic,
    semantic_command,
    semantic_report,
    semantic_study,
)
from ace_lab.eval.studies.study import load_results, study_dir
from ace_lab.llm import LLMError
from tests.support.scripted import scripted_llm

STUDY = "toy-n3-s0"
QUESTIONS = {
    "q0": ("Where was the singer born?", ["Mission"]),
    "q1": ("Are both rivers in France?", ["yes"]),
    "q2": ("Who founded the firm?", ["Ada Brink"]),
}


def _write(settings, method: str, answers: dict[str, str | None]) -> None:
    folder = study_dir(STUDY, settings)
    folder.mkdir(parents=True, exist_ok=True)
    rows = [
        {
            "id": i,
            "position": n,
            "method": method,
            "question": QUESTIONS[i][0],
            "gold": QUESTIONS[i][1],
            "answer": a,
            "em": float(a == QUESTIONS[i][1][0]),
        }
        for n, (i, a) in enumerate(answers.items())
    ]
    (folder / f"{method}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _judge_by_prediction(request: dict) -> str:
    """The judge accepts 'Mission, British Columbia' and rejects anything else it is asked."""
    accepted = "Mission, British Columbia" in request["messages"][-1]["content"]
    return json.dumps({"equivalent": accepted})


def test_answers_are_judged_once_stored_and_tabulated_next_to_em(settings):
    _write(settings, "hirag", {"q0": "Mission, British Columbia", "q1": "Yes", "q2": "Bo Lind"})
    _write(settings, "naive", {"q0": "Mission", "q1": "no", "q2": None})
    llm = scripted_llm(settings, _judge_by_prediction)
    new = semantic_study(STUDY, settings=settings, llm=llm)
    # Two answers need the judge (q0 and q2 of hirag); the rest take a fast path.
    assert len(llm.client().requests) == 2 and len(new) == 6 and new.attrs["errors"] == 0
    assert (study_dir(STUDY, settings) / SEMANTIC_FILE).is_file()
    stored = load_semantic(STUDY, settings).set_index(["method", "id"])
    assert stored.loc[("hirag", "q0"), ["semantic", "by"]].tolist() == [1.0, "judge"]
    assert stored.loc[("naive", "q2"), ["answer", "by"]].tolist() == ["", "empty"]
    # every verdict names its full judge: model identity and the prompt's fingerprint
    assert set(stored["judge_prompt"]) == {prompt_fingerprint("semantic_equivalence")}
    assert set(stored["judge_identity"]) == {llm.model_identity}
    again = semantic_study(STUDY, settings=settings, llm=scripted_llm(settings, []))
    assert again.empty  # everything judged by this judge: no call at all
    stale = load_semantic(STUDY, settings).assign(judge_prompt="an-older-prompt")
    path = study_dir(STUDY, settings) / SEMANTIC_FILE
    path.write_text(stale.to_json(orient="records", lines=True, force_ascii=False))
    rejudged = semantic_study(
        STUDY, settings=settings, llm=scripted_llm(settings, _judge_by_prediction)
    )
    assert len(rejudged) == 6  # another prompt is another judge: judged again
    table = semantic_report(load_results(STUDY, settings), stored.reset_index(), ["hirag", "naive"])
    rows = table.set_index("method")
    assert list(rows.index) == ["hirag", "naive"]
    assert rows.loc["hirag", ["judged", "answers", "sem_only"]].tolist() == [3, 3, 2]
    assert rows.loc["hirag", "semantic"] == pytest.approx(2 / 3)
    assert rows.loc["hirag", "em"] == 0.0 and rows.loc["naive", "semantic"] == pytest.approx(1 / 3)
    assert rows.loc["naive", "judge_model"] == llm.model
    assert semantic_command(STUDY, ["hirag"]) == f"ace-lab semantic --study {STUDY} --methods hirag"


def test_a_failed_call_is_retried_and_a_changed_answer_judged_again(settings):
    _write(settings, "hirag", {"q0": "Mission, British Columbia", "q2": "Bo Lind"})
    failing = scripted_llm(settings, [LLMError("down")] * 8 + ['{"equivalent": false}'] * 8)
    first = semantic_study(STUDY, ["hirag"], settings=settings, llm=failing)
    assert first.attrs["errors"] >= 1 and len(first) + first.attrs["errors"] == 2
    retry = semantic_study(
        STUDY, ["hirag"], settings=settings, llm=scripted_llm(settings, _judge_by_prediction)
    )
    assert len(first) + len(retry) == 2 and retry.attrs["errors"] == 0
    _write(settings, "hirag", {"q0": "Vancouver", "q2": "Bo Lind"})  # q0 rerun, new answer
    rejudged = semantic_study(
        STUDY, settings=settings, llm=scripted_llm(settings, _judge_by_prediction)
    )
    assert list(rejudged["id"]) == ["q0"] and rejudged["semantic"].tolist() == [0.0]
    report = semantic_report(
        load_results(STUDY, settings), load_semantic(STUDY, settings), ["hirag"]
    )
    # The stale verdict about "Mission, British Columbia" no longer counts.
    assert report.iloc[0]["semantic"] == 0.0 and report.iloc[0]["judged"] == 2


def test_an_answer_judged_by_two_judges_counts_once_with_the_latest_verdict(settings):
    _write(settings, "hirag", {"q0": "Mission, British Columbia", "q2": "Bo Lind"})
    semantic_study(STUDY, settings=settings, llm=scripted_llm(settings, _judge_by_prediction))
    first = load_semantic(STUDY, settings)
    # Another build of the judge (another identity) later rejects q0.
    later = first[first["id"] == "q0"].assign(semantic=0.0, judge_identity="judge-build-2")
    verdicts = pd.concat([first, later], ignore_index=True)
    report = semantic_report(load_results(STUDY, settings), verdicts, ["hirag"]).iloc[0]
    assert report["judged"] == 2 and report["answers"] == 2
    assert report["semantic"] == 0.0


def test_a_study_without_verdicts_has_an_empty_report(settings):
    _write(settings, "hirag", {"q0": "Mission"})
    assert load_semantic(STUDY, settings).empty
    assert semantic_report(
        load_results(STUDY, settings), load_semantic(STUDY, settings), ["hirag"]
    ).empty
    assert semantic_report(
        pd.DataFrame(columns=["method", "id", "answer", "gold"]),
        load_semantic(STUDY, settings),
        ["hirag"],
    ).empty
