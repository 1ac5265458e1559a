"""Settings for ace_lab: paths, LLM endpoint, embeddings. Every field has an env variable.

One frozen :class:`~ace_lab.bounded.Bounded` dataclass tree (:mod:`.settings`), built by
:func:`load_settings` from defaults and ``ACE_LAB_*`` environment variables whose names are
derived from the field names (:mod:`.env`); ``docs/configuration.md`` lists them all
(:mod:`.docs`). Notebooks and the CLI both call ``load_settings()`` so they agree.
"""

from __future__ import annotations

from ace_lab.config.env import (
    ALIASES,
    OTHER_VARIABLES,
    env_name,
    from_env,
    load_settings,
    variables,
)
from ace_lab.config.secrets import REDACTED, redact_url
from ace_lab.config.serving import FLASH_ATTN, KV_TYPES, SERVING_BACKENDS, ServingOptions
from ace_lab.config.settings import (
    DEFAULT_TIER,
    EMBED_BACKENDS,
    REPO_ROOT,
    EmbedSettings,
    GraphSettings,
    LLMSettings,
    Settings,
    default_graphs_dir,
)

__all__ = [
    "ALIASES",
    "DEFAULT_TIER",
    "EMBED_BACKENDS",
    "FLASH_ATTN",
    "KV_TYPES",
    "OTHER_VARIABLES",
    "REDACTED",
    "REPO_ROOT",
    "SERVING_BACKENDS",
    "EmbedSettings",
    "GraphSettings",
    "LLMSettings",
    "ServingOptions",
    "Settings",
    "default_graphs_dir",
    "env_name",
    "from_env",
    "load_settings",
    "redact_url",
    "variables",
]
