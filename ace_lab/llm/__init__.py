"""LLM access: one OpenAI-compatible client, structured JSON, the local server, cache, ledger."""

from ace_lab.llm.cache import ResponseArchive, ResponseCache, cache_key
from ace_lab.llm.client import (
    LLM,
    Completion,
    LLMError,
    get_llm,
)
from ace_lab.llm.ledger import Ledger
from ace_lab.llm.models import TIERS, ModelError, prepare_model
from ace_lab.llm.structured import JsonResult, extract_json, schema_format

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
    "schema_format",
]
