"""Where user corpora live: the user data folder, one folder per corpus, its three files.

A registered corpus ``NAME`` is the folder ``<root>/<NAME>/`` holding

* ``corpus.json``: its documents ``{"id", "title", "text", "source"}`` in the order added;
* ``questions.json``: its questions (possibly none) ``{"id", "question", "answer", ...}``;
* ``corpus_meta.json``: what was read from where (files, sizes, hashes, skips) and the default
  answer task.

``root`` defaults to ``<user data folder>/corpora``, where the user data folder is
``ACE_LAB_USER_DATA`` when set, else the platform's (``platformdirs.user_data_dir("ace_lab")``):
outside the repository, so a corpus survives a fresh clone. This module only locates and reads;
:mod:`ace_lab.data.corpora` registers and writes.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ace_lab.data.records import DataError

CORPUS_FILE = "corpus.json"
QUESTIONS_FILE = "questions.json"
META_FILE = "corpus_meta.json"

#: Letters, digits, ``_``, ``-`` and ``.``, starting with a letter or digit (so never ``..``).
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def user_data_dir() -> Path:
    """ace_lab's user data folder: ``ACE_LAB_USER_DATA``, else the platform's (not created)."""
    explicit = os.environ.get("ACE_LAB_USER_DATA")
    if explicit:
        return Path(explicit).expanduser()
    import platformdirs  # deferred: only needed when no folder is given

    return Path(platformdirs.user_data_dir("ace_lab", appauthor=False))


def corpora_root(root: Path | str | None = None) -> Path:
    """The folder that holds one sub-folder per registered corpus."""
    return Path(root).expanduser() if root is not None else user_data_dir() / "corpora"


def is_valid_name(name: str) -> bool:
    """Whether ``name`` can name a corpus folder (see :data:`NAME_PATTERN`)."""
    return isinstance(name, str) and NAME_PATTERN.fullmatch(name) is not None


def corpus_folder(name: str, root: Path | str | None = None) -> Path | None:
    """The folder of registered corpus ``name``, or None when there is none (or the name could
    not be one: no path outside ``root`` is ever looked at)."""
    if not is_valid_name(name):
        return None
    folder = corpora_root(root) / name
    return folder if (folder / META_FILE).is_file() else None


def registered_corpora(root: Path | str | None = None) -> list[str]:
    """Names of the registered corpora under ``root``, sorted."""
    base = corpora_root(root)
    if not base.is_dir():
        return []
    return sorted(
        entry.name
        for entry in base.iterdir()
        if is_valid_name(entry.name) and (entry / META_FILE).is_file()
    )


def read_meta(folder: Path) -> dict[str, Any]:
    """A corpus folder's ``corpus_meta.json`` as a dict (a one-line DataError if unreadable)."""
    path = folder / META_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{path}: file not found (not a registered corpus)") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"{path}: unreadable corpus metadata: {exc}") from None
    if not isinstance(data, dict):
        raise DataError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data
