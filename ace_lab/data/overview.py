"""A summary of the benchmark sets on this machine, for the setup notebook and ``ace-lab data``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ace_lab.data.loaders import load_dataset
from ace_lab.data.records import Dataset
from ace_lab.data.registry import list_datasets
from ace_lab.tokens import count_tokens


def question_type_counts(dataset: Dataset) -> pd.Series:
    """Questions per type, most common first (untyped questions count as ``"(none)"``)."""
    counts = Counter(q.type or "(none)" for q in dataset.questions)
    return pd.Series(dict(counts.most_common()), name=dataset.name, dtype="int64")


def passage_lengths(dataset: Dataset) -> np.ndarray:
    """Word-piece token count (ace_lab.tokens) of every passage, in corpus order."""
    return np.array([count_tokens(p.text) for p in dataset.passages], dtype=np.int64)


def dataset_overview(data_dir: Path | None = None) -> pd.DataFrame:
    """One row per available set: sizes, gold coverage and question types.

    ``words`` is a whitespace word count, not word pieces: it keeps the overview to about a
    second over all sets (word pieces run ~1.2-1.3x words on English prose).
    """
    rows = []
    for name in list_datasets(data_dir):
        ds = load_dataset(name, data_dir)
        types = question_type_counts(ds)
        rows.append(
            {
                "name": name,
                "setting": ds.setting,
                "questions": len(ds.questions),
                "passages": len(ds.passages),
                "chars": sum(len(p.text) for p in ds.passages),
                "words": sum(len(p.text.split()) for p in ds.passages),
                "has_answers": any(q.answer is not None for q in ds.questions),
                "has_supports": any(q.supporting_ids for q in ds.questions),
                "question_types": ", ".join(f"{t} {c}" for t, c in types.items()),
            }
        )
    return pd.DataFrame(rows)
