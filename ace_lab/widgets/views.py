"""One step as HTML for the stepper, dispatched on its payload's type.

A method's report package defines ``STEP_VIEWS``: payload type → a function of the ``Step``
giving an HTML fragment (ACE's gap plan, ArcRAG's Cypher attempts, MOSAIC's scored paths).
:func:`step_views` finds a method's views through the registry (its ``MethodSpec.report``, and
for a composition its source's too, so MOSAIC's or ArcRAG's steps inside ``mosaic>ace-full``
keep their views);
:func:`step_html` shows a step with the view of its payload's type (or of the nearest base
class that has one), under the payload's one line, its repairs and notes. A step without a view
still shows its line. A report's ``STEP_GROUPS`` (payload type → the step's group, e.g.
``pass 2 · subplan 1`` or ``depth 3``) lets the stepper step through one pass or one depth.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape
from types import ModuleType

from ace_lab.evidence import Step
from ace_lab.registry import MethodName, parse, report
from ace_lab.steps import StepPayload

#: An HTML fragment for one step of a given payload type (a report's ``STEP_VIEWS`` value).
StepView = Callable[[Step], str]
Views = Mapping[type[StepPayload], StepView]
#: The group (a pass, a subplan, a depth) of a step's payload (a report's ``STEP_GROUPS`` value).
StepGroup = Callable[[StepPayload], str]
Groups = Mapping[type[StepPayload], StepGroup]


def _reports(method: str) -> list[ModuleType]:
    """The report packages whose views show ``method``'s steps: a composition's source's
    (``mosaic`` in ``mosaic>ace-full``: its own steps and its branch explorations), then the
    method's own; none for a baseline or a name the registry does not know."""
    names = [method]
    try:
        parts = parse(method)
    except KeyError:
        return []
    if parts.policy:
        names.insert(0, str(MethodName(parts.head, parts.variant, parts.family)))
    found = []
    for name in names:
        try:
            module = report(name)
        except KeyError:
            continue
        if module is not None:
            found.append(module)
    return found


def step_views(method: str) -> dict[type[StepPayload], StepView]:
    """The ``STEP_VIEWS`` of ``method``'s report (:func:`ace_lab.registry.report`) and, for a
    composition, of its source's; empty for a method without a report (a baseline), a name the
    registry does not know (a hand-built answer) or reports without views."""
    views: dict[type[StepPayload], StepView] = {}
    for module in _reports(method):
        views |= dict(getattr(module, "STEP_VIEWS", {}) or {})
    return views


def step_groups(method: str) -> dict[type[StepPayload], StepGroup]:
    """The ``STEP_GROUPS`` of ``method``'s report (ArcRAG: per pass and subplan; MOSAIC: per
    depth) and, for a composition, of its source's; empty where no report defines any."""
    groups: dict[type[StepPayload], StepGroup] = {}
    for module in _reports(method):
        groups |= dict(getattr(module, "STEP_GROUPS", {}) or {})
    return groups


def group_of(payload: StepPayload | None, groups: Groups | None) -> str:
    """The group of a step with ``payload`` (its type's, else its nearest base's); ""."""
    if payload is None or not groups:
        return ""
    group = next((groups[c] for c in type(payload).__mro__ if c in groups), None)
    return group(payload) if group is not None else ""


def view_for(payload: StepPayload | None, views: Views | None) -> StepView | None:
    """The view of ``payload``'s type, else of its nearest base class with one; None if none."""
    if payload is None or not views:
        return None
    return next((views[c] for c in type(payload).__mro__ if c in views), None)


def step_html(step: Step, views: Views | None = None, *, heading: bool = True) -> str:
    """``step`` as an HTML fragment: its name and payload line (``heading``), its repairs and
    notes, then the view of its payload type. Every text from the trace is escaped; a view
    escapes what it shows itself."""
    parts = []
    if heading:
        line = step.payload.line() if step.payload is not None else step.kind
        parts.append(f"<div><b>{escape(step.name)}</b> · {escape(line)}</div>")
    extra = [f"repair {r.line()}" for r in step.repairs] + list(step.notes)
    if extra:
        items = "".join(f"<li>{escape(x)}</li>" for x in extra)
        parts.append(f"<ul>{items}</ul>")
    view = view_for(step.payload, views)
    if view is not None:
        parts.append(view(step))
    return "\n".join(parts)
