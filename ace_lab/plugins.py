"""The method packages this installation registers: the one list a new method package joins.

Each entry is the import path of a package that holds ``plugin.py`` (its ``PLUGIN``, a
:class:`ace_lab.methods.plugin.MethodPlugin`: names, builder, evidence source, report, what-if
controls) and ``steps.py`` (its typed step payloads). The registry, composition, the what-if
panel, ``ace-lab liveness`` and ``ace-lab docs`` iterate over the plugins; none names a method.
The list is plain strings and this module imports nothing, so the lowest layer
(:mod:`ace_lab.steps`, reading payloads back from records) can find the payload modules without
importing a method package. :func:`register` adds a package at run time (a plugin kept outside
``ace_lab``, or a test's example plugin). Table order is list order (after the baselines).
"""

from __future__ import annotations

#: Import paths of the registered method packages, in table order.
METHOD_PACKAGES: list[str] = ["ace_lab.ace", "ace_lab.mosaic", "ace_lab.arc", "ace_lab.chooser"]


def register(package: str) -> None:
    """Register the method package ``package`` (an import path); registering twice is a no-op."""
    if package not in METHOD_PACKAGES:
        METHOD_PACKAGES.append(package)


def unregister(package: str) -> None:
    """Remove ``package`` from the registered method packages (a test's example plugin)."""
    if package in METHOD_PACKAGES:
        METHOD_PACKAGES.remove(package)
