"""Rank fusion: weighted reciprocal rank fusion (RRF) and ArcRAG's default weights.

Dense retrieval catches paraphrases, BM25 catches the rare names and numbers that multi-hop
questions hinge on and that MiniLM smears; :func:`rrf` merges their rankings. It only needs
ranks, so cosine similarities and BM25 scores, which live on unrelated scales, fuse without
calibration.
"""

from __future__ import annotations

from collections.abc import Sequence

#: ArcRAG's fusion settings: ``k = 60``, dense evidence counts twice as much as lexical evidence.
RRF_K = 60
DENSE_WEIGHT = 2.0
SPARSE_WEIGHT = 1.0


def rrf(
    rankings: Sequence[Sequence[str]], weights: Sequence[float], k: int = RRF_K
) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion: ``score(d) = sum_i w_i / (k + rank_i(d))``, rank from 1.

    RRF only needs ranks, so cosine similarities and BM25 scores, which live on unrelated
    scales, fuse without calibration. A document missing from a ranking gets nothing from it;
    a repeated id counts at its best rank. Sorted by score, then id, so ties are deterministic.
    """
    if len(rankings) != len(weights):
        raise ValueError(f"{len(rankings)} rankings but {len(weights)} weights")
    if k < 0:
        raise ValueError(f"rrf k must be >= 0, got {k}")
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        seen: set[str] = set()
        for rank, doc in enumerate(ranking, start=1):
            if doc in seen:
                continue
            seen.add(doc)
            scores[doc] = scores.get(doc, 0.0) + float(weight) / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))
