"""MOSAIC's names: an analyzer's per-query policy or one fixed policy, on either graph.

``mosaic`` (the paper's analyzer: its reply is the bounded policy itself,
:mod:`ace_lab.mosaic.controls`), ``mosaic:signals`` (six signals mapped to controls with project
floors, :mod:`ace_lab.mosaic.analyzer`), ``mosaic-fixed:<narrow|medium|wide>``,
``mosaic-budget-matched`` (default budget × depth
:data:`~ace_lab.mosaic.policy.BUDGET_MATCHED_DEFAULT`) or ``mosaic-budget-matched:<b>x<d>``,
each optionally ``@hierarchical`` (default) or ``@openie``. ``mosaic>narrow`` and
``mosaic>12x3`` are other spellings of ``mosaic-fixed:narrow`` and
``mosaic-budget-matched:12x3``.

``mosaic:controls`` is another spelling of ``mosaic`` (it resolves to the name ``mosaic``, so the
same configuration hash and the same records). Records written while ``mosaic`` named the
signals mapping and ``mosaic:controls`` the paper's analyzer were renamed to the names they have
now by ``ace-lab rename`` (:mod:`ace_lab.eval.studies.rename`), which checks that each renamed
record's configuration hash is the new name's configuration under its old name.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ace_lab.bounded import Bounded
from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.methods.names import MethodName, parse
from ace_lab.methods.spec import MethodSpec
from ace_lab.mosaic.controls import PAPER_ANALYZER, ControlsAnalyzer
from ace_lab.mosaic.method import (
    MOSAIC_FAMILIES,
    MOSAIC_HEADS,
    MOSAIC_METHODS,
    Mosaic,
    MosaicConfig,
)
from ace_lab.mosaic.policy import (
    BUDGET_MATCHED_DEFAULT,
    FIXED_POLICIES,
    ExplorationPolicy,
    budget_matched,
)
from ace_lab.retrieval import RetrievalGraph

#: MOSAIC's report package (tables, figures, stepper views, liveness, claims).
REPORT = "ace_lab.mosaic.report"
_BUDGET = re.compile(r"(\d+)x(\d+)")
#: The analyzer of each ``mosaic:<variant>`` ("": the paper's; "signals": the six-signal mapping).
ANALYZER_VARIANTS: dict[str, ControlsAnalyzer | None] = {"": PAPER_ANALYZER, "signals": None}
_USAGE = (
    "use mosaic, mosaic:controls, mosaic:signals, mosaic-fixed:<narrow|medium|wide>, "
    "mosaic-budget-matched[:<budget>x<depth>] "
    "or mosaic><narrow|medium|wide|<budget>x<depth>>, optionally @openie"
)


def is_mosaic(head: str) -> bool:
    """Whether MOSAIC owns the name head ``head``."""
    return head in MOSAIC_HEADS


def canonical(parts: MethodName) -> MethodName:
    """``mosaic>width``, ``mosaic>BxD`` and ``mosaic:controls`` written the canonical way;
    others unchanged."""
    if parts.head == "mosaic" and parts.variant == "controls" and not parts.policy:
        return MethodName("mosaic", "", parts.family)
    if not parts.policy:
        return parts
    fixed, matched = parts.policy in FIXED_POLICIES, _BUDGET.fullmatch(parts.policy)
    if parts.head != "mosaic" or parts.variant or not (fixed or matched):
        raise KeyError(f"unknown MOSAIC method {str(parts)!r}; {_USAGE}")
    head = "mosaic-fixed" if fixed else "mosaic-budget-matched"
    return MethodName(head, parts.policy, parts.family)


def _policy(parts: MethodName) -> tuple[ExplorationPolicy | None, str]:
    """The fixed policy of a MOSAIC name (None: the analyzer's) and its description."""
    head, arg, family = parts.head, parts.variant, parts.family or "hierarchical"
    if head == "mosaic" and not arg:
        return None, f"MOSAIC: the analyzer's reply is the per-query policy ({family})"
    if head == "mosaic" and arg == "signals":
        return None, f"MOSAIC: six analyzer signals mapped to the policy ({family})"
    if head == "mosaic-fixed" and arg in FIXED_POLICIES:
        policy = FIXED_POLICIES[arg]
        return policy, f"MOSAIC pipeline, Fixed {arg.title()} ({policy.label})"
    if head == "mosaic-budget-matched":
        match = _BUDGET.fullmatch(arg) if arg else None
        if arg and match is None:
            raise KeyError(f"{str(parts)!r}: use mosaic-budget-matched:<budget>x<depth>, e.g. 12x3")
        budget, depth = (int(match[1]), int(match[2])) if match else BUDGET_MATCHED_DEFAULT
        policy = budget_matched(budget, depth)
        return policy, f"MOSAIC pipeline, fixed policy matched to budget/depth ({policy.label})"
    raise KeyError(f"unknown MOSAIC method {str(parts)!r}; {_USAGE}")


def resolve(parts: MethodName, budget: tuple[str, int] | None = None) -> MethodSpec:
    """The spec of a MOSAIC name: its fixed policy (or the analyzer) and graph family;
    ``budget`` is (the name with its ``b<N>`` token, N), which caps the final context."""
    parts = canonical(parts)
    name, family = str(parts), parts.family or "hierarchical"
    if family not in MOSAIC_FAMILIES:
        raise KeyError(f"unknown graph family {family!r} in {name!r}; use {MOSAIC_FAMILIES}")
    policy, about = _policy(parts)
    config = MosaicConfig()
    if budget is not None:
        name, config = budget[0], replace(config, budget_tokens=budget[1])
        about = f"{about} (context budget {budget[1]} tokens)"
    analyzer = ANALYZER_VARIANTS.get(parts.variant) if parts.head == "mosaic" else None

    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        return Mosaic(graph, llm, policy=policy, config=config, name=name, analyzer=analyzer)

    def rebudget(budgeted: str, tokens: int) -> MethodSpec:
        return resolve(parts, budget=(budgeted, tokens))

    configs: tuple[Bounded, ...] = (config, policy or ExplorationPolicy())
    configs += (analyzer,) if analyzer else ()
    return MethodSpec(name, family, factory, False, about, configs, REPORT, rebudget)


#: The registered MOSAIC methods (``ace-lab methods`` lists them in this order).
MOSAIC_SPECS: tuple[MethodSpec, ...] = tuple(resolve(parse(name)) for name in MOSAIC_METHODS)
