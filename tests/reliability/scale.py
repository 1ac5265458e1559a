"""How many attempts a reliability property makes: the full counts for ``make reliability``
(``ACE_LAB_RELIABILITY=full``), a fast version everywhere else (CI)."""

from __future__ import annotations

import os


def full_scale() -> bool:
    return os.environ.get("ACE_LAB_RELIABILITY", "").lower() == "full"


def scale(full: int, fast: int) -> int:
    """``full`` attempts under ``make reliability``, ``fast`` otherwise."""
    return full if full_scale() else fast
