"""Property: every JSON stage survives malformed model output (see malformed_outputs.py)."""

from __future__ import annotations

import pytest

from tests.reliability.malformed_outputs import FAST_EXAMPLES, FULL_EXAMPLES, PARSERS, row
from tests.reliability.scale import scale

pytestmark = pytest.mark.reliability


@pytest.mark.parametrize("parser", PARSERS, ids=[p.name for p in PARSERS])
def test_parser_holds_under_malformed_output(parser, tmp_path):
    examples = scale(FULL_EXAMPLES, FAST_EXAMPLES)
    result = row(parser, examples, tmp_path)
    assert result["attempts"] >= examples, result
    assert result["failed"] == 0, result["note"]
