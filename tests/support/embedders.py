"""Embedders that need no model (one-hot rows, seeded vectors) and one that records its calls."""

from __future__ import annotations

from typing import Any


class CountingEmbedder:
    """Wraps an embedder, recording every text it is asked to encode."""

    def __init__(self, inner: Any, model_id: str | None = None) -> None:
        self.inner = inner
        self.model_id = model_id or inner.model_id
        self.dim = inner.dim
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> Any:
        self.calls.append(list(texts))
        return self.inner.encode(texts)

    @property
    def encoded(self) -> list[str]:
        return [text for call in self.calls for text in call]


class OneHotEmbedder:
    """Every distinct text gets its own axis: no two phrases are similar (no synonym edges)."""

    model_id = "test:onehot"
    dim = 512

    def __init__(self) -> None:
        self.axes: dict[str, int] = {}

    def encode(self, texts: list[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, self.axes.setdefault(text, len(self.axes))] = 1.0
        return out


def fake_vectors(texts: list[str], dim: int = 8) -> Any:
    """Deterministic float32 rows seeded by each text, for tests that need no model."""
    import numpy as np

    rows = [np.random.default_rng(sum(t.encode())).standard_normal(dim) for t in texts]
    return np.asarray(rows, dtype=np.float32)
