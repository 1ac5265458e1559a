"""A tiny GraphRAG-Bench study for the tests of its scores: five medical questions of the four
types, what "naive" answers, a scripted judge of those answers and an embedder with one axis."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ace_lab.data import load_dataset, make_slice
from ace_lab.eval.studies.study import study_dir
from ace_lab.llm import LLMError
from ace_lab.prompts import load_prompt

STUDY = "grb-tiny"
DATASET = "graphragbench_medical"
_TOPICS = {
    "basal": "basal cell carcinoma skin cancer epidermis",
    "melanoma": "melanoma pigment mole spread lymph",
    "sun": "sun exposure ultraviolet burn shade",
    "surgery": "surgery excision margin scar healing",
    "story": "poem imagination story character voice",
}
#: (id, type, question, gold answer, evidence statements)
QUESTIONS = [
    ("q-fr1", "Fact Retrieval", "Which is the most common skin cancer?",
     "basal cell carcinoma", "Basal cell carcinoma is common; It arises in the epidermis"),
    ("q-fr2", "Fact Retrieval", "Which cancer comes from pigment cells?",
     "melanoma", "Melanoma arises from pigment cells"),
    ("q-cr", "Complex Reasoning", "What raises the risk of skin cancer?",
     "sun exposure", "Ultraviolet sun exposure burns skin; Burns raise the risk"),
    ("q-cs", "Contextual Summarize", "Summarize how surgery treats skin cancer.",
     "Surgery removes the tumour with a margin.", "Excision removes the tumour"),
    ("q-cg", "Creative Generation", "Write a short story about a mole.",
     "A mole told its story in a poem.", "A mole can change"),
]  # fmt: skip
#: What "naive" answers: a "Right …" answer is judged correct, anything else wrong.
NAIVE = {
    "q-fr1": "Right basal cell carcinoma",  # ROUGE-L: LCS 3 of 4 / 3 tokens -> F = 6/7
    "q-fr2": "Wrong guess",  # ROUGE-L 0
    "q-cr": "Right sun exposure",  # ROUGE-L: LCS 2 of 3 / 2 tokens -> F = 0.8
    "q-cs": "Wrong summary",
    "q-cg": "Right a mole poem",
}
PROMPTS = (
    *("grb_statements", "grb_correctness", "grb_coverage_facts", "grb_coverage"),
    *("grb_evidence_recall", "grb_context_relevance", "grb_faithfulness"),
)


class SameEmbedder:
    """Every text on one axis: cosine 1, so ACC's similarity part is exactly 1."""

    model_id = "test:same"
    dim = 2

    def encode(self, texts: list[str]) -> Any:
        return np.tile(np.asarray([1.0, 0.0], dtype=np.float32), (len(texts), 1))


class Judge:
    """Plays the GraphRAG-Bench judge (see NAIVE); malformed relevance ratings for the
    Contextual Summarize question; raises LLMError for an answer containing "Flaky" while
    ``down``. Records every (prompt, user message)."""

    def __init__(self) -> None:
        self.by_system = {load_prompt(name).system: name for name in PROMPTS}
        self.asked: list[tuple[str, str]] = []
        self.down = False

    def __call__(self, kwargs: dict) -> Any:
        name = self.by_system[kwargs["messages"][0]["content"]]
        user = kwargs["messages"][-1]["content"]
        self.asked.append((name, user))
        if self.down and "Flaky" in user:
            return LLMError("judge server down")
        if name == "grb_statements":
            return json.dumps({"statements": [user.split("Answer: ", 1)[1]]})
        if name == "grb_correctness":
            line = user.split("Answer statements: ", 1)[1].split("\n", 1)[0]
            one = [{"statement": "s", "reason": ""}]
            verdict = {"TP": one} if "Right" in line else {"FP": one, "FN": one}
            return json.dumps(verdict)
        if name == "grb_coverage_facts":
            return json.dumps({"facts": ["f1", "f2"]})
        if name == "grb_coverage":
            second = 1 if 'Response: "Right' in user else 0
            items = [
                {"statement": "f1", "attributed": 1},
                {"statement": "f2", "attributed": second},
            ]
            return json.dumps({"classifications": items})
        if name == "grb_faithfulness":
            items = [{"statement": "a1", "reason": "said", "verdict": 1}]
            return json.dumps({"classifications": items})
        if name == "grb_evidence_recall":
            items = [{"statement": "e1", "attributed": 1}, {"statement": "e2", "attributed": 0}]
            return json.dumps({"classifications": items})
        return "a rating of two" if "Summarize" in user else json.dumps({"score": 2})


def document() -> str:
    # One topic per ~200-word piece, so each topic lands in its own chunk.
    return " ".join(" ".join([words] * 40) for words in _TOPICS.values())


def study_slice(settings):
    return make_slice(load_dataset(DATASET, settings.data_dir), len(QUESTIONS), seed=0)


def write_study(settings, answers: dict[str, dict[str, str]], **extra: Any) -> Any:
    sl = study_slice(settings)
    folder = study_dir(STUDY, settings)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"dataset": DATASET, "n": len(QUESTIONS), "seed": 0, "slice_id": sl.slice_id}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    position = {q.id: i for i, q in enumerate(sl.questions)}
    by_id = {q.id: q for q in sl.questions}
    for method, given in answers.items():
        rows = [
            {
                "id": qid,
                "position": position[qid],
                "method": method,
                "type": by_id[qid].type,
                "question": by_id[qid].question,
                "gold": [by_id[qid].answer],
                "answer": answer,
                "context_ids": [by_id[qid].supporting_ids[0], "ent:made-up"],
                **extra,
            }
            for qid, answer in given.items()
        ]
        (folder / f"{method}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return sl
