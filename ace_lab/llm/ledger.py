"""The ledger: every LLM call with its tag, tokens, latency and cache hit, summarised per tag."""

from __future__ import annotations

import threading
from dataclasses import asdict

import pandas as pd

from ace_lab.evidence import LLMCall


class Ledger:
    """Append-only, thread-safe record of :class:`~ace_lab.evidence.LLMCall` s."""

    def __init__(self) -> None:
        self._calls: list[LLMCall] = []
        self._lock = threading.Lock()

    def record(self, call: LLMCall) -> None:
        with self._lock:
            self._calls.append(call)

    @property
    def calls(self) -> list[LLMCall]:
        with self._lock:
            return list(self._calls)

    def reset(self) -> None:
        with self._lock:
            self._calls.clear()

    def frame(self) -> pd.DataFrame:
        columns = list(LLMCall.__dataclass_fields__)
        return pd.DataFrame([asdict(c) for c in self.calls], columns=columns)

    def summary(self) -> pd.DataFrame:
        """Per tag: calls, model calls, cache hits, failures, tokens, latency."""
        df = self.frame()
        if df.empty:
            return pd.DataFrame(
                columns=[
                    "calls",
                    "model_calls",
                    "cache_hits",
                    "failures",
                    "prompt_tokens",
                    "completion_tokens",
                    "latency_s",
                    "mean_latency_s",
                ]
            )
        grouped = df.groupby("tag")
        out = pd.DataFrame(
            {
                "calls": grouped.size(),
                "model_calls": grouped["cache_hit"].apply(lambda s: int((~s).sum())),
                "cache_hits": grouped["cache_hit"].sum().astype(int),
                "failures": grouped["error"].apply(lambda s: int(s.notna().sum())),
                "prompt_tokens": grouped["prompt_tokens"].sum(),
                "completion_tokens": grouped["completion_tokens"].sum(),
                "latency_s": grouped["latency_s"].sum().round(3),
            }
        )
        out["mean_latency_s"] = (out["latency_s"] / out["calls"]).round(3)
        return out
