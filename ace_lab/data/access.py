"""Which copy of a set is here, and the one way to get a slice of it: :func:`load_slice`.

A benchmark set is on this machine in full (its folder in the benchmark data directory,
:func:`~ace_lab.data.registry.resolve_data_dir`), or only as its committed slices
(``data/slices/``, :mod:`ace_lab.data.committed`), or not at all. :func:`load_slice` gives a
committed slice from its file, full set or not, and every other slice from the full set
(``make_slice(load_dataset(name, data_dir), n, seed)``). The committed files are what the
development copy of each full set gives (the tests and ``write_slices --check`` compare them),
so where that copy is present either source gives the same slice; but a set fetched from
upstream (``ace-lab data fetch``) is the *complete* set, whose extra questions can enter a
hash-ordered slice, and the committed graphs and results are keyed by slice id: the file keeps
each committed id naming the questions they were made on. A full-set folder that is present but
broken is an error, never a silent fallback, when the full set is needed.

A smaller ``n`` than a committed slice's is served from it where slices nest: in the
``per_question`` and ``shared`` settings each question's passages depend on that question alone,
so the first ``n`` questions (selection order) and the union of their passages are exactly the
smaller slice; so do pooled views of HippoRAG's samples (every ``n`` has the whole corpus).
Document sets (GraphRAG-Bench's evidence and distractor chunks, UltraDomain's cheapest
documents) and GraphRAG-Bench's pooled view (questions stratified by type) choose for the slice
as a whole: only the committed ``n``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ace_lab.data.committed import committed_slices, read_slice_file, slice_path
from ace_lab.data.graphragbench import handles as is_graphragbench
from ace_lab.data.loaders import load_dataset
from ace_lab.data.records import CORPUS, PER_QUESTION, POOLED, SHARED, DataError, Dataset
from ace_lab.data.registry import DatasetSpec, dataset_dir, get_spec, pooled_base
from ace_lab.data.slices import Slice, make_slice

#: :func:`presence` values.
FULL, SLICES, ABSENT = "full set", "committed slices", "absent"


def full_set_folder(name: str, data_dir: Path | None = None) -> Path | None:
    """The folder of the full set ``name``, or None when it is absent: no benchmark data
    directory found, or no folder of the set in it. An explicit ``data_dir`` (or
    ``ACE_LAB_DATA``) that does not exist stays an error, so a typo is never read as absent."""
    spec = get_spec(name)
    try:
        folder = dataset_dir(spec, data_dir)
    except DataError:
        if data_dir is not None or os.environ.get("ACE_LAB_DATA"):
            raise
        return None
    return folder if folder.is_dir() else None


def presence(name: str, data_dir: Path | None = None) -> str:
    """:data:`FULL`, :data:`SLICES` (committed slices only) or :data:`ABSENT`."""
    if full_set_folder(name, data_dir) is not None:
        return FULL
    return SLICES if committed_slices(name) else ABSENT


def _fetch_hint(name: str) -> str:
    return f"get the full set with: ace-lab data fetch {pooled_base(name)}"


def load_slice(
    name: str, n: int | None = None, seed: int = 0, data_dir: Path | None = None
) -> Slice:
    """The slice of ``n`` questions of set ``name`` (module docstring): from its committed file
    when one serves ``(n, seed)``, else from the full set.

    ``n=None`` is the set's natural size: its largest committed slice for ``seed``, else every
    question of the full set. A user corpus (:mod:`ace_lab.data.corpora`) is always present in
    full, and ``make_slice`` gives its whole corpus whatever ``n``. Raises a one-line DataError
    when neither a committed slice nor the full set serves ``(n, seed)`` (naming
    ``ace-lab data fetch NAME``), when ``n`` is out of range, or for an unknown name.
    """
    spec = get_spec(name)
    if spec.setting == CORPUS:
        corpus = load_dataset(name, data_dir)
        return make_slice(corpus, len(corpus.questions) if n is None else n, seed=seed)
    if n is not None and n < 1:
        raise DataError(f"{name}: n must be >= 1, got {n}")
    folder = full_set_folder(name, data_dir)  # first: a mistyped data directory is an error
    committed = _committed_slice(spec, n, seed)
    if committed is not None:
        return committed
    if folder is None:
        ids = [f"{d}-n{k}-s{s}" for d, k, s in committed_slices(name)]
        held = f"committed: {', '.join(ids)}" if ids else "none committed"
        want = f"n={n} seed={seed}" if n is not None else f"seed={seed}"
        raise DataError(
            f"{name}: the full set is not here and no committed slice serves {want} "
            f"({held}); {_fetch_hint(name)}"
        )
    dataset = load_dataset(name, data_dir)
    n = len(dataset.questions) if n is None else n
    if n > len(dataset.questions):
        raise DataError(f"{name}: n={n} is more than its {len(dataset.questions)} questions")
    return make_slice(dataset, n, seed=seed)


def _committed_slice(spec: DatasetSpec, n: int | None, seed: int) -> Slice | None:
    """The committed slice that serves ``(n, seed)``: the file of that ``n``, or the first ``n``
    questions of a larger one where the set's slices nest; None when no file serves it."""
    available = [c for c in committed_slices(spec.name) if c[2] == seed]
    if not available:
        return None
    wanted = available[-1][1] if n is None else n
    exact = [c for c in available if c[1] == wanted]
    nests = spec.setting in (PER_QUESTION, SHARED) or (
        spec.setting == POOLED and not is_graphragbench(spec.name)  # stratified: no nesting
    )
    larger = [c for c in available if c[1] > wanted] if nests else []
    if not exact and not larger:
        return None
    source = (exact or larger)[0]
    sl = read_slice_file(slice_path(f"{spec.name}-n{source[1]}-s{seed}"))
    return sl if sl.n == wanted else first_questions(sl, wanted)


def first_questions(sl: Slice, n: int) -> Slice:
    """The first ``n`` questions of a nesting slice with the union of their passages."""
    if not 1 <= n <= sl.n:
        raise DataError(f"{sl.slice_id}: cannot take n={n} of its {sl.n} questions")
    questions = sl.questions[:n]
    groups = {q.id: tuple(sl.question_passage_ids[q.id]) for q in questions}
    wanted = {pid for ids in groups.values() for pid in ids}
    passages = [p for p in sl.passages if p.id in wanted]
    return Slice(sl.dataset_name, questions, passages, sl.seed, n, sl.setting, groups, sl.variant)


def load_available(name: str, data_dir: Path | None = None) -> Dataset:
    """The full set when present, else a :class:`Dataset` of its committed slices' questions and
    passages (for overviews: a slice-only set is these few records, not the benchmark)."""
    if full_set_folder(name, data_dir) is not None:
        return load_dataset(name, data_dir)
    spec = get_spec(name)
    found = committed_slices(name)
    if not found:
        raise DataError(
            f"{name}: neither the full set nor a committed slice is here; {_fetch_hint(name)}"
        )
    questions, passages = {}, {}
    for dataset, n, seed in found:
        sl = read_slice_file(slice_path(f"{dataset}-n{n}-s{seed}"))
        questions.update({q.id: q for q in sl.questions if q.id not in questions})
        passages.update({p.id: p for p in sl.passages if p.id not in passages})
    return Dataset(
        name,
        list(passages.values()),
        list(questions.values()),
        spec.setting,
        spec.passages_per_question,
        spec.anchored,
    )
