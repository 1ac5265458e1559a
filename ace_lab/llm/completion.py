"""What one chat call returns: the reply, its tokens, where it came from and how long it took."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int  # tokens this call spent (0 on a cache hit)
    completion_tokens: int
    cache_hit: bool
    latency_s: float
    model: str
    key: str
    #: Tokens the model processed to produce this response, also when it came from the cache:
    #: the cost of the call on a cold cache, which is what cost tables report.
    response_prompt_tokens: int = 0
    response_completion_tokens: int = 0
    #: The model time of the response (this call's own for a miss; as recorded for a hit).
    response_latency_s: float | None = None
    #: Prompt tokens the *server* answered from its own prompt (KV) cache, as it reports them
    #: (``usage.prompt_tokens_details.cached_tokens``; llama.cpp keeps earlier prompts' KV in
    #: RAM). Non-zero means ``latency_s`` is warmer than a cold call. 0 for a response-cache hit.
    server_cached_tokens: int = 0
