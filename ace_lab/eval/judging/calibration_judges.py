"""Each judged metric's own judge call on a calibration probe, read as yes / no per item.

A judge here calls the function (or, for ACC's classification, the request) the metric itself
uses, so the calibration measures the judge the tables use, and reads its output as the metric
does; it returns ``(item, said)`` per item (``said`` None where the judge gave no usable verdict)
and the metric's own detail for audit. Items are matched to the judge's echo of a statement by
normalised text (exact, else the best word overlap of at least :data:`MIN_OVERLAP`), since the
judge may reword a statement; an item it did not label is None.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Any

from ace_lab.eval.graphragbench.attribution import context_relevance, evidence_recall, faithfulness
from ace_lab.eval.graphragbench.judge import Classification, ask_json, coverage_score
from ace_lab.eval.judging.calibration_sets import Probe
from ace_lab.eval.judging.equivalence import ask_judge
from ace_lab.eval.judging.judge import judge_pair
from ace_lab.eval.metrics import normalize_answer
from ace_lab.llm import LLM

Said = list[tuple[str, bool | None]]
#: Word overlap (Jaccard) from which a reworded statement is taken for an item.
MIN_OVERLAP = 0.6
#: Context relevancy from which the judge counts as calling a context relevant (a rating of
#: 1 "part of the information" or more on average).
RELEVANT = 0.5


def _words(text: str) -> set[str]:
    return set(normalize_answer(text).split())


def match(items: Sequence[str], labelled: Sequence[tuple[str, Any]]) -> list[Any]:
    """For each item, the label of the judge's statement that is it (None if none is)."""
    out = []
    for item in items:
        exact = [v for s, v in labelled if normalize_answer(s) == normalize_answer(item)]
        if exact:
            out.append(exact[0])
            continue
        words = _words(item)
        scored = [(len(words & _words(s)) / max(1, len(words | _words(s))), v) for s, v in labelled]
        best = max(scored, default=(0.0, None), key=lambda sv: sv[0])
        out.append(best[1] if best[0] >= MIN_OVERLAP else None)
    return out


def _binary(value: Any) -> bool | None:
    return {1: True, 0: False}.get(value) if isinstance(value, int) else None


def _items(probe: Probe) -> list[str]:
    return [item for item, _ in probe.expected]


def judge_evidence_recall(llm: LLM, probe: Probe) -> tuple[Said, dict[str, Any]]:
    i = probe.inputs
    detail = evidence_recall(llm, i["question"], i["contexts"], i["evidence"])
    labels = [(v["statement"], v["verdict"]) for v in detail.get("verdicts", [])]
    said = [_binary(v) for v in match(_items(probe), labels)]
    return list(zip(_items(probe), said, strict=True)), detail


def judge_context_relevancy(llm: LLM, probe: Probe) -> tuple[Said, dict[str, Any]]:
    i = probe.inputs
    detail = context_relevance(llm, i["question"], i["contexts"])
    score = detail["context_relevancy"]
    said = None if not math.isfinite(score) else score >= RELEVANT
    return [(probe.expected[0][0], said)], detail


def judge_acc_statements(llm: LLM, probe: Probe) -> tuple[Said, dict[str, Any]]:
    """ACC's classification request exactly as ``answer_correctness`` sends it: an answer
    statement in TP is a yes, in FP a no, anywhere else (FN, missing) unreadable."""
    i = probe.inputs
    value, failed = ask_json(
        llm,
        "grb_correctness",
        Classification,
        Classification(),
        question=i["question"],
        answer=json.dumps(i["answer_statements"], ensure_ascii=False),
        ground_truth=json.dumps(i["truth_statements"], ensure_ascii=False),
    )
    labels = [(c.statement, True) for c in value.TP] + [(c.statement, False) for c in value.FP]
    said = [None] * len(probe.expected) if failed else match(_items(probe), labels)
    return list(zip(_items(probe), said, strict=True)), {
        "classification": value.model_dump(),
        "fallback": failed,
    }


def judge_coverage(llm: LLM, probe: Probe) -> tuple[Said, dict[str, Any]]:
    i = probe.inputs
    detail = coverage_score(llm, i["question"], i["answer"], i["ground_truth"])
    said = [(v["statement"], _binary(v["verdict"])) for v in detail.get("verdicts", [])]
    return said or [("(no verdict)", None)], detail


def judge_faithfulness(llm: LLM, probe: Probe) -> tuple[Said, dict[str, Any]]:
    i = probe.inputs
    detail = faithfulness(llm, i["question"], i["answer"], i["contexts"])
    said = [(v["statement"], _binary(v["verdict"])) for v in detail.get("verdicts", [])]
    return said or [("(no verdict)", None)], detail


def judge_semantic(llm: LLM, probe: Probe) -> tuple[Said, dict[str, Any]]:
    i = probe.inputs
    equivalent, failed = ask_judge(llm, i["question"], i["golds"], i["prediction"])
    return [(i["prediction"], None if failed else equivalent)], {"fallback": failed}


def judge_pairwise(llm: LLM, probe: Probe) -> tuple[Said, dict[str, Any]]:
    """Yes when a wins "overall" in both orders, no when b does, unreadable on a tie."""
    i = probe.inputs
    verdict = judge_pair(llm, i["query"], i["a"], i["b"])
    said = {"a": True, "b": False}.get(verdict.outcomes["overall"])
    return [(probe.expected[0][0], said)], {
        "outcomes": verdict.outcomes,
        "fallbacks": list(verdict.fallbacks),
    }


JUDGES: dict[str, Callable[[LLM, Probe], tuple[Said, dict[str, Any]]]] = {
    "evidence_recall": judge_evidence_recall,
    "context_relevancy": judge_context_relevancy,
    "coverage": judge_coverage,
    "faithfulness": judge_faithfulness,
    "acc_statements": judge_acc_statements,
    "semantic_equivalence": judge_semantic,
    "pairwise_preference": judge_pairwise,
}

#: Rough output tokens per probe item and per call, for the estimate.
_OUTPUT = {
    "evidence_recall": (45, 0),
    "context_relevancy": (0, 16),
    "coverage": (30, 150),
    "faithfulness": (45, 200),
    "acc_statements": (40, 10),
    "semantic_equivalence": (0, 8),
    "pairwise_preference": (0, 500),
}
#: Prompt tokens of each metric's instructions (their prompt files, roughly, per probe).
_INSTRUCTIONS = {"coverage": 500, "faithfulness": 600, "pairwise_preference": 600}


def estimate_tokens(probe: Probe) -> tuple[int, int]:
    """Approximate (prompt, output) tokens of judging ``probe`` (4 characters a token)."""
    text = json.dumps(probe.inputs, ensure_ascii=False)
    calls = 2 if probe.metric in ("context_relevancy", "pairwise_preference") else 1
    prompt = calls * (len(text) // 4 + _INSTRUCTIONS.get(probe.metric, 300))
    per_item, per_call = _OUTPUT[probe.metric]
    items = 5 if probe.expected[0][0] == "*" else len(probe.expected)
    return prompt, per_item * items + per_call * calls
