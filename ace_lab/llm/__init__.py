"""LLM access: one OpenAI-compatible client, the embedded local server, cache and ledger."""

from ace_lab.llm.cache import ResponseArchive, ResponseCache, cache_key
from ace_lab.llm.client import (
    LLM,
    Completion,
    JsonResult,
    LLMError,
    extract_json,
    get_llm,
)
from ace_lab.llm.ledger import Ledger
from ace_lab.llm.models import TIERS, ModelError, prepare_model

__all__ = [
    "LLM",
    "TIERS",
    "Completion",
    "JsonResult",
    "LLMError",
    "Ledger",
    "ModelError",
    "ResponseArchive",
    "ResponseCache",
    "cache_key",
    "extract_json",
    "get_llm",
    "prepare_model",
]
