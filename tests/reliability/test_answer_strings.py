"""Property: answer extraction is fast, total and right on hostile replies (answer_strings.py)."""

from __future__ import annotations

import pytest

from tests.reliability.answer_strings import measure
from tests.reliability.scale import full_scale

pytestmark = pytest.mark.reliability


def test_answer_extraction_holds_on_hostile_replies():
    (result,) = measure(full_scale())
    assert result["attempts"] >= (110 if full_scale() else 40), result
    assert result["failed"] == 0, result["note"]
