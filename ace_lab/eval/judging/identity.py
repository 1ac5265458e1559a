"""A judge's full identity: the model that judged (its weights and server build) and the prompt
it was asked with.

A calibration measures one judge, and a judged number is only backed by that calibration when
the same judge gave it: the same weights, the same server build (its arithmetic, and so its
verdicts, can differ between llama.cpp builds) and the same prompt. The first two are the LLM's
``model_identity`` (e.g. ``local:qwen1.5b:gguf:<sha256>+llama-server:<build>``), which every
judged record already stores; the third is :func:`prompt_fingerprint`, a hash of the text of the
prompt file(s) the metric's judge call uses (:data:`PROMPTS`), stored beside it as
``judge_prompt`` (one metric) or ``judge_prompts`` (GraphRAG-Bench lines, one per metric).

:class:`JudgeIdentity` is the pair; :meth:`JudgeIdentity.key` is how calibrations are keyed.
A record without a prompt fingerprint has no full identity, so no calibration backs it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

#: The prompt files each calibrated metric's judge call sends, in call order (the metric's own
#: prompt and, where the metric first splits an answer into statements, that prompt too).
PROMPTS: dict[str, tuple[str, ...]] = {
    "evidence_recall": ("grb_evidence_recall",),
    "context_relevancy": ("grb_context_relevance",),
    "coverage": ("grb_coverage_facts", "grb_coverage"),
    "faithfulness": ("grb_statements", "grb_faithfulness"),
    "acc_statements": ("grb_correctness",),
    "semantic_equivalence": ("answer_equivalence",),
    "pairwise_preference": ("judge_pairwise",),
}
#: Hex digits of a fingerprint.
DIGITS = 12


def text_fingerprint(texts: Mapping[str, str]) -> str:
    """The fingerprint of prompt files given as ``{name: text}``, in the given order: a hash of
    each file's name and the hash of its text (so a fingerprint can be recomputed from any
    version of the files, e.g. the one committed when a record was judged)."""
    parts = [
        f"{name}:{hashlib.sha256(text.encode('utf-8')).hexdigest()}" for name, text in texts.items()
    ]
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:DIGITS]


def prompt_text(name: str) -> str:
    """The text of the packaged prompt file ``name`` (as :mod:`ace_lab.prompts` reads it)."""
    return (resources.files("ace_lab.prompts") / f"{name}.txt").read_text(encoding="utf-8")


def prompt_fingerprint(metric: str) -> str:
    """The fingerprint of the prompt files ``metric``'s judge sends now (:data:`PROMPTS`)."""
    if metric not in PROMPTS:
        raise KeyError(f"no judge prompt known for {metric!r}; known: {', '.join(PROMPTS)}")
    return text_fingerprint({name: prompt_text(name) for name in PROMPTS[metric]})


@dataclass(frozen=True)
class JudgeIdentity:
    """Who judged: ``model`` (the LLM's ``model_identity``: weights and server build) and
    ``prompt`` (:func:`prompt_fingerprint` of the metric's prompt files; "" when not recorded)."""

    model: str
    prompt: str

    @property
    def complete(self) -> bool:
        return bool(self.model) and bool(self.prompt)

    def key(self) -> str:
        """The key calibrations are stored under: ``<model identity>|prompt:<fingerprint>``."""
        return f"{self.model}|prompt:{self.prompt or '?'}"

    def short(self) -> str:
        """A readable name: model tier, server build and prompt, e.g. ``qwen1.5b
        llama-server:3fc97ed78579 prompt:0a1b2c3d4e5f`` (``xllamacpp`` where no build is
        named, as the in-process binding gives no build tag)."""
        parts = self.model.split("+")
        tier = parts[0].split(":")[1] if parts[0].startswith("local:") else parts[0]
        build = next((p for p in parts[1:] if p.startswith("llama-server:")), "")
        if parts[0].startswith("local:") and not build:
            build = "xllamacpp"
        return " ".join(filter(None, [tier, build, f"prompt:{self.prompt or 'not recorded'}"]))


def of_record(record: Mapping[str, Any], metric: str) -> JudgeIdentity:
    """The judge identity a stored judged record names for ``metric``: its model identity
    (``judge_identity`` or ``judge_model_identity``) and its prompt fingerprint
    (``judge_prompts[metric]`` or ``judge_prompt``); "" where the record has none."""
    model = record.get("judge_identity") or record.get("judge_model_identity") or ""
    prompts = record.get("judge_prompts")
    prompt = prompts.get(metric) if isinstance(prompts, Mapping) else record.get("judge_prompt")
    return JudgeIdentity(str(model) if isinstance(model, str) else "", str(prompt or ""))
