"""Replay an artefact's LLM responses from a committed archive, and record them into it.

A graph build or a notebook that shows one method's run ships the responses it used
(:class:`~ace_lab.llm.cache.ResponseArchive`, JSONL keyed exactly like the cache), so a fresh
clone — whose SQLite cache is empty — replays it without a model call. The archive is read
after the cache; a request it does not hold (another model, prompt or question) goes to the
model as usual, and with ``update`` the archive is rewritten with every response the block
used when the block finishes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ace_lab.llm.cache import ResponseArchive

if TYPE_CHECKING:
    from ace_lab.llm.client import LLM


@contextmanager
def replaying(
    llm: LLM, path: Path | str | None, *, update: bool = True
) -> Iterator[ResponseArchive | None]:
    """Consult the archive at ``path`` while the block runs; with ``update``, rewrite it after
    a block that finished with what it held plus every response the block used (cache hits
    included). A block that raised leaves the file as it was; an empty ``path`` (a notebook's
    ``responses = ""``) replays and records nothing."""
    if not path:
        yield None
        return
    archive = ResponseArchive(path)
    llm.archives.append(archive)
    earlier, llm.answered = llm.answered, {}
    try:
        yield archive
    finally:
        llm.archives.remove(archive)
        used, llm.answered = llm.answered, earlier | llm.answered
    if update:
        # Keep what the archive held: a block that replays earlier work asks the model nothing
        # for it, and those paid responses must stay replayable.
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        ResponseArchive.write(path, archive.entries() | used)
