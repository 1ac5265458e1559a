"""The ledger: every LLM call with its tag, tokens, latency and cache hit, summarised per tag.

A call's ``attempt`` is how many requests it sent (1 without retries); ``error`` is what it
failed with, credentials masked.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, replace

import pandas as pd

from ace_lab.config import redact_url
from ace_lab.evidence import LLMCall


class Ledger:
    """Append-only, thread-safe record of :class:`~ace_lab.evidence.LLMCall` s."""

    def __init__(self) -> None:
        self._calls: list[LLMCall] = []
        self._lock = threading.Lock()

    def record(self, call: LLMCall) -> None:
        if call.error is not None and (masked := redact_url(call.error)) != call.error:
            call = replace(call, error=masked)
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
        """Per tag: calls, model calls, cache hits, failures, retries, tokens, latency."""
        df = self.frame()
        if df.empty:
            return pd.DataFrame(
                columns=[
                    "calls",
                    "model_calls",
                    "cache_hits",
                    "failures",
                    "retries",
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
                "retries": grouped["attempt"].apply(lambda s: int((s - 1).clip(lower=0).sum())),
                "prompt_tokens": grouped["prompt_tokens"].sum(),
                "completion_tokens": grouped["completion_tokens"].sum(),
                "latency_s": grouped["latency_s"].sum().round(3),
            }
        )
        out["mean_latency_s"] = (out["latency_s"] / out["calls"]).round(3)
        return out
