"""Every registered method plugin keeps the contract (``ace_lab.methods.plugin``), and an example
plugin written only against it (``tests/support/toy_method``) runs everywhere a method runs.

Conformance, per plugin: it is the one its package declares; its registered names resolve to
themselves and are owned by it; every payload type of its ``steps`` module round-trips through a
record and has a stepper view in its report (its own type's or a base's); each of its method
heads has a display name; its what-if controls stand for names that resolve and read back; it
either serves evidence to a composition or the registry says it cannot.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from collections.abc import Iterator
from typing import Any

import pytest

from ace_lab import plugins as installed
from ace_lab.llm import LLM
from ace_lab.methods.plugin import MethodPlugin
from ace_lab.registry import head_of, make_method, method_table, parse, report, spec
from ace_lab.registry.compose import source_heads
from ace_lab.registry.plugins import plugin_of, plugins
from ace_lab.steps import AnswerDetails, StepPayload, from_record, to_record
from ace_lab.viz.names import display_name, method_names
from ace_lab.widgets.views import step_html, step_views
from tests.support.scripted import ScriptedClient

EXAMPLE = "tests.support.toy_method"
PLUGINS = plugins()


def _id(plugin: MethodPlugin) -> str:
    return plugin.package


def _value(annotation: str, module: Any) -> Any:
    """A value of a payload field's (string) annotation."""
    text = annotation.replace(" ", "")
    if text.endswith("|None") or text.startswith("None|"):
        return None
    if text.startswith(("tuple", "list")):
        return ()
    if text.startswith(("dict", "Mapping")):
        return {}
    simple = {"str": "x", "int": 1, "float": 0.5, "bool": True, "Any": "x"}
    if text in simple:
        return simple[text]
    nested = getattr(module, text, None)
    if inspect.isclass(nested) and issubclass(nested, StepPayload):
        return _payload(nested)
    raise AssertionError(f"no test value for a field annotated {annotation!r}")


def _payload(cls: type[StepPayload]) -> StepPayload:
    module = importlib.import_module(cls.__module__)
    values = {
        f.name: _value(str(f.type), module)
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    return cls(**values)


def _words(annotation: object) -> list[str]:
    return re.findall(r"\w+", str(annotation))


def _payload_types(plugin: MethodPlugin) -> list[type[StepPayload]]:
    module = importlib.import_module(f"{plugin.package}.steps")
    return [
        cls
        for cls in vars(module).values()
        if inspect.isclass(cls)
        and issubclass(cls, StepPayload)
        and cls.__module__ == module.__name__
    ]


@pytest.mark.parametrize("plugin", PLUGINS, ids=_id)
def test_the_plugin_is_its_package_s_and_owns_its_names(plugin):
    assert importlib.import_module(f"{plugin.package}.plugin").PLUGIN is plugin
    for name in plugin.registered:
        assert spec(name).name == name
        assert plugin_of(name) is plugin
    for name in plugin.examples:
        assert spec(name).name, name


@pytest.mark.parametrize("plugin", PLUGINS, ids=_id)
def test_every_payload_type_round_trips_and_has_a_view(plugin):
    types = _payload_types(plugin)
    if not types:
        pytest.skip(f"{plugin.package} records no payload of its own")
    views = importlib.import_module(plugin.report).STEP_VIEWS if plugin.report else {}
    for cls in types:
        payload = _payload(cls)
        assert from_record(to_record(payload)) == payload, cls.__name__
        assert payload.line(), cls.__name__
    if plugin.report:  # a payload recorded at a step (not one nested in another, not details)
        nested = {word for c in types for f in dataclasses.fields(c) for word in _words(f.type)}
        stepped = [
            c for c in types if c.__name__ not in nested and not issubclass(c, AnswerDetails)
        ]
        missing = [c.__name__ for c in stepped if not any(b in views for b in c.__mro__[:-1])]
        assert not missing, f"{plugin.report}.STEP_VIEWS has no view for {missing}"


@pytest.mark.parametrize("plugin", PLUGINS, ids=_id)
def test_every_head_has_a_display_name(plugin):
    heads = {head_of(name) for name in plugin.registered}
    assert heads <= set(plugin.display_names), heads - set(plugin.display_names)
    assert set(plugin.display_names) <= set(method_names())


@pytest.mark.parametrize("plugin", [p for p in PLUGINS if p.what_if is not None], ids=_id)
def test_what_if_controls_stand_for_names_that_read_back(plugin):
    controls = plugin.what_if
    name = controls.name_of(controls.defaults())
    assert spec(name).name == name and plugin.owns(parse(name).head)
    assert controls.name_of({**controls.defaults(), **controls.values_of(parse(name))}) == name
    assert {k.key for k in controls.knobs} >= set(controls.values_of(parse(name)))


@pytest.mark.parametrize("plugin", PLUGINS, ids=_id)
def test_the_plugin_composes_or_the_registry_says_it_cannot(plugin):
    composers = [p for p in PLUGINS if p.compose is not None]
    target = next(n for p in composers for n in p.registered if p.composes(n))
    for name in plugin.registered[:1]:
        composed = f"{name}>{target}"
        if head_of(name) in source_heads():
            assert spec(composed).name == composed
        else:
            with pytest.raises(KeyError, match="cannot be the source"):
                spec(composed)


@pytest.fixture
def example() -> Iterator[MethodPlugin]:
    installed.register(EXAMPLE)
    try:
        yield importlib.import_module(f"{EXAMPLE}.plugin").PLUGIN
    finally:
        installed.unregister(EXAMPLE)


def test_an_example_plugin_runs_where_every_method_runs(example, settings, toy_graph):
    """Its own folder and one registration: resolved, listed, built, answered, its payload
    read back from a record, shown by the stepper with its view, named in figures, and given
    a what-if tab — with no other file naming it."""
    from ace_lab.widgets.what_if_panel import Controls

    assert plugin_of("toy-pick:k3") is example
    assert spec("toy-pick:k3").name == "toy-pick:k3"
    assert "toy-pick" in set(method_table()["method"])
    assert spec("toy-pick").family == "hierarchical"
    llm = LLM(settings, client=ScriptedClient(lambda kwargs: "Answer: museum"))
    answer = make_method("toy-pick:k3", toy_graph, llm).answer("Where is the tidal lantern?")
    pick = answer.trace.steps[0].payload
    assert len(pick.picked) == 3 and answer.text
    assert from_record(to_record(pick)) == pick
    assert report("toy-pick").__name__ == example.report
    html = step_html(answer.trace.steps[0], step_views("toy-pick"))
    assert "toy-pick" in html and pick.picked[0] in html
    assert display_name("toy-pick:k3") == "Toy pick (k3)"
    pytest.importorskip("ipywidgets")
    controls = Controls()
    controls.select("toy-pick:k3")
    assert controls.name() == "toy-pick:k3"
    assert controls.tabs.get_title(len(controls.plugins) - 1) == "Toy"
    with pytest.raises(KeyError, match="cannot be the source"):
        spec("toy-pick>ace-full")


def test_an_unregistered_plugin_is_unknown(example):
    installed.unregister(EXAMPLE)
    with pytest.raises(KeyError, match="unknown method"):
        spec("toy-pick")
