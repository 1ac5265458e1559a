"""The registered method plugins, loaded from :data:`ace_lab.plugins.METHOD_PACKAGES`.

Each package's ``plugin.py`` holds its ``PLUGIN`` (:class:`~ace_lab.methods.plugin.MethodPlugin`).
Everything that treats methods alike — name resolution, composition, ``ace-lab methods``, the
what-if panel's tabs, display names, ``ace-lab liveness`` and ``ace-lab docs`` — iterates over
:func:`plugins`; no module outside a method's package names it.
"""

from __future__ import annotations

import importlib
from functools import cache

from ace_lab import plugins as installed
from ace_lab.methods.names import head_of
from ace_lab.methods.plugin import MethodPlugin


@cache
def _load(package: str) -> MethodPlugin:
    plugin = importlib.import_module(f"{package}.plugin").PLUGIN
    if not isinstance(plugin, MethodPlugin) or plugin.package != package:
        raise TypeError(f"{package}.plugin.PLUGIN must be a MethodPlugin of {package!r}")
    return plugin


def plugins() -> tuple[MethodPlugin, ...]:
    """Every registered method plugin, in table order."""
    return tuple(_load(package) for package in installed.METHOD_PACKAGES)


def plugin_of(name: str) -> MethodPlugin | None:
    """The plugin that owns method ``name``'s head (None: a baseline or an unknown head)."""
    head = head_of(name)
    return next((p for p in plugins() if p.owns(head)), None)


def reports() -> dict[str, str]:
    """Each plugin's title → its report package, in title order (plugins without a report
    left out)."""
    return {p.title: p.report for p in sorted(plugins(), key=lambda p: p.title) if p.report}


def display_names() -> dict[str, str]:
    """Every plugin's method heads → display names."""
    return {head: text for p in plugins() for head, text in p.display_names.items()}
