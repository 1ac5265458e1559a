"""The paper's analyzer (``mosaic``): the model's reply IS the exploration policy.

Paper §5, "Policy space and validation": the analyzer starts from conservative defaults and
emits the bounded controls themselves; unsupported values are rejected, numeric fields clamped
and missing values reverted. One JSON-schema call from the question alone asks for every
control of :class:`~ace_lab.mosaic.policy.ExplorationPolicy` but ``patience`` (the paper fixes
it at 1); the reply goes through :meth:`ExplorationPolicy.clamp` as it is, with no mapping and
no project floors, so every clamp, default, unknown key and cross-field repair is an
``Adjustment`` in the ``policy`` step (:class:`~ace_lab.mosaic.steps.ExplorationChoice`).

The schema the server decodes against (:class:`ControlsReply`) types each control (integer,
boolean, string, list of strings) but states neither ranges nor the allowed strings: those are
in the prompt (``mosaic_controls``) and enforced by validation, so what the model wrote is
recorded before it is repaired. Parsing accepts any value per key (an endpoint without
schema-constrained decoding may write ``"wide"`` for a beam): only that control is repaired.
A reply that is not a JSON object after ``LLM.json``'s retries gives the default policy,
marked ``fallback``.

The earlier analyzer (six signals mapped to controls with floors, :mod:`ace_lab.mosaic.analyzer`)
stays as ``mosaic:signals``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, ValidationError, WithJsonSchema

from ace_lab.bounded import Bounded, bounded
from ace_lab.llm import LLM
from ace_lab.mosaic.analyzer import PolicyDecision, default_decision
from ace_lab.mosaic.policy import ExplorationPolicy
from ace_lab.prompts import load_prompt

CONTROLS_PROMPT = "mosaic_controls"
#: Controls the paper fixes rather than the analyzer (patience one).
FIXED_CONTROLS: dict[str, Any] = {"patience": 1}


@dataclass(frozen=True)
class ControlsAnalyzer(Bounded):
    """Settings of the paper's analyzer (absent from ``mosaic:signals`` configurations)."""

    max_tokens: int = bounded(
        256, lo=64, hi=1024, help="reply tokens of the analyzer call (13 controls; ours)"
    )


#: The analyzer ``mosaic`` runs (its default settings).
PAPER_ANALYZER = ControlsAnalyzer()


def _typed(schema: dict[str, Any]) -> Any:
    """A reply field: ``schema`` is what the server decodes against; any value is accepted
    when parsing, so a wrong one is repaired (and recorded) alone, not the whole reply."""
    return Annotated[Any, WithJsonSchema(schema)]


_INT, _BOOL, _STR = (
    _typed({"type": "integer"}),
    _typed({"type": "boolean"}),
    _typed({"type": "string"}),
)


class ControlsReply(BaseModel):
    """The controls as the model writes them; every key may be missing (then the default is
    used and recorded), and keys the policy does not have are recorded as unknown."""

    # extra keys are parsed (and recorded as unknown) but the decoding grammar allows none
    model_config = ConfigDict(extra="allow", json_schema_extra={"additionalProperties": False})

    seed_count: _INT = None
    per_target: _BOOL = None
    targets: _typed({"type": "array", "items": {"type": "string"}}) = None
    max_depth: _INT = None
    min_depth: _INT = None
    beam_width: _INT = None
    connectors: _BOOL = None
    stop_threshold: _STR = None
    evidence_budget: _INT = None
    preservation_floor: _INT = None
    cardinality: _STR = None
    anchored: _BOOL = None
    source_window: _INT = None


def reply_controls(reply: ControlsReply) -> dict[str, Any]:
    """What the model wrote (keys it left out are absent; extra keys kept)."""
    return reply.model_dump(exclude_unset=True)


def from_reply(reply: ControlsReply, *, attempts: int = 1) -> PolicyDecision:
    """The validated policy of one parsed reply, every change recorded."""
    written = reply_controls(reply)
    controls = {**FIXED_CONTROLS, **written}
    policy, changes = ExplorationPolicy.clamp(controls)
    return PolicyDecision(policy, written, controls, tuple(changes), False, attempts)


def decide_controls(raw: Any) -> PolicyDecision:
    """The validated policy for any parsed reply (never raises); what does not validate as
    :class:`ControlsReply` gives the default policy with ``fallback=True``."""
    try:
        reply = ControlsReply.model_validate(raw)
    except (ValidationError, TypeError, ValueError) as exc:
        return default_decision((f"invalid analyzer output: {str(exc)[:200]}",))
    return from_reply(reply)


def analyze_controls(
    llm: LLM, query: str, attempts: int = 2, config: ControlsAnalyzer | None = None
) -> PolicyDecision:
    """One analyzer call (retried up to ``attempts`` times on invalid JSON) → a decision."""
    result = llm.json(
        load_prompt(CONTROLS_PROMPT).messages(query=query),
        ControlsReply,
        tag="mosaic.analyzer",
        default=ControlsReply,
        attempts=attempts,
        temperature=0.0,
        max_tokens=(config or ControlsAnalyzer()).max_tokens,
    )
    if result.fallback:
        return default_decision(result.errors, result.attempts)
    return replace(from_reply(result.value, attempts=result.attempts), errors=result.errors)
