"""Where the tests find the checkout they belong to (not where ``ace_lab`` is imported from)."""

from __future__ import annotations

from pathlib import Path

#: The repository root.
REPO = Path(__file__).resolve().parents[2]
#: Data files some tests read: upstream samples (``fetch/``) and committed failed answers.
TEST_DATA = REPO / "tests" / "data"
