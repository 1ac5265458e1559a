"""ace_lab.eval.judging.calibration (+ _sets, _judges, _run): the records, the probes built from
the committed slices, and the whole run with scripted judges — one that says yes to everything
(flagged uninformative on every metric) and an oracle that knows each probe's answer (not)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ace_lab.data import Question
from ace_lab.eval.judging import calibration_run
from ace_lab.eval.judging.calibration import (
    CALIBRATION_THRESHOLD,
    METRICS,
    NOT_CALIBRATED,
    UNINFORMATIVE,
    Calibration,
    Calibrations,
    cell,
    cells,
    load_calibrations,
    mark,
    summarize,
)
from ace_lab.eval.judging.calibration_judges import match
from ace_lab.eval.judging.calibration_run import BUILDERS
from ace_lab.eval.judging.calibration_sets import Probe, normalised
from ace_lab.eval.judging.identity import JudgeIdentity, prompt_fingerprint
from tests.support.scripted import scripted_llm

#: Small sets keep the scripted runs fast: about 4 positives and 4 negatives per metric.
N = 4


# ------------------------------------------------------------------------------ records
JUDGE = JudgeIdentity("local:qwen1.5b:gguf:abc+llama-server:111", "p1")


def test_summary_is_balanced_accuracy_and_unreadable_counts_as_wrong():
    yes_to_all = summarize("coverage", "j", [(True, True)] * 3 + [(False, True)] * 9)
    assert (yes_to_all.tpr, yes_to_all.tnr, yes_to_all.accuracy) == (1.0, 0.0, 0.5)
    assert not yes_to_all.informative and yes_to_all.n == 12
    perfect = summarize("coverage", "j", [(True, True), (False, False)])
    assert perfect.accuracy == 1.0 and perfect.informative
    unreadable = summarize("coverage", "j", [(True, None), (False, None), (True, True)])
    assert (unreadable.tpr, unreadable.tnr) == (0.5, 0.0)
    assert unreadable.unreadable == 1 + 1 and unreadable.items == 3
    one_sided = summarize("coverage", "j", [(True, True)] * 4)
    assert not one_sided.informative  # no negatives: nothing shows it can say no
    at = summarize("coverage", "j", [(True, True)] * 2 + [(False, False), (False, True)])
    assert at.accuracy == CALIBRATION_THRESHOLD and at.informative


def test_a_probe_counts_once_whatever_its_items():
    """Eleven negatives from one probe weigh as one probe, not eleven (the audit's
    faithfulness case), and n says how many independent probes there are."""
    verdicts = [(True, True)] * 3 + [(False, True)] * 11 + [(False, False)] * 3
    probes = ["p1", "p2", "p3"] + ["big"] * 11 + ["n1", "n2", "n3"]
    found = summarize("faithfulness", "j", verdicts, probes)
    assert (found.n_pos, found.n_neg, found.items) == (3, 4, 17)
    assert found.tnr == 3 / 4 and found.accuracy == (1 + 3 / 4) / 2
    by_item = summarize("faithfulness", "j", verdicts)
    assert by_item.tnr == 3 / 14 and by_item.n == 17  # what counting items said


def test_unreadable_verdicts_are_reported_beside_the_accuracy():
    """The audit's acc_statements case: unreadable items count as wrong in the accuracy, and
    the accuracy on the readable ones is its own number."""
    verdicts = [(True, True)] * 9 + [(True, None)] * 5 + [(False, False)] * 8 + [(False, None)] * 5
    found = summarize("acc_statements", "j", verdicts)
    assert found.unreadable == 10 and found.items == 27
    assert found.accuracy == pytest.approx((9 / 14 + 8 / 13) / 2)
    assert found.accuracy_readable == 1.0 and not found.informative


def test_label_mark_and_cell_are_of_the_exact_judge():
    bad = Calibration("coverage", "qwen1.5b", 16, 16, 0.62, 0.9, 0.34, False, JUDGE.model, "p1")
    good = Calibration(
        "evidence_recall", "qwen1.5b", 16, 16, 0.91, 0.94, 0.88, True, JUDGE.model, "p1"
    )
    found = Calibrations((bad, good))
    assert bad.label() == "judge acc 0.62 (n=32), uninformative"
    assert mark("coverage", found, JUDGE) == UNINFORMATIVE
    assert mark("evidence_recall", found, JUDGE) == ""
    assert mark("faithfulness", found, JUDGE) == NOT_CALIBRATED
    other_build = JudgeIdentity("local:qwen1.5b:gguf:abc+llama-server:222", "p1")
    other_prompt = JudgeIdentity(JUDGE.model, "p2")
    for judge in (other_build, other_prompt, JudgeIdentity(JUDGE.model, ""), None):
        assert mark("evidence_recall", found, judge) == NOT_CALIBRATED, judge
    assert cell("evidence_recall", found, JUDGE) == "0.91 (n=32)"
    assert cell("coverage", found, JUDGE) == f"0.62 (n=32) {UNINFORMATIVE}"
    assert cell("evidence_recall", found, other_build) == NOT_CALIBRATED
    mixed = Counter({JUDGE: 12, other_build: 8})
    assert cells("evidence_recall", found, mixed) == (
        f"0.91 (n=32) on 12 of 20 verdicts; {NOT_CALIBRATED} on 8 of 20 verdicts"
    )
    assert cells("evidence_recall", found, Counter({JUDGE: 3})) == "0.91 (n=32)"
    assert cells("evidence_recall", found, Counter()) == NOT_CALIBRATED


def test_load_calibrations_missing_file_and_identity(tmp_path):
    assert len(load_calibrations(tmp_path / "absent.json")) == 0
    path = tmp_path / "calibration.json"
    base = {"metric": "coverage", "judge": "qwen1.5b", "n_pos": 2, "n_neg": 2}
    records = [
        base | {"accuracy": 0.9, "tpr": 1.0, "tnr": 0.8}
        | {"judge_identity": "a", "judge_prompt": "p"},
        # informative is recomputed from the accuracy
        base | {"accuracy": 0.5, "tpr": 1.0, "tnr": 0.0, "informative": True}
        | {"judge_identity": "b", "judge_prompt": "p"},
    ]  # fmt: skip
    path.write_text(json.dumps({"calibrations": records}), encoding="utf-8")
    found = load_calibrations(path)
    assert found.find("coverage", JudgeIdentity("a", "p")).informative
    assert not found.find("coverage", JudgeIdentity("b", "p")).informative
    assert found.find("coverage", JudgeIdentity("c", "p")) is None


# ------------------------------------------------------------------------------- probes
@pytest.mark.parametrize("metric", METRICS)
def test_probes_are_deterministic_and_balanced(metric):
    first, again = BUILDERS[metric](16), BUILDERS[metric](16)
    assert first == again
    assert len({p.probe_id for p in first}) == len(first)
    expected = [e for p in first for _, e in p.expected]
    assert any(expected) and not all(expected)
    if metric == "semantic_equivalence":  # one positive, then a negative per kind of miss
        assert expected.count(True) == 16 and expected.count(False) > 2 * 16
    elif metric not in ("coverage", "pairwise_preference"):  # these count judge-listed facts
        assert expected.count(True) == expected.count(False) == 16


def test_negatives_use_another_questions_data():
    for probe in BUILDERS["evidence_recall"](8):
        own = probe.probe_id.endswith(":own")
        assert all(expected == own for _, expected in probe.expected)
    for probe in BUILDERS["semantic_equivalence"](8):
        (prediction, expected), golds = probe.expected[0], probe.inputs["golds"]
        assert any(g in prediction for g in golds) == expected


def test_semantic_probes_hold_near_misses_of_each_kind():
    """Beside another question's answer of the same type, the near misses where the judge
    decides what EM would not: a related entity and a partial answer."""
    from ace_lab.eval.judging.calibration_semantic import (
        answer_kind,
        partial_answer,
        related_entity,
    )

    probes = BUILDERS["semantic_equivalence"](16)
    kinds = Counter(p.probe_id.split(":")[1] for p in probes)
    assert kinds["own"] == kinds["swap"] == kinds["related"] == 16 and kinds["partial"] >= 8
    by_id = {p.probe_id: p for p in probes}
    comparison = next(p for p in probes if p.inputs["question"].startswith("Which species"))
    related = by_id[comparison.probe_id.rsplit(":", 1)[0] + ":related"]
    assert "Osmunda" in related.inputs["prediction"]  # "Podocarpus or Osmunda?": the other one
    assert not related.expected[0][1]
    question = Question("q", "Who is the spouse?", "Sherry Boucher", (), (), None, "x")
    assert partial_answer(question) == "Sherry"
    assert partial_answer(Question("q", "Who?", "The Beatles", (), (), None, "x")) is None
    assert answer_kind(question) == (False, "who is") and answer_kind(question, 1)[1] == "who"
    swaps = [p for p in probes if ":swap:" in p.probe_id]
    assert all(not p.expected[0][1] for p in swaps)
    assert related_entity  # used above through the probes


def test_match_takes_reworded_statements_and_leaves_unlabelled_ones():
    labelled = [("The Sioux fought near Shakopee.", 1), ("Curie won two prizes", 0)]
    items = ["the Sioux fought near Shakopee", "Curie won two Nobel prizes", "Unrelated claim"]
    assert match(items, labelled) == [1, 0, None]
    assert normalised("The Sioux fought.") == "the Sioux fought"


# ---------------------------------------------------------------- the run, scripted judges
def _system(request: dict) -> str:
    return request["messages"][0]["content"]


def _user(request: dict) -> str:
    return request["messages"][-1]["content"]


def _listed(text: str, label: str) -> list[str]:
    """The JSON list after ``label`` in a prompt."""
    found = re.search(re.escape(label) + r"\s*(\[.*?\])\s*(\n|$)", text, re.S)
    assert found, f"no {label!r} list in the prompt"
    return json.loads(found.group(1))


class Judge:
    """A scripted judge for every judged metric's prompt: ``truth(kind, request, item)`` gives
    each verdict (the yes-judge: always True; the oracle: the probe's expected verdict)."""

    def __init__(self, truth: Any) -> None:
        self.truth = truth

    def __call__(self, request: dict) -> str:
        system, user = _system(request), _user(request)
        say = lambda kind, item="": self.truth(kind, user, item)  # noqa: E731
        if "evidence statements and a context" in system:
            items = _listed(user, "Evidence:")
            labels = [{"statement": s, "attributed": int(say("evidence", s))} for s in items]
            return json.dumps({"classifications": labels})
        if "how relevant a context is" in system:
            return json.dumps({"score": 2 if say("relevance") else 0})
        if "compare the statements of an answer" in system:
            out: dict[str, list] = {"TP": [], "FP": [], "FN": []}
            for s in _listed(user, "Answer statements:"):
                out["TP" if say("acc", s) else "FP"].append({"statement": s, "reason": "r"})
            return json.dumps(out)
        if "Break the reference answer down" in system:
            return json.dumps({"facts": ["first fact", "second fact"]})
        if "decide whether the response covers it" in system:
            facts = _listed(user, "Reference facts:")
            labels = [{"statement": f, "attributed": int(say("coverage"))} for f in facts]
            return json.dumps({"classifications": labels})
        if "break an answer to a question into short factual statements" in system:
            answer = user.split("Answer:", 1)[1].strip()
            return json.dumps({"statements": [answer[:60]]})
        if "faithful to a context" in system:
            items = _listed(user, "Statements:")
            labels = [{"statement": s, "verdict": int(say("faithful", s))} for s in items]
            return json.dumps({"classifications": labels})
        if "equivalent" in system.lower() or "equivalent" in user.lower():
            return json.dumps({"equivalent": bool(say("semantic"))})
        if "comparing two answers" in system:
            winner = "Answer 1" if say("pairwise") else "Answer 2"
            pick = {"winner": winner, "explanation": "e"}
            return json.dumps(
                {c: pick for c in ("comprehensiveness", "diversity", "empowerment", "overall")}
            )
        raise AssertionError(f"unscripted prompt: {system[:80]}")


def _oracle(probes: list[Probe]) -> Any:
    """The expected verdict of whatever a request asks, looked up from the probes."""

    def key(text: str) -> str:
        return " ".join(str(text).split())[:120]

    pos_context, pos_statement, pos_answer, pos_faithful = set(), set(), set(), set()
    pos_covered: set[tuple[str, str]] = set()  # (question, answer): coverage and pairwise
    for p in probes:
        positive = p.expected[0][1]
        if p.metric == "faithfulness" and positive:
            pos_faithful.add((p.inputs["answer"][:60], key(p.inputs["contexts"][0])))
        if p.metric in ("evidence_recall", "context_relevancy") and positive:
            pos_context.add((key(p.inputs["question"]), key(p.inputs["contexts"][0])))
        if p.metric == "acc_statements":
            pos_statement |= {s for s, e in p.expected if e}
        if p.metric == "semantic_equivalence" and positive:
            pos_answer.add((p.inputs["question"], p.inputs["prediction"]))
        if p.metric == "coverage" and positive:
            pos_covered.add((key(p.inputs["question"]), key(p.inputs["answer"])))
        if p.metric == "pairwise_preference":
            own = p.inputs["a"] if positive else p.inputs["b"]
            pos_covered.add((key(p.inputs["query"]), key(own)))

    def truth(kind: str, user: str, item: str) -> bool:
        flat = " ".join(user.split())
        if kind == "faithful":  # the answer's first statement in its own context
            return any(item == a and c in flat for a, c in pos_faithful)
        if kind in ("evidence", "relevance"):
            return any(q in flat and c in flat for q, c in pos_context)
        if kind == "acc":
            return item in pos_statement
        if kind == "semantic":
            return any(q in user and a in user for q, a in pos_answer)
        if kind == "coverage":
            return any(q in flat and f'Response: "{a}' in flat for q, a in pos_covered)
        first = flat.split("Answer 1:")[1].split("Answer 2:")[0].strip()
        return any(q in flat and key(first) == a for q, a in pos_covered)

    return truth


def _run(settings, tmp_path: Path, truth: Any) -> dict[str, Calibration]:
    probes = calibration_run.probes_for(METRICS, N)
    llm = scripted_llm(settings, Judge(truth(probes) if truth is _oracle else truth))
    return calibration_run.calibrate(llm, probes, tmp_path / "judging")


def test_a_judge_that_says_yes_to_everything_is_uninformative_on_every_metric(settings, tmp_path):
    found = _run(settings, tmp_path, lambda kind, user, item: True)
    assert set(found) == set(METRICS)
    stored = load_calibrations(tmp_path / "judging" / "calibration.json")
    for metric, calibration in found.items():
        assert not calibration.informative, metric
        assert mark(metric, stored, calibration.identity) == UNINFORMATIVE
        assert calibration.accuracy <= 0.5, metric
        assert calibration.judge_prompt == prompt_fingerprint(metric)
    records = json.loads((tmp_path / "judging" / "calibration.json").read_text())
    assert {r["metric"] for r in records["calibrations"]} == set(METRICS)


def test_a_perfect_judge_is_informative_on_every_metric_and_a_rerun_calls_nothing(
    settings, tmp_path
):
    found = _run(settings, tmp_path, _oracle)
    stored = load_calibrations(tmp_path / "judging" / "calibration.json")
    for metric, calibration in found.items():
        assert calibration.informative and calibration.accuracy == 1.0, (metric, calibration)
        assert mark(metric, stored, calibration.identity) == ""
    lines = calibration_run.load_lines(tmp_path / "judging")
    assert all(line["judge"] == "smollm135m" and line["items"] for line in lines)
    # resumable: every probe is stored, so a rerun with a judge that would fail calls nothing
    llm = scripted_llm(settings, [])
    again = calibration_run.calibrate(
        llm, calibration_run.probes_for(METRICS, N), tmp_path / "judging"
    )
    assert again == found and llm.client().requests == []


# ------------------------------------------------------------------------------- tables
def test_the_semantic_table_shows_the_judges_calibration_beside_its_numbers():
    import pandas as pd

    from ace_lab.eval.judging.semantic import semantic_report

    df = pd.DataFrame(
        {
            "method": ["naive", "naive"],
            "id": ["1", "2"],
            "answer": ["a", "b"],
            "gold": [["a"], ["c"]],
            "em": [1.0, 0.0],
        }
    )
    verdicts = df[["method", "id", "answer"]].assign(
        semantic=[1.0, 1.0], judge_model="qwen1.5b", judge_identity=JUDGE.model, judge_prompt="p1"
    )
    pairs = [(True, True), (False, True)]
    yes_to_all = summarize("semantic_equivalence", "qwen1.5b", pairs, identity=JUDGE)
    table = semantic_report(df, verdicts, ["naive"], Calibrations((yes_to_all,)))
    assert table["judge_calibration"].tolist() == [f"0.50 (n=2) {UNINFORMATIVE}"]
    other_build = JudgeIdentity("local:qwen1.5b:gguf:abc+llama-server:222", "p1")
    other = summarize("semantic_equivalence", "qwen1.5b", pairs, identity=other_build)
    table = semantic_report(df, verdicts, ["naive"], Calibrations((other,)))
    assert table["judge_calibration"].tolist() == [NOT_CALIBRATED]  # the same model, another build
    mixed = verdicts.assign(judge_identity=[JUDGE.model, other_build.model])
    table = semantic_report(df, mixed, ["naive"], Calibrations((yes_to_all,)))
    assert table["judge_calibration"].tolist() == [
        f"0.50 (n=2) {UNINFORMATIVE} on 1 of 2 verdicts; {NOT_CALIBRATED} on 1 of 2 verdicts"
    ]


def test_calibrations_follow_the_configured_results_folder(tmp_path):
    """A results folder other than the checkout's is tabled with its own judges."""
    from dataclasses import replace

    from ace_lab.config import load_settings
    from ace_lab.eval.judging.calibration import judging_dir

    settings = replace(load_settings(), results_dir=tmp_path)
    assert judging_dir(settings) == tmp_path / "judging"
    assert len(load_calibrations(settings=settings)) == 0
    folder = judging_dir(settings)
    folder.mkdir()
    record = {"metric": "coverage", "judge": "a", "n_pos": 16, "n_neg": 16}
    record |= {"accuracy": 0.9, "tpr": 0.9, "tnr": 0.9, "judge_identity": "a", "judge_prompt": "p"}
    (folder / "calibration.json").write_text(json.dumps({"calibrations": [record]}))
    found = load_calibrations(settings=settings).find("coverage", JudgeIdentity("a", "p"))
    assert found is not None and found.informative
