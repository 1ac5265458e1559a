"""The benchmark sets ace_lab knows, where each lives on disk and in which setting it is scored.

:data:`DATASETS` names every set with its folder, question files, source schema and *setting*:

``per_question``
    HotpotQA (10 passages per question) and MuSiQue (20): the distractor setting, where every
    question comes with its own small group of candidate passages.
``shared``
    2WikiMultihopQA (and the toy corpus): one corpus shared by all questions; a slice takes each
    question's supporting passages plus BM25-ranked hard distractors.
``documents``
    GraphRAG-Bench, UltraDomain, the MS GraphRAG sets and MultiHop-RAG: whole documents that a
    pipeline chunks and indexes as one corpus. *Anchored* document sets (UltraDomain) slice by
    document (see :mod:`ace_lab.data.slices`); GraphRAG-Bench slices hold only the chunks with
    each question's evidence plus hard distractor chunks (see :mod:`ace_lab.data.graphragbench`).
``pooled``
    A *pooled view* of a set, registered as ``<set>_pooled`` (:data:`POOLED_SETS`): the same
    files, but a slice is ``n`` questions with the set's whole corpus, so a question's passages
    must be found among every other question's (HippoRAG's own setting; GraphRAG-Bench Medical
    on its whole document). See :mod:`ace_lab.data.pooled`.
``corpus``
    A user's own folder of documents registered under a name (:mod:`ace_lab.data.corpora`):
    :func:`get_spec` finds it in the user data folder, and its slice is the whole corpus with all
    its questions.

The toy corpus ships in the repository's ``data/toy``; the others live in the benchmark data
directory that :func:`resolve_data_dir` finds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ace_lab.config import REPO_ROOT
from ace_lab.data.records import (
    CORPUS,
    DOCUMENTS,
    PER_QUESTION,
    POOLED,
    SHARED,
    DataError,
    UnknownDataset,
)
from ace_lab.data.userdir import (
    QUESTIONS_FILE,
    corpus_folder,
    read_meta,
    registered_corpora,
    user_data_dir,
)

#: The hand-written test corpus, the one set that needs no benchmark data directory.
TOY = "toy"


@dataclass(frozen=True)
class DatasetSpec:
    """Where a set lives and how it is evaluated (see the module docstring for ``setting``)."""

    name: str
    folder: str
    question_files: tuple[str, ...]
    setting: str
    schema: str
    passages_per_question: int | None = None
    description: str = ""
    anchored: bool = False  # documents set sliced by each question's BM25-best document
    #: The answer task its questions ask for unless a run names another (``qa``: one span;
    #: ``open``: sentences, as GraphRAG-Bench's gold answers are).
    task: str = "qa"


def _spec(name: str, setting: str, schema: str, **kwargs: Any) -> DatasetSpec:
    files = kwargs.pop("question_files", ("questions.json",))
    return DatasetSpec(name, kwargs.pop("folder", name), files, setting, schema, **kwargs)


#: Every known set by name. ``toy`` lives in the repository's ``data/toy``; the others in the
#: benchmark data directory (:func:`resolve_data_dir`).
DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        _spec(TOY, SHARED, "standard", description="hand-written fictional corpus for tests"),
        _spec(
            "hotpotqa_dev_sample200",
            PER_QUESTION,
            "standard",
            passages_per_question=10,
            description="HotpotQA dev, distractor setting",
        ),
        _spec(
            "hotpotqa_train_sample100_hipporag",
            PER_QUESTION,
            "standard",
            passages_per_question=10,
            description="HotpotQA train sample (HippoRAG v1)",
        ),
        _spec(
            "musique_dev_sample292",
            PER_QUESTION,
            "musique",
            passages_per_question=20,
            description="MuSiQue-Ans dev, 20 paragraphs per question",
        ),
        _spec(
            "musique_train_sample100_hipporag",
            PER_QUESTION,
            "musique",
            passages_per_question=20,
            description="MuSiQue train sample (HippoRAG v1)",
        ),
        _spec(
            "2wikimultihopqa_hipporag1000",
            SHARED,
            "2wiki",
            description="2WikiMultihopQA, HippoRAG shared corpus, derived supports",
        ),
        _spec(
            "graphragbench_medical",
            DOCUMENTS,
            "graphragbench",
            description="one medical doc; slices: evidence + distractor chunks",
            task="open",
        ),
        _spec(
            "graphragbench_novel",
            DOCUMENTS,
            "graphragbench",
            description="20 novels; slices: evidence + distractor chunks",
            task="open",
        ),
        _spec(
            "ultradomain_mix",
            DOCUMENTS,
            "ultradomain",
            question_files=("questions_ultradomain130.json", "questions_lightrag_generated.json"),
            description="UltraDomain mix, no gold answers (pairwise judging)",
            anchored=True,
        ),
        _spec("msgraphrag_podcast", DOCUMENTS, "msgraphrag", description="podcast transcripts"),
        _spec(
            "msgraphrag_msft_transcripts",
            DOCUMENTS,
            "msgraphrag",
            description="earnings-call transcripts, single/multi-transcript questions",
        ),
        _spec("multihoprag_small20", DOCUMENTS, "multihoprag", description="news articles"),
    )
}

#: The name of a set's pooled view: ``<set>_pooled``.
POOLED_SUFFIX = "_pooled"


def _pooled(base: str, description: str) -> DatasetSpec:
    """The pooled view of ``base``: its folder, schema and task, setting ``pooled``."""
    spec = DATASETS[base]
    name = base + POOLED_SUFFIX
    return replace(
        spec, name=name, setting=POOLED, passages_per_question=None, description=description
    )


#: Pooled views of sets (module docstring), by name. Not in :data:`DATASETS`: a view has no
#: files, fetch or provenance of its own (those of :func:`pooled_base`).
POOLED_SETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        _pooled(
            "hotpotqa_train_sample100_hipporag",
            "HotpotQA train sample, HippoRAG's pooled corpus of 994 passages",
        ),
        _pooled(
            "musique_train_sample100_hipporag",
            "MuSiQue train sample, HippoRAG's pooled corpus of 1,890 passages",
        ),
        _pooled(
            "graphragbench_medical",
            "GraphRAG-Bench Medical, its whole document in chunks, questions by type",
        ),
    )
}


def pooled_base(name: str) -> str:
    """The set whose files a pooled view reads (``name`` itself for any other name)."""
    spec = POOLED_SETS.get(name)
    return name.removesuffix(POOLED_SUFFIX) if spec is not None else name


def _repo_root() -> Path:
    """The checkout root; falls back to the package's parent when pyproject.toml is absent."""
    return REPO_ROOT or Path(__file__).resolve().parents[2]


