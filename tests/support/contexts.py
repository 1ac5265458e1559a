"""Whether evidence fits a context budget (the methods' tests of what they hand the reader)."""

from __future__ import annotations

from typing import Any


def fits_budget(items: list[Any], budget: int) -> bool:
    """Whether rendering ``items`` as a ``Context`` drops nothing under ``budget`` tokens."""
    from ace_lab.evidence import Context

    _, dropped = Context(items).fit(budget)
    return not dropped
