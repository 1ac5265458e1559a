"""The toy method as a plugin: its names, resolver, display name, report and one control."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ace_lab.bounded import Bounded, bounded
from ace_lab.methods.names import MethodName
from ace_lab.methods.plugin import Knob, Lookup, MethodPlugin, WhatIfControls
from ace_lab.methods.spec import MethodSpec
from tests.support.toy_method.method import ToyPickMethod

HEAD = "toy-pick"
REPORT = "tests.support.toy_method.report"


@dataclass(frozen=True)
class ToyConfig(Bounded):
    k: int = bounded(2, lo=1, hi=10, help="passages picked")


def resolve(parts: MethodName, lookup: Lookup) -> MethodSpec:
    match = re.fullmatch(r"k([1-9][0-9]*)", parts.variant) if parts.variant else None
    if parts.policy or (parts.variant and match is None):
        raise KeyError(f"{str(parts)!r}: the toy method's names are toy-pick[:k<N>]")
    family = parts.family or "hierarchical"
    if family != "hierarchical":
        raise KeyError(f"unknown graph family {family!r} in {str(parts)!r}; use @hierarchical")
    config = ToyConfig(k=int(match[1]) if match else 2)
    name = str(parts)

    def factory(graph, llm):  # type: ignore[no-untyped-def]
        return ToyPickMethod(graph, llm, config.k, name=name)

    about = f"the top {config.k} passages of the passage index (example plugin)"
    return MethodSpec(
        name, family, factory, False, about, (config,), "tests.support.toy_method.report"
    )


def _name(values: Mapping[str, Any]) -> str:
    return f"{HEAD}:k{values['k']}" if values["k"] != 2 else HEAD


def _values(parts: MethodName) -> dict[str, Any]:
    return {"k": int(parts.variant[1:]) if parts.variant else 2}


PLUGIN = MethodPlugin(
    package="tests.support.toy_method",
    title="Toy",
    owns=lambda head: head == HEAD,
    resolve=resolve,
    registered=(HEAD,),
    variants=(("toy-pick:k<N>", "the toy method at N passages (toy-pick:k3)"),),
    examples=("toy-pick:k3",),
    display_names={HEAD: "Toy pick"},
    report=REPORT,
    what_if=WhatIfControls(
        knobs=(Knob("k", "slider", "passages", 2, low=1, high=10),),
        name_of=_name,
        values_of=_values,
    ),
)