def fetched_data_dir() -> Path:
    """Where ``ace-lab data fetch`` puts full sets when ``ACE_LAB_DATA`` is unset."""
    return user_data_dir() / "benchmarks"


def resolve_data_dir(settings_data_dir: Path | None = None) -> Path:
    """The benchmark data directory.

    Order: ``settings_data_dir``, else ``ACE_LAB_DATA``; then ``../shared/data`` next to the
    repository root and next to the working directory; then the sets ``ace-lab data fetch``
    fetched (:func:`fetched_data_dir`); then the repository's own ``data/`` (which holds only
    the toy corpus). An explicit directory that does not exist is an error
    rather than a silent fallback, so a typo never evaluates on the wrong data.
    """
    explicit = settings_data_dir or (Path(v) if (v := os.environ.get("ACE_LAB_DATA")) else None)
    if explicit is not None:
        explicit = Path(explicit).expanduser()
        if not explicit.is_dir():
            raise DataError(f"data directory {explicit} does not exist (explicit or ACE_LAB_DATA)")
        return explicit.resolve()
    tried = [
        _repo_root().parent / "shared" / "data",
        Path.cwd().parent / "shared" / "data",
        fetched_data_dir(),
        _repo_root() / "data",
    ]
    for candidate in tried:
        if candidate.is_dir():
            return candidate.resolve()
    listing = ", ".join(str(p) for p in tried)
    raise DataError(f"no benchmark data directory found; set ACE_LAB_DATA. Tried: {listing}")


def dataset_dir(spec: DatasetSpec, data_dir: Path | None = None) -> Path:
    """The folder holding ``spec``'s files (the repository's ``data/`` for the toy corpus, the
    corpus's own folder for a user corpus)."""
    if spec.setting == CORPUS:
        return Path(spec.folder)
    if spec.name == TOY:
        return _repo_root() / "data" / spec.folder
    return resolve_data_dir(data_dir) / spec.folder


def get_spec(name: str) -> DatasetSpec:
    """The registry entry of ``name``: a benchmark set, else a user corpus registered in the
    user data folder (:mod:`ace_lab.data.corpora`); else an :class:`UnknownDataset` (a DataError
    and a KeyError) listing the known names."""
    spec = DATASETS.get(name) or POOLED_SETS.get(name) or _user_corpus_spec(name)
    if spec is None:
        corpora = registered_corpora()
        mine = f"; your corpora: {', '.join(corpora)}" if corpora else ""
        hint = " (register a folder with: ace-lab corpus add NAME PATH)"
        known = ", ".join([*DATASETS, *POOLED_SETS])
        raise UnknownDataset(f"unknown dataset {name!r}; known: {known}{mine}{hint}")
    return spec


def _user_corpus_spec(name: str) -> DatasetSpec | None:
    """The spec of registered user corpus ``name`` (None when there is none)."""
    folder = corpus_folder(name)
    if folder is None:
        return None
    meta = read_meta(folder)
    task = meta.get("task") if meta.get("task") in ("qa", "open", "qfs") else "qa"
    sources = ", ".join(meta.get("sources", [])) or "?"
    return DatasetSpec(
        name, str(folder), (QUESTIONS_FILE,), CORPUS, "user", description=sources, task=task
    )


def default_task(name: str) -> str:
    """The answer task ``name``'s questions are run with unless a run names another."""
    return get_spec(name).task


def list_datasets(data_dir: Path | None = None) -> list[str]:
    """Names of the sets present on this machine, in :data:`DATASETS` order (toy always), then
    the pooled views of present sets (a view reads its set's files), then the registered user
    corpora by name."""
    present = [
        name
        for name, spec in DATASETS.items()
        if (dataset_dir(spec, data_dir) / spec.question_files[0]).is_file()
    ]
    views = [name for name in POOLED_SETS if pooled_base(name) in present]
    return present + views + registered_corpora()
