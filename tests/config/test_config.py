"""ace_lab.config: variables derived from field names, their generated docs, bad values as one
line, and secrets kept out of reprs and recorded URLs."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path

import pytest

from ace_lab.bounded import Bounded, ConfigError, field_bounds
from ace_lab.config import (
    ALIASES,
    DEFAULT_TIER,
    OTHER_VARIABLES,
    REPO_ROOT,
    EmbedSettings,
    GraphSettings,
    LLMSettings,
    ServingOptions,
    Settings,
    env_name,
    from_env,
    load_settings,
    redact_url,
    variables,
)
from ace_lab.config.docs import DOCS_PATH, markdown
from ace_lab.index import HybridSettings
from ace_lab.llm.endpoint import RetryPolicy

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


def test_unset_and_empty_variables_keep_the_defaults(monkeypatch):
    for v in variables():
        monkeypatch.delenv(v.name, raising=False)
    monkeypatch.setenv("ACE_LAB_LLM_PORT", "")  # empty counts as unset
    assert load_settings().llm == LLMSettings() and load_settings().embed == EmbedSettings()


# ------------------------------------------------------------------------------ one derivation
def test_variable_names_are_derived_from_the_field_names():
    assert env_name("llm", "threads") == "ACE_LAB_LLM_THREADS"
    assert env_name("llm", "timeout_s") == "ACE_LAB_LLM_TIMEOUT"  # the unit suffix is dropped
    assert env_name("", "cache_dir") == "ACE_LAB_CACHE_DIR"
    names = {v.path: v.name for v in variables()}
    assert names["llm.serving.backend"] == "ACE_LAB_LLM_BACKEND"  # serving flattens into llm
    assert names["embed.threads"] == "ACE_LAB_EMBED_THREADS"
    for path, name in names.items():
        section = path.split(".")[0] if "." in path else ""
        assert name == ALIASES.get(path, env_name(section, path.rsplit(".", 1)[-1])), path


def test_a_section_alone_reads_the_same_variables_as_the_whole_tree():
    env = {"OPENAI_API_KEY": "k", "ACE_LAB_EMBED_THREADS": "3", "ACE_LAB_LLM_BACKEND": "xllamacpp"}
    embed = from_env(EmbedSettings, "embed", env)
    assert embed == from_env(Settings, "", env).embed and embed.api_key == "k"
    assert from_env(LLMSettings, "llm", env).serving.backend == "xllamacpp"
    assert variables(EmbedSettings, "embed") == [v for v in variables() if v.path[:6] == "embed."]


def test_every_variable_is_one_field_and_only_the_key_is_shared():
    names = [v.name for v in variables()]
    shared = {n for n in names if names.count(n) > 1}
    assert shared == {"OPENAI_API_KEY"}  # the LLM's and the embeddings' key
    assert len(names) >= 37


SETTINGS_CLASSES = (
    Settings,
    LLMSettings,
    ServingOptions,
    EmbedSettings,
    HybridSettings,
    RetryPolicy,
)


@pytest.mark.parametrize("cls", SETTINGS_CLASSES, ids=lambda c: c.__name__)
def test_every_settings_field_is_bounded_with_help_or_is_a_section(cls):
    assert issubclass(cls, Bounded)
    for f in dataclasses.fields(cls):
        bounds = field_bounds(f)
        section = isinstance(f.default_factory, type) and issubclass(f.default_factory, Bounded)
        assert section or (bounds is not None and bounds.help), f"{cls.__name__}.{f.name}"


def test_every_ace_lab_variable_named_anywhere_is_documented():
    root = REPO_ROOT
    assert root is not None
    files = [*root.glob("ace_lab/**/*.py"), *root.glob("docs/*.md"), root / "Makefile"]
    files += [*root.glob("tests/**/*.py"), *root.glob("bench/*.py"), root / "README.md"]
    named = set()
    for path in files:
        named |= set(re.findall(r"\bACE_LAB_[A-Z0-9_]*[A-Z0-9]\b", path.read_text("utf-8")))
    known = {v.name for v in variables()} | {o.name for o in OTHER_VARIABLES}
    assert named - known == set(), "add them to the settings or to OTHER_VARIABLES"


def test_the_constants_of_modules_reading_variables_are_the_derived_names():
    from ace_lab.data.fetch import MIRROR_ENV
    from ace_lab.embed import THREADS_ENV
    from ace_lab.llm.serving import BINARY_ENV

    others = {o.name for o in OTHER_VARIABLES}
    assert {MIRROR_ENV, BINARY_ENV} <= others and "ACE_LAB_USER_DATA" in others
    assert THREADS_ENV in {v.name for v in variables()}


def test_docs_configuration_md_is_the_generated_page():
    committed = (REPO_ROOT / DOCS_PATH).read_text("utf-8")
    assert committed == markdown(), (
        "docs/configuration.md is stale: python -m ace_lab.config --markdown > "
        "docs/configuration.md"
    )
    for v in variables():
        assert f"`{v.name}`" in committed


# ------------------------------------------------------------------------------ values
def test_new_fields_are_read_too(monkeypatch):
    monkeypatch.setenv("ACE_LAB_LLM_PROMPT_CACHE", "on")
    monkeypatch.setenv("ACE_LAB_LLM_CACHE", "no")
    monkeypatch.setenv("ACE_LAB_EMBED_BATCH_SIZE", "8")
    monkeypatch.setenv("ACE_LAB_DATA", "/tmp/somewhere")
    settings = load_settings()
    assert settings.llm.serving.prompt_cache is True and settings.llm.cache is False
    assert settings.embed.batch_size == 8 and settings.data_dir == Path("/tmp/somewhere")


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("ACE_LAB_LLM_THREADS", "two", "ACE_LAB_LLM_THREADS='two' is not an integer (llm.threads "),
        ("ACE_LAB_LLM_THREADS", "0", "ACE_LAB_LLM_THREADS='0' must be in [1, 256] (llm.threads)"),
        ("ACE_LAB_LLM_TIMEOUT", "1m", "ACE_LAB_LLM_TIMEOUT='1m' is not a number"),
        ("ACE_LAB_LLM_CACHE", "maybe", "ACE_LAB_LLM_CACHE='maybe' is not true or false"),
        ("ACE_LAB_LLM_BACKEND", "vllm", "ACE_LAB_LLM_BACKEND='vllm' must be one of"),
        ("ACE_LAB_EMBED_BACKEND", "faiss", "ACE_LAB_EMBED_BACKEND='faiss' must be one of"),
        (
            "ACE_LAB_LLM_BASE_URL",
            f"htp://u:{PASSWORD}@h/v1",
            "='htp://***@h/v1' is not an endpoint",
        ),
        ("ACE_LAB_GRAPH_STORE", f"bolt://u:{PASSWORD}@h:7687", "='bolt://***@h:7687' holds a"),
        ("ACE_LAB_GRAPH_STORE", "localhost:7687", "is not a graph store: use embedded |"),
        ("OPENAI_API_KEY", "", None),  # empty: unset, not an error
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable(monkeypatch, name, value, message):
    monkeypatch.setenv(name, value)
    if message is None:
        load_settings()
        return
    with pytest.raises(ConfigError) as err:
        load_settings()
    text = str(err.value)
    assert message in text and "\n" not in text and PASSWORD not in text


def test_the_default_tier_is_named_once_and_is_a_tier():
    from ace_lab.llm.models import TIERS

    assert DEFAULT_TIER in TIERS and LLMSettings().tier == DEFAULT_TIER
    allowed = {"ace_lab/config/settings.py", "ace_lab/llm/models.py"}  # the name, the tier table
    for path in [*REPO_ROOT.glob("ace_lab/**/*.py"), *REPO_ROOT.glob("bench/*.py")]:
        rel = path.relative_to(REPO_ROOT).as_posix()
        tree = ast.parse(path.read_text("utf-8"))
        values = (n for n in ast.walk(tree) if isinstance(n, ast.Constant))
        if rel not in allowed:
            assert all(n.value != DEFAULT_TIER for n in values), f"{rel}: import DEFAULT_TIER"


STORES = ("embedded", "falkordb://h:6379", "redis://h/g", "bolt://neo@h:7687/db", "neo4j://h")
NOT_STORES = ("x", "", "bolt://u:pw@h", "falkordb://", "bolt://h/a/b")
#: Well-formed URLs of no backend: the setting (core layer) lets them through, the backend
#: table (``ace_lab.graph.store.backends``, a layer above) refuses them when the store opens.
NO_BACKEND = ("http://h", "gopher://h:70/x")


@pytest.mark.parametrize("text", STORES + NOT_STORES + NO_BACKEND)
def test_the_graph_store_setting_accepts_what_the_store_reads(text):
    from ace_lab.graph.store.errors import StoreError
    from ace_lab.graph.store.url import parse_store_url

    try:
        parse_store_url(text)
        readable = text != ""  # "" is the default (embedded) there, not a value to set
    except StoreError:
        readable = False
    settable = GraphSettings.field_problem("store", text) is None
    assert settable == (readable or text in NO_BACKEND)


def test_the_literal_copies_outside_python_agree_with_the_default_tier():
    # papermill reads a notebook's defaults from literals in its parameters cell, and make
    # reads TIER before any Python runs: those copies are checked here instead.
    for path in sorted(REPO_ROOT.glob("notebooks/*.ipynb")):
        for cell in json.loads(path.read_text("utf-8"))["cells"]:
            if "parameters" not in cell.get("metadata", {}).get("tags", []):
                continue
            for node in ast.walk(ast.parse("".join(cell["source"]))):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                    names = {t.id for t in node.targets if isinstance(t, ast.Name)}
                    if names & {"tier", "graph_model"}:
                        assert node.value.value == DEFAULT_TIER, f"{path.name}: {names}"
    make_tier = re.findall(r"^TIER \?= *(\S+)", (REPO_ROOT / "Makefile").read_text(), re.M)
    assert make_tier in ([], [DEFAULT_TIER])


def test_one_cache_root_holds_the_models_and_the_server_binary(tmp_path, monkeypatch):
    from ace_lab.llm.serving import native_binary_path

    monkeypatch.delenv("ACE_LAB_MODEL_DIR", raising=False)
    monkeypatch.setenv("ACE_LAB_CACHE_DIR", str(tmp_path / "root"))
    settings = load_settings()
    assert settings.cache_dir == tmp_path / "root"
    assert settings.model_dir == tmp_path / "root" / "models"
    assert (tmp_path / "root") in native_binary_path(settings.model_dir).parents
    monkeypatch.setenv("ACE_LAB_MODEL_DIR", str(tmp_path / "models"))  # a folder named wins
    assert load_settings().model_dir == tmp_path / "models"
