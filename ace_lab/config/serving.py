"""The local llama.cpp server's settings (the ``ACE_LAB_LLM_*`` variables of serving)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ace_lab.bounded import Bounded, ConfigError, bounded

SERVING_BACKENDS = ("auto", "xllamacpp", "llama-server")
KV_TYPES = ("f16", "q8_0")
FLASH_ATTN = ("auto", "on", "off")


@dataclass(frozen=True)
class ServingOptions(Bounded):
    """llama.cpp settings of the local server (see ``ace_lab.llm.serving`` for which of them
    change outputs and so the cache identity)."""

    backend: str = bounded(
        "auto",
        choices=SERVING_BACKENDS,
        help="xllamacpp wheel, llama-server built by `make native`, or auto: the built one if any",
    )
    flash_attn: str = bounded(
        "auto",
        choices=FLASH_ATTN,
        help="flash attention: one fused attention kernel; auto lets llama.cpp decide",
    )
    batch: int = bounded(2048, lo=32, hi=8192, help="logical prompt batch, tokens per step")
    ubatch: int = bounded(512, lo=16, hi=8192, help="physical prompt batch (≤ batch)")
    poll: int = bounded(
        50, lo=0, hi=100, help="busy-wait polling of idle worker threads (0: sleep at once)"
    )
    priority: int = bounded(
        2,
        lo=0,
        hi=3,
        help="llama.cpp thread priority 0-3; high (2) runs the compute threads SCHED_FIFO: "
        "beside one busy process they kept 89 % of their generation speed (3 % at 0), and "
        "while they compute other processes share the kernel's 5 % RT reserve "
        "(bench/llm_serving.py --busy); needs root or CAP_SYS_NICE, else llama.cpp runs at 0",
    )
    nice: int = bounded(
        0,
        lo=-20,
        hi=19,
        help="niceness of the server process (normal scheduling); -10 measured no help "
        "against a busy neighbour, kept for machines where priority is not allowed",
    )
    kv_type: str = bounded(
        "f16", choices=KV_TYPES, help="KV cache type; q8_0 needs flash attention"
    )
    prompt_cache: bool = bounded(
        False, help="reuse a slot's cached prompt prefix (off: it changed temperature-0 answers)"
    )
    draft_tier: str = bounded(
        "", help="smaller tier drafting tokens for speculative decoding (llama-server; '' off)"
    )
    prompt_lookup: bool = bounded(
        False, help="draft tokens from an earlier match in the prompt (llama-server only)"
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.kv_type != "f16" and self.flash_attn == "off":
            raise ConfigError("a quantised KV cache (kv_type) needs flash attention")
        if (self.draft_tier or self.prompt_lookup) and self.backend == "xllamacpp":
            raise ConfigError("speculative decoding needs the llama-server backend")
        if self.draft_tier and self.prompt_lookup:
            raise ConfigError("choose one speculation: draft_tier or prompt_lookup")
        if self.ubatch > self.batch:
            raise ConfigError(f"ubatch ({self.ubatch}) must be ≤ batch ({self.batch})")

    def as_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
