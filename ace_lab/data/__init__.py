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
* :mod:`~ace_lab.data.provenance`: each set's upstream files and licence;
* :mod:`~ace_lab.data.committed`: the committed slice files under ``data/slices`` (format,
  reading, regenerating from the full sets);
* :mod:`~ace_lab.data.access`: :func:`load_slice`, the one way to get a slice (full set when
  present, else the committed slice), and which copy of a set is here;
* :mod:`~ace_lab.data.overview`: a summary table of the sets on this machine;
* user corpora, any folder of documents as a data set: :mod:`~ace_lab.data.documents` (reading
  one file), :mod:`~ace_lab.data.ingest` (walking a folder, skips, merging),
  :mod:`~ace_lab.data.user_questions` (a questions file), :mod:`~ace_lab.data.userdir` (where
  they are stored) and :mod:`~ace_lab.data.corpora` (:func:`add_corpus`, :func:`list_corpora`,
  :func:`remove_corpus`).
"""

from ace_lab.data.access import load_available, load_slice, presence
from ace_lab.data.chunking import Chunk, chunk_passages, chunk_spans, chunk_text
from ace_lab.data.corpora import (
    CorpusInfo,
    IngestReport,
    add_corpus,
    list_corpora,
    remove_corpus,
    user_data_dir,
)
from ace_lab.data.loaders import load_dataset
from ace_lab.data.overview import dataset_overview, passage_lengths, question_type_counts
from ace_lab.data.picks import pick_questions
from ace_lab.data.records import (
    CORPUS,
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
    "CORPUS",
    "DATASETS",
    "DEFAULT_DISTRACTORS",
    "DOCUMENTS",
    "PER_QUESTION",
    "SHARED",
    "TOY",
    "Chunk",
    "CorpusInfo",
    "DataError",
    "Dataset",
    "DatasetSpec",
    "IngestReport",
    "Passage",
    "Question",
    "Slice",
    "add_corpus",
    "anchor_documents",
    "cheapest_documents",
    "chunk_passages",
    "chunk_spans",
    "chunk_text",
    "dataset_overview",
    "default_task",
    "list_corpora",
    "list_datasets",
    "load_available",
    "load_dataset",
    "load_slice",
    "make_slice",
    "passage_lengths",
    "pick_questions",
    "presence",
    "question_passages",
    "question_type_counts",
    "remove_corpus",
    "resolve_data_dir",
    "selection_key",
    "user_data_dir",
]
