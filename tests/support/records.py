"""Synthetic results records and frames with known answers, for the tables and reports."""

from __future__ import annotations

from typing import Any

#: Question ids and Adaptive-ACE's router labels of :func:`synthetic_results`.
RESULT_IDS = [f"q{i}" for i in range(6)]
RESULT_TOPOLOGIES = ["POINT", "POINT", "CONTRAST", "CHAIN", "OVERVIEW", "POINT"]


def result_record(method: str, i: int, **fields: Any) -> dict[str, Any]:
    """One results record (``ace_lab.eval.studies.record`` columns) for question ``i``."""
    base = {
        "id": RESULT_IDS[i], "position": i, "method": method, "em": 0.0, "f1": 0.0,
        "context_has_answer": True, "base_has_answer": None, "topology": None,
        "retrieval_calls": 1, "llm_calls": 1, "input_tokens": 100, "output_tokens": 10,
        "wall_s": 1.0, "llm_s": 0.5, "cache_hits": 0, "steps": [],
    }  # fmt: skip
    return base | fields


def synthetic_results() -> Any:
    """A results frame with known answers: hirag, ace-full, ace-adaptive (routed by
    ``RESULT_TOPOLOGIES``) and one fixed-policy run per topology, all scoring alike."""
    import pandas as pd

    from ace_lab.ace.report.tables import topology_methods

    rows = []
    em_hirag = [1, 0, 0, 1, 0, 0]
    em_full = [1, 1, 0, 1, 1, 0]
    em_adaptive = [1, 1, 1, 1, 0, 0]
    base_has = [False, False, True, True, None, True]
    final_has = [True, False, True, True, None, True]
    for i in range(6):
        rows.append(result_record("hirag", i, em=em_hirag[i], f1=em_hirag[i]))
        rows.append(
            result_record(
                "ace-full",
                i,
                em=em_full[i],
                f1=em_full[i],
                retrieval_calls=3,
                llm_calls=2,
                input_tokens=250,
                output_tokens=30,
                wall_s=3.0,
                base_has_answer=base_has[i],
                context_has_answer=final_has[i],
            )
        )
        rows.append(
            result_record(
                "ace-adaptive",
                i,
                em=em_adaptive[i],
                f1=em_adaptive[i],
                topology=RESULT_TOPOLOGIES[i],
            )
        )
        for j, method in enumerate(topology_methods([]).values()):
            # Every policy scores a question the same, so shuffling policies changes nothing.
            rows.append(result_record(method, i, em=0.0, f1=(i + 1) / 10 + 0 * j))
    return pd.DataFrame(rows)
