"""ace_lab.config.secrets: credentials in any URL form are masked wherever a URL is recorded."""

from __future__ import annotations

import pytest

from ace_lab.config import LLMSettings, load_settings
from ace_lab.config.secrets import redact_url

KEY = "sk-proj-Abc123def456GHI789jkl"


@pytest.mark.parametrize(
    "url, shown",
    [
        (f"https://gw.example/{KEY}/v1", "https://gw.example/***/v1"),
        (f"https://gw/v1?code={KEY}", "https://gw/v1?code=***"),
        (f"https://gw/v1;api_key={KEY}", "https://gw/v1;api_key=***"),
        (f"https://gw/v1?x=1&access_token={KEY}", "https://gw/v1?x=1&access_token=***"),
        (f"https://user:{KEY}@gw/v1", "https://***@gw/v1"),
        ("https://gw/0a1b2c3d4e5f6a7b8c9d0e1f2a3b/v1", "https://gw/***/v1"),
        (f"calling https://gw/{KEY}/v1 failed: 500", "calling https://gw/***/v1 failed: 500"),
    ],
)
def test_every_credential_form_is_masked(url: str, shown: str) -> None:
    """Regression: a key as a path segment, in ``?code=`` or in ``;api_key=`` was recorded."""
    assert redact_url(url) == shown
    assert redact_url(shown) == shown  # idempotent


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/v1",
        "https://api.openai.com/v1/chat/completions",
        "https://host/openai/deployments/gpt-4o-mini-2024-07-18/v1",
        "https://host/v1#qwen2.5-1.5b-instruct-q4_k_m",
    ],
)
def test_plain_endpoints_are_left_as_they_are(url: str) -> None:
    assert redact_url(url) == url


@pytest.mark.parametrize("suffix", [f"/{KEY}/v1", f"/v1?code={KEY}", f"/v1;api_key={KEY}"])
def test_the_recorded_model_identity_holds_no_key(suffix: str) -> None:
    from dataclasses import replace

    from ace_lab.llm import LLM

    base = load_settings()
    llm_settings = replace(LLMSettings(), base_url=f"https://gw.example{suffix}", model="m")
    llm = LLM(replace(base, llm=llm_settings))
    assert KEY not in llm.model_identity and KEY not in llm.endpoint
