"""A summary of the benchmark sets on this machine (full, or only their committed slices), for the
setup notebook and ``ace-lab data``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from ace_lab.data.access import FULL, SLICES, full_set_folder, load_available
from ace_lab.data.committed import committed_slices
from ace_lab.data.loaders import load_dataset
from ace_lab.data.records import CORPUS, DataError, Dataset
from ace_lab.data.registry import DATASETS, get_spec
from ace_lab.data.userdir import registered_corpora
from ace_lab.tokens import count_tokens


def question_type_counts(dataset: Dataset) -> pd.Series:
    """Questions per type, most common first (untyped questions count as ``"(none)"``)."""
    counts = Counter(q.type or "(none)" for q in dataset.questions)
    return pd.Series(dict(counts.most_common()), name=dataset.name, dtype="int64")


def passage_lengths(dataset: Dataset) -> np.ndarray:
    """Word-piece token count (ace_lab.tokens) of every passage, in corpus order."""
    return np.array([count_tokens(p.text) for p in dataset.passages], dtype=np.int64)


def dataset_overview(data_dir: Path | None = None) -> pd.DataFrame:
    """One row per set on this machine, in registry order: sizes, gold coverage, question types.

    ``present`` says whether the full set is here (``"full set"``) or only its committed slices
    (``"committed slices"``, :mod:`ace_lab.data.committed`; the sizes are then those of the
    slices' questions and passages, and ``ace-lab data fetch NAME`` gets the full set);
    ``slices`` lists the committed slice ids. A set with neither has no row. ``words`` is a
    whitespace word count, not word pieces: it keeps the overview to about a second over all
    sets (word pieces run ~1.2-1.3x words on English prose). Registered user corpora
    (:mod:`ace_lab.data.corpora`) follow, by name, ``present`` ``"user corpus"``. A set whose
    files cannot be read has a row whose ``present`` says why (``"unreadable: ..."``).
    """
    rows = []
    corpora = [(name, get_spec(name)) for name in registered_corpora()]
    for name, spec in [*DATASETS.items(), *corpora]:
        folder = full_set_folder(name, data_dir)
        slices = committed_slices(name)
        if folder is not None and (folder / spec.question_files[0]).is_file():
            try:
                ds = load_dataset(name, data_dir)
            except DataError as err:  # one broken set is a row that says so, not a failure
                rows.append({"name": name, "present": f"unreadable: {err}"})
                continue
            present = "user corpus" if spec.setting == CORPUS else FULL
        elif folder is None and slices:
            ds, present = load_available(name, data_dir), SLICES
        else:
            continue
        types = question_type_counts(ds)
        rows.append(
            {
                "name": name,
                "present": present,
                "setting": ds.setting,
                "questions": len(ds.questions),
                "passages": len(ds.passages),
                "chars": sum(len(p.text) for p in ds.passages),
                "words": sum(len(p.text.split()) for p in ds.passages),
                "has_answers": any(q.answer is not None for q in ds.questions),
                "has_supports": any(q.supporting_ids for q in ds.questions),
                "question_types": ", ".join(f"{t} {c}" for t, c in types.items()),
                "slices": ", ".join(f"{d}-n{n}-s{s}" for d, n, s in slices),
            }
        )
    return pd.DataFrame(rows)
