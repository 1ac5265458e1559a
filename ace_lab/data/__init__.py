"""Benchmark data: locate it, load every set into one typed schema, slice it, chunk it.

Every benchmark set is normalised into :class:`Passage` and :class:`Question` records so the rest
of ace_lab never sees a set's own field names. The package, one concept per module:

* :mod:`~ace_lab.data.records`: ``Passage``, ``Question``, ``Dataset``, the settings, ``DataError``;
* :mod:`~ace_lab.data.registry`: ``DATASETS`` (where each set lives, how it is evaluated) and
  :func:`resolve_data_dir`;
* :mod:`~ace_lab.data.jsonfile`: reading one JSON file, every way it can be broken a DataError;
* :mod:`~ace_lab.data.loaders`: :func:`load_dataset`, reading and validating the JSON files;
* :mod:`~ace_lab.data.slices`: deterministic evaluation slices and per-question passages;
* :mod:`~ace_lab.data.graphragbench`: GraphRAG-Bench slices (stratified by question type,
  evidence chunks plus hard distractors) and their summary;
* :mod:`~ace_lab.data.chunking`: passages cut into overlapping word-piece windows;
* :mod:`~ace_lab.data.overview`: a summary table of the sets on this machine.
"""

from ace_lab.data.chunking import Chunk, chunk_passages, chunk_spans, chunk_text
from ace_lab.data.loaders import load_dataset
from ace_lab.data.overview import dataset_overview, passage_lengths, question_type_counts
from ace_lab.data.records import (
    DOCUMENTS,
    PER_QUESTION,
    SHARED,
    DataError,
    Dataset,
    Passage,
    Question,
)
from ace_lab.data.registry import (
    DATASETS,
    TOY,
    DatasetSpec,
    default_task,
    list_datasets,
    resolve_data_dir,
)
from ace_lab.data.slices import (
    DEFAULT_DISTRACTORS,
    Slice,
    anchor_documents,
    cheapest_documents,
    make_slice,
    question_passages,
    selection_key,
)

__all__ = [
    "DATASETS",
    "DEFAULT_DISTRACTORS",
    "DOCUMENTS",
    "PER_QUESTION",
    "SHARED",
    "TOY",
    "Chunk",
    "DataError",
    "Dataset",
    "DatasetSpec",
    "Passage",
    "Question",
    "Slice",
    "anchor_documents",
    "cheapest_documents",
    "chunk_passages",
    "chunk_spans",
    "chunk_text",
    "dataset_overview",
    "default_task",
    "list_datasets",
    "load_dataset",
    "make_slice",
    "passage_lengths",
    "question_passages",
    "question_type_counts",
    "resolve_data_dir",
    "selection_key",
]
