"""ace_lab.eval.judging.equivalence: fast paths, the judge call and its default, frame scoring,
agreement with EM — and a hand-checked set of answer pairs judged by the real default model."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from ace_lab.config import load_settings
from ace_lab.eval.judging.equivalence import (
    MAX_PREDICTION_CHARS,
    agreement,
    cohen_kappa,
    fast_path,
    gold_text,
    judge_equivalence,
    score_frame,
    semantic_table,
)
from ace_lab.llm import LLM, server
from tests.support.scripted import ScriptedClient, scripted_llm

Q_MISSION = (
    "What is the place of birth of the performer of song Take A Picture (Carly Rae Jepsen Song)?"
)


def _user(request: dict) -> str:
    return request["messages"][-1]["content"]


# ------------------------------------------------------------------------- control flow
def test_fast_paths_decide_without_a_call(settings):
    llm = scripted_llm(settings, [])  # any call would pop from an empty script and fail
    exact = judge_equivalence(llm, "Who?", ["The Beatles", "Beatles"], "beatles!")
    empty = judge_equivalence(llm, "Who?", ["The Beatles"], "  ... ")
    assert (exact.equivalent, exact.by, exact.score) == (True, "exact", 1.0)
    assert (empty.equivalent, empty.by, empty.score) == (False, "empty", 0.0)
    assert exact.judge_model == "smollm135m" and exact.judge_identity == llm.model_identity
    assert llm.client().requests == []
    assert fast_path("Mission, British Columbia", ["Mission"]) is None
    # a yes/no question is answered by the first word; an entity answer is wrong
    assert fast_path("Yes, both are American.", ["yes"]) == ("yes_no", True)
    assert fast_path("no", ["yes"]) == ("yes_no", False)
    assert fast_path("Joe Walsh and Chester Bennington", ["no"]) == ("yes_no", False)
    assert judge_equivalence(llm, "Same band?", ["no"], "No, they are not").by == "yes_no"
    with pytest.raises(ValueError, match="gold"):
        judge_equivalence(llm, "Who?", [], "x")


def test_the_judge_sees_question_golds_and_prediction_and_decides(settings):
    client = ScriptedClient(['{"equivalent": true}', '{"equivalent": false}'])
    llm = LLM(settings, client=client)
    yes = judge_equivalence(llm, Q_MISSION, ["Mission", "Mission, BC"], "Mission, British Columbia")
    no = judge_equivalence(llm, Q_MISSION, ["Mission"], "Vancouver")
    assert (yes.equivalent, yes.by) == (True, "judge") and (no.equivalent, no.by) == (
        False,
        "judge",
    )
    first = client.requests[0]
    assert Q_MISSION in _user(first) and "Mission, British Columbia" in _user(first)
    assert "Gold answer: Mission (also accepted: Mission, BC)" in _user(first)
    assert first["temperature"] == 0.0
    schema = first["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["equivalent"]["type"] == "boolean"


def test_malformed_judge_output_defaults_to_not_equivalent(settings):
    client = ScriptedClient(["maybe?", '{"equivalent": "sort of"}', "{}"])
    verdict = judge_equivalence(LLM(settings, client=client), "Who?", ["Ann"], "Anne")
    assert (verdict.equivalent, verdict.by) == (False, "fallback")
    assert len(client.requests) == 3  # LLM.json's bounded retries, then the default


def test_a_runaway_prediction_is_cut_before_it_reaches_the_judge(settings):
    client = ScriptedClient(['{"equivalent": false}'])
    judge_equivalence(LLM(settings, client=client), "Who?", ["Ann"], "word\n " * 1000)
    shown = _user(client.requests[0]).split("Predicted answer: ", 1)[1]
    assert len(shown) == MAX_PREDICTION_CHARS and "\n" not in shown


def test_gold_text_names_the_first_alias_and_the_others():
    assert gold_text(["Paris"]) == "Paris"
    assert gold_text(["Paris", "Paris, France"]) == "Paris (also accepted: Paris, France)"


def test_score_frame_adds_columns_and_calls_once_per_distinct_answer(settings):
    client = ScriptedClient(lambda kw: '{"equivalent": true}')
    df = pd.DataFrame(
        [
            {"method": "a", "question": Q_MISSION, "gold": ["Mission"], "answer": "Mission, BC"},
            {"method": "b", "question": Q_MISSION, "gold": ["Mission"], "answer": "Mission, BC"},
            {"method": "a", "question": "Q2", "gold": ["Ann"], "answer": "ann"},
            {"method": "b", "question": "Q2", "gold": ["Ann"], "answer": ""},
            {"method": "a", "question": "Q3", "gold": [], "answer": "x"},
            {"method": "b", "question": "Q4", "gold": ["None"], "answer": None},
        ]
    )
    scored = score_frame(df, LLM(settings, client=client))
    assert len(client.requests) == 1  # two rows share one judged answer; the rest: fast paths
    assert scored["semantic"].tolist()[:4] == [1.0, 1.0, 1.0, 0.0]
    assert math.isnan(scored["semantic"].iloc[4]) and scored["semantic"].iloc[5] == 0.0
    assert scored["semantic_by"].tolist()[:4] == ["judge", "judge", "exact", "empty"]
    assert pd.isna(scored["semantic_by"].iloc[4]) and scored["semantic_by"].iloc[5] == "empty"
    assert set(scored["judge_model"]) == {"smollm135m"}
    assert "semantic" not in df  # the input frame is left as it was


def test_cohen_kappa_and_agreement_with_em():
    assert cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == 1.0
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == 0.0
    assert math.isnan(cohen_kappa([1, 1], [1, 1]))
    # observed 0.75, chance 0.5·0.25 + 0.5·0.75 = 0.5 → kappa 0.5
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        cohen_kappa([1], [1, 0])
    stats = agreement([1.0, 1.0, 0.0, 0.0, math.nan], [1.0, 0.0, 0.0, 0.0, 1.0])
    assert stats == {
        "n": 4,
        "semantic": 0.5,
        "em": 0.25,
        "raw": 0.75,
        "kappa": 0.5,
        "sem_only": 1,
        "em_only": 0,
    }
    assert agreement([], [])["n"] == 0


def test_semantic_table_per_method_names_the_judge():
    scored = pd.DataFrame(
        {
            "method": ["a", "a", "b", "b"],
            "semantic": [1.0, 1.0, 0.0, 1.0],
            "em": [1.0, 0.0, 0.0, 1.0],
            "judge_model": ["qwen1.5b"] * 4,
        }
    )
    table = semantic_table(scored)
    assert table["method"].tolist() == ["a", "b"]
    assert table["semantic"].tolist() == [1.0, 0.5] and table["em"].tolist() == [0.5, 0.5]
    assert table["sem_only"].tolist() == [1, 0] and set(table["judge_model"]) == {"qwen1.5b"}
    with pytest.raises(ValueError, match="several judges"):
        semantic_table(scored.assign(judge_model=["x", "y", "x", "x"]))


# ------------------------------------------------------- hand-checked pairs, real judge
#: (question, gold answers, prediction, equivalent?) — checked by hand; none is an exact
#: match, so every pair goes to the judge. Real answers from the committed studies and
#: textbook cases, three of each verdict: six judge calls keep this real-model check short.
HAND_CHECKED = [
    (
        "What is the place of birth of the director of film Thiruvannamalai (Film)?",
        ["Nattarasankottai"],
        "Nattarasankottai, Tamil Nadu",
        True,
    ),
    ("Which city hosted the 1992 Summer Olympics?", ["Barcelona"], "Barcelona, Spain", True),
    ("Who directed the film Jaws?", ["Steven Spielberg"], "Spielberg", True),
    (
        "Which board game was published most recently, Pirate's Cove or Catan?",
        ["Pirate's Cove"],
        "Board Games",
        False,
    ),
    (
        "The Battle of Nanchang was fought between the Chinese Nationals and what ground-based "
        "armed force?",
        ["Imperial Japanese Army"],
        "Chinese National Revolutionary Army",
        False,
    ),
    ("In what year was the band Weezer formed?", ["1992"], "1994", False),
]


@pytest.mark.integration
def test_hand_checked_pairs_with_the_default_model():
    """The real ``qwen1.5b`` judge (shared server and response cache) agrees with the hand
    labels on at least 5 of the 6 pairs; the agreement is printed (``pytest -s``)."""
    settings = load_settings(base_url=None, tier="qwen1.5b")
    was_running = server.status(settings) is not None
    llm = LLM(settings)
    try:
        verdicts = [judge_equivalence(llm, q, g, p) for q, g, p, _ in HAND_CHECKED]
    finally:  # a server this test started does not outlive it (a study's server is left up)
        if not was_running:
            server.stop(settings)
    assert all(v.by in ("judge", "fallback") for v in verdicts)
    wrong = [
        (p, g, expected)
        for (_, g, p, expected), v in zip(HAND_CHECKED, verdicts, strict=True)
        if v.equivalent != expected
    ]
    print(
        f"\n{llm.model} judge agrees with the hand labels on "
        f"{len(HAND_CHECKED) - len(wrong)}/{len(HAND_CHECKED)} pairs; wrong: {json.dumps(wrong)}"
    )
    assert len(HAND_CHECKED) == 6 and len(wrong) <= 1, wrong
