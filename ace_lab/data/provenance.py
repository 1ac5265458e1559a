"""Where every benchmark set comes from: its upstream files (repository, commit, path) and licence.

Copied from the benchmark data directory's ``MANIFEST.json`` (which also holds each file's
sha256 and the checks made on it), so that the provenance travels with the repository: the
committed slices (:mod:`ace_lab.data.committed`) carry their set's entry, and ``data/README.md``
lists them. The toy corpus is written by hand for this repository.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ace_lab.data.registry import TOY, pooled_base


@dataclass(frozen=True)
class Source:
    """One upstream file a set was normalised from."""

    repo: str  # GitHub owner/name
    commit: str
    path: str

    def as_dict(self) -> dict[str, str]:
        return {"repo": self.repo, "commit": self.commit, "path": self.path}


@dataclass(frozen=True)
class Provenance:
    """A set's upstream files and licence (as stated by the sources; see each repository)."""

    sources: tuple[Source, ...]
    licence: str


_MIGRES = ("AdelWang/MIGRES", "1de6265c9ca1014054d6ba875738e785830908f8")
_HIPPORAG_V1 = ("OSU-NLP-Group/HippoRAG", "b144c46df14cabe5f5822d8caded4bec5f709461")
_GRB = ("chensuki/GraphRAG-Benchmark", "723fbd64f065d4d811c340738b4eb8cdf01aa9d6")
_HIRAG = ("hhy-huang/HiRAG", "278bf8ae875f526d52c87b93d9eb7db426022b25")
_MSFT = ("microsoft/graphrag-benchmarking-datasets", "bc187ace7ccc2c942155f1160a892a3ccb257179")


def _from(repo_commit: tuple[str, str], *paths: str) -> tuple[Source, ...]:
    return tuple(Source(repo_commit[0], repo_commit[1], p) for p in paths)


#: Provenance of every set in :data:`ace_lab.data.registry.DATASETS` but the toy corpus.
PROVENANCE: dict[str, Provenance] = {
    "hotpotqa_dev_sample200": Provenance(
        _from(_MIGRES, "data/hotpot.json"),
        "HotpotQA CC BY-SA 4.0 (upstream); MIGRES repo has no LICENSE file",
    ),
    "hotpotqa_train_sample100_hipporag": Provenance(
        _from(_HIPPORAG_V1, "data/hotpotqa_train.json", "data/hotpotqa_train_corpus.json"),
        "HippoRAG MIT; HotpotQA CC BY-SA 4.0",
    ),
    "musique_dev_sample292": Provenance(
        (
            Source(
                "OpenSPG/KAG",
                "945183c584bbecc929e365e65006fa21005eebe4",
                "kag/examples/musique_pike/solver/data/musique_qa_100.json",
            ),
            *_from(_MIGRES, "data/musique.json"),
        ),
        "MuSiQue CC BY 4.0 (upstream); KAG Apache-2.0; MIGRES repo has no LICENSE file",
    ),
    "musique_train_sample100_hipporag": Provenance(
        _from(_HIPPORAG_V1, "data/musique_train.json", "data/musique_train_corpus.json"),
        "HippoRAG MIT; MuSiQue CC BY 4.0",
    ),
    "2wikimultihopqa_hipporag1000": Provenance(
        (
            Source(
                "OSU-NLP-Group/HippoRAG",
                "c617143f01477243992a63b2e2151cc003dd3b21",
                "reproduce/dataset/2wikimultihopqa_corpus.json",
            ),
            Source(
                "weiyifan1023/SeRAG",
                "660121d8ae3e6a620c4bab042a1963014db42043",
                "dataset/2wikimultihop/questions.json",
            ),
        ),
        "HippoRAG repo MIT; underlying 2WikiMultihopQA data Apache-2.0 (upstream); "
        "SeRAG repo has no LICENSE file",
    ),
    "graphragbench_medical": Provenance(
        _from(
            _GRB, "Datasets/Corpus/medical.parquet", "Datasets/Questions/medical_questions.parquet"
        ),
        "MIT (GraphRAG-Bench)",
    ),
    "graphragbench_novel": Provenance(
        _from(_GRB, "Datasets/Corpus/novel.parquet", "Datasets/Questions/novel_questions.parquet"),
        "MIT (GraphRAG-Bench LICENSE, 2025-07-12); novels are Project Gutenberg texts",
    ),
    "ultradomain_mix": Provenance(
        (
            *_from(_HIRAG, "eval/datasets/mix/mix_unique_contexts.json"),
            *_from(_HIRAG, "eval/datasets/mix/mix_eval_hi.jsonl"),
            Source(
                "choizhang/LightRAG",
                "0489acff29782b52a50a4d577321d52019313b3f",
                "datasets/questions/mix_questions.txt",
            ),
        ),
        "HiRAG MIT; LightRAG MIT; UltraDomain upstream license not stated in these repos",
    ),
    "msgraphrag_podcast": Provenance(
        _from(
            _MSFT,
            "data/Kevin Scott Podcast Transcripts Input Text.zip",
            "data/Kevin Scott Questions.csv",
        ),
        "CDLA-Permissive-2.0",
    ),
    "msgraphrag_msft_transcripts": Provenance(
        _from(_MSFT, "data/MSFT Input Text.zip", "data/MSFT *Questions.csv"),
        "CDLA-Permissive-2.0",
    ),
    "multihoprag_small20": Provenance(
        _from(_HIRAG, "fixtures/MultiHopRAG_small.json", "fixtures/corpus_small.json"),
        "HiRAG MIT; MultiHop-RAG upstream license not stated in the repo",
    ),
}

#: The toy corpus: fictional, written for this repository (data/toy/README.md).
TOY_LICENCE = "written for this repository; MIT, as the code"


def provenance_record(name: str) -> dict[str, Any]:
    """``{"source": [...], "licence": ...}`` of a set, as stored in a committed slice file."""
    if name == TOY:
        return {"source": [], "licence": TOY_LICENCE}
    entry = PROVENANCE.get(pooled_base(name))  # a pooled view comes from its set's files
    if entry is None:
        return {"source": [], "licence": "unknown"}
    return {"source": [s.as_dict() for s in entry.sources], "licence": entry.licence}
