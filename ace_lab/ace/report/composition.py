"""Composed methods against their parts: ``source>ace-…`` paired with the source alone and with
the ACE method alone, on the questions all three answered (from the records).

One row per (composition, part): questions paired, mean F1 and EM of each, the difference, its
exact two-sided sign-flip p-value (:func:`ace_lab.eval.statistics.sign_flip_p`), and the mean
input tokens per question of each (the cold-cache cost the records hold), so a gain is read
with what it costs.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ace_lab.eval.statistics import sign_flip_p
from ace_lab.eval.studies.jsonl import read_jsonl
from ace_lab.registry import parse

COLUMNS = (
    "composition", "part", "role", "n", "F1 composed", "F1 part", "ΔF1", "p(F1)",
    "EM composed", "EM part", "ΔEM", "p(EM)", "input tok composed", "input tok part",
)  # fmt: skip


def read_records(folders: Iterable[Path]) -> pd.DataFrame:
    """Every record of every ``*.jsonl`` results file in ``folders`` (errors files excluded)."""
    rows = [
        r
        for folder in folders
        for path in sorted(Path(folder).glob("*.jsonl"))
        if not path.name.endswith(".errors.jsonl")
        for r in read_jsonl(path)
    ]
    return pd.DataFrame(rows)


def parts_of(name: str) -> tuple[str, str]:
    """(source, ACE method) of composition ``name``: ``mosaic>ace-full`` → (mosaic, ace-full)."""
    parsed = parse(name)
    source = name.split(">", 1)[0]
    return source, parsed.policy


def composition_table(records: pd.DataFrame, compositions: Iterable[str]) -> pd.DataFrame:
    """Each composition against its source and its ACE method (see the module docstring)."""
    by_method = {m: frame.set_index("id") for m, frame in records.groupby("method")}
    rows = []
    for name in compositions:
        if name not in by_method:
            continue
        composed = by_method[name]
        source, policy = parts_of(name)
        for part, role in ((source, "source"), (policy, "policy")):
            if part not in by_method:
                continue
            alone = by_method[part]
            ids = composed.index.intersection(alone.index)
            a, b = composed.loc[ids], alone.loc[ids]
            f1, em = a["f1"] - b["f1"], a["em"] - b["em"]
            rows.append(
                {
                    "composition": name,
                    "part": part,
                    "role": role,
                    "n": len(ids),
                    "F1 composed": a["f1"].mean(),
                    "F1 part": b["f1"].mean(),
                    "ΔF1": f1.mean(),
                    "p(F1)": sign_flip_p(f1.to_numpy()),
                    "EM composed": a["em"].mean(),
                    "EM part": b["em"].mean(),
                    "ΔEM": em.mean(),
                    "p(EM)": sign_flip_p(em.to_numpy()),
                    "input tok composed": a["input_tokens"].mean(),
                    "input tok part": b["input_tokens"].mean(),
                }
            )
    return pd.DataFrame(rows, columns=list(COLUMNS)).round(3)
