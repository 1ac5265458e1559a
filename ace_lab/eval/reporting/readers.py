"""Two readers on the same contexts: a method's records in a study against the same records
re-answered by another reader (``ace-lab reread``, ``results/<study>-reread-<reader>/``).

Both rows score the questions both hold, so the contexts are identical and only the answer call
differs: its prompt and reply format, its format compliance, its EM and F1 and what it cost in
tokens. The source record's ``input_tokens`` and ``output_tokens`` are its answer call's only
when that call was the record's one model call (NaiveRAG); a reread record keeps its source's
cost columns and adds the reading call's own (``reader_input_tokens``,
``reader_output_tokens``). Seconds are left out: the two calls ran in different runs, under
different load, so their times do not compare."""

from __future__ import annotations

import pandas as pd

from ace_lab.eval.reporting.selection import common_ids, method_rows
from ace_lab.eval.reporting.tables import main_table, paired_tests

#: The columns of :func:`reader_comparison`, in order.
READER_VIEW = [
    "reader",
    "n",
    "format_compliance",
    "EM [95% CI]",
    "F1 [95% CI]",
    "F1 vs first reader (paired)",
    "answer input tokens",
    "answer output tokens",
]


def _answer_call_tokens(rows: pd.DataFrame, *, reread: bool) -> tuple[float, float]:
    """Mean input and output tokens of the answer call alone (see the module docstring)."""
    if reread:
        return float(rows["reader_input_tokens"].mean()), float(rows["reader_output_tokens"].mean())
    calls = rows["model_calls"] if "model_calls" in rows else rows.get("llm_calls")
    if calls is None or not pd.to_numeric(calls, errors="coerce").eq(1).all():
        raise ValueError(
            "the source records made model calls besides the answer, so their tokens are not "
            "the answer call's; compare a method whose one model call is the answer (naive)"
        )
    return float(rows["input_tokens"].mean()), float(rows["output_tokens"].mean())


def reader_comparison(source: pd.DataFrame, reread: pd.DataFrame, method: str) -> pd.DataFrame:
    """One row per reader of ``method``'s contexts: the source study's reader first, then the
    rereading one, on the questions both answered (a ValueError when they share none)."""
    first, second = method_rows(source, method), method_rows(reread, method)
    ids = common_ids([first.set_index("id"), second.set_index("id")])
    if not ids:
        raise ValueError(f"{method}: the study and its reread share no question")
    runs = []
    for label, rows in (("first", first), ("second", second)):
        kept = rows[rows["id"].isin(ids)].assign(method=f"{method} ({label})")
        runs.append(kept)
    both = pd.concat(runs, ignore_index=True)
    table = main_table(both).set_index("method")
    diff = paired_tests(both, f"{method} (first)", [f"{method} (second)"]).iloc[0]
    rows = []
    for label, kept in zip(("first", "second"), runs, strict=True):
        row = table.loc[f"{method} ({label})"]
        tokens_in, tokens_out = _answer_call_tokens(kept, reread=label == "second")
        rows.append(
            {
                "reader": row["reader"],
                "n": int(row["n"]),
                "format_compliance": row["format_compliance"],
                "EM [95% CI]": row["EM [95% CI]"],
                "F1 [95% CI]": row["F1 [95% CI]"],
                "F1 vs first reader (paired)": (
                    ""
                    if label == "first"
                    else f"{diff['diff [95% CI]']}, p = {diff['p_permutation']:.2g}"
                ),
                "answer input tokens": tokens_in,
                "answer output tokens": tokens_out,
            }
        )
    return pd.DataFrame(rows, columns=READER_VIEW)
