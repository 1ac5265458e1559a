"""ace_lab.config: environment overrides, and secrets kept out of reprs and recorded URLs."""

from __future__ import annotations

import pytest

from ace_lab.config import EmbedSettings, LLMSettings, Settings, load_settings, redact_url

KEY = "sk-SENTINEL-key-0123"
PASSWORD = "pw-SENTINEL-0123"


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ACE_LAB_LLM_BASE_URL", f"https://alice:{PASSWORD}@llm.example:8443/v1")
    monkeypatch.setenv("ACE_LAB_LLM_MODEL", "m")
    monkeypatch.setenv("ACE_LAB_EMBED_BASE_URL", f"https://bob:{PASSWORD}@embed.example/v1")


# ------------------------------------------------------------------------------ reprs
def test_settings_repr_and_str_show_no_key_and_no_url_password(secret_env):
    settings = load_settings()
    assert settings.llm.api_key == KEY and PASSWORD in settings.llm.base_url  # still usable
    for shown in (repr(settings), str(settings), repr(settings.llm), repr(settings.embed)):
        assert KEY not in shown and PASSWORD not in shown
    assert "api_key='***'" in repr(settings.llm)
    assert "https://***@llm.example:8443/v1" in repr(settings.llm)
    assert "https://***@embed.example/v1" in repr(settings.embed)


def test_an_unset_key_shows_as_none():
    assert "api_key=None" in repr(LLMSettings()) and "api_key=None" in repr(EmbedSettings())


def test_settings_still_compare_by_their_key():
    # get_llm reuses its client only while the settings (key included) are equal.
    assert LLMSettings(api_key="a") != LLMSettings(api_key="b")
    assert Settings().with_llm(api_key="a") == Settings().with_llm(api_key="a")


# ------------------------------------------------------------------------------ redact_url
@pytest.mark.parametrize(
    "url, expected",
    [
        ("https://user:pass@host/v1", "https://***@host/v1"),
        ("https://token@host:8443/v1", "https://***@host:8443/v1"),
        ("https://u:p@ss@host/v1", "https://***@host/v1"),  # an unescaped @ in the password
        ("http://host/v1?api_key=sk-1&x=2", "http://host/v1?api_key=***&x=2"),
        ("http://host/v1?x=1&access_token=t#f", "http://host/v1?x=1&access_token=***#f"),
        ("http://host/v1?sig=abc", "http://host/v1?sig=***"),
        ("http://127.0.0.1:8765/v1", "http://127.0.0.1:8765/v1"),
        ("https://user:pass@host/v1#model", "https://***@host/v1#model"),
        ("local:smollm135m:abc", "local:smollm135m:abc"),
    ],
)
def test_redact_url_masks_credentials_and_keeps_the_endpoint(url, expected):
    assert redact_url(url) == expected
    assert redact_url(expected) == expected  # idempotent


def test_redact_url_masks_every_url_in_a_message():
    text = "POST http://a:b@h1/x failed; then https://c:d@h2:1/y?token=z too"
    assert redact_url(text) == "POST http://***@h1/x failed; then https://***@h2:1/y?token=*** too"
    assert redact_url(None) is None


# ------------------------------------------------------------------------------ environment
def test_retry_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("ACE_LAB_LLM_MAX_RETRIES", "5")
    monkeypatch.setenv("ACE_LAB_LLM_RETRY_BACKOFF", "0.25")
    monkeypatch.setenv("ACE_LAB_LLM_RETRY_WAIT_MAX", "4")
    llm = load_settings().llm
    assert (llm.max_retries, llm.retry_backoff_s, llm.retry_wait_max_s) == (5, 0.25, 4.0)


def test_keyword_overrides_win_over_the_environment(monkeypatch):
    monkeypatch.setenv("ACE_LAB_LLM_TIMEOUT", "9")
    assert load_settings(timeout_s=3.0).llm.timeout_s == 3.0
    assert load_settings().llm.timeout_s == 9.0
