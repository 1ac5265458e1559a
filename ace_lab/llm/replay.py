"""Replay an artefact's LLM responses from a committed archive, and record them into it.

A graph build or a notebook that shows one method's run ships the responses it used
(:class:`~ace_lab.llm.cache.ResponseArchive`, JSONL keyed exactly like the cache), so a fresh
clone — whose SQLite cache is empty — replays it without a model call. The archive is read
after the cache; a request it does not hold (another model, prompt or question) goes to the
model as usual, and with ``update`` the archive is rewritten with every response the block
used when the block finishes.

With ``ACE_LAB_LLM_REPLAY_ONLY`` set (:func:`replay_only`; the notebook tests set it) no request
of a replaying block reaches the model: the block's model client refuses every call, and the
block raises :class:`NotArchived` at its end even if the caller caught the refusal (a method
falling back on a failed call), so a missing response fails loudly instead of starting a model.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ace_lab.llm.cache import ResponseArchive
from ace_lab.llm.client import LLMError

if TYPE_CHECKING:
    from ace_lab.llm.client import LLM

#: Set (to anything but "", "0", "false" or "no"), a request made inside a :func:`replaying`
#: block that neither the cache nor an archive holds raises instead of reaching the model.
REPLAY_ONLY_ENV = "ACE_LAB_LLM_REPLAY_ONLY"


def replay_only() -> bool:
    """Whether replaying blocks must make no model call (``ACE_LAB_LLM_REPLAY_ONLY``)."""
    return os.environ.get(REPLAY_ONLY_ENV, "").lower() not in ("", "0", "false", "no")


class NotArchived(LLMError):
    """A replay-only block needed a response that neither the cache nor its archives hold."""


class RefusingClient:
    """Stands in for the model's OpenAI client in a replay-only block: refuses every request
    and remembers the start of each refused request's last message."""

    def __init__(self) -> None:
        self.refused: list[str] = []
        self._lock = threading.Lock()
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs: Any) -> Any:
        text = str(kwargs["messages"][-1]["content"]).replace("\n", " ")
        with self._lock:
            self.refused.append(text[:60])
        raise NotArchived(
            f"no cached or archived response and {REPLAY_ONLY_ENV} forbids a model call: "
            f"{text[:60]!r}"
        )


@contextmanager
def _refusing(llm: LLM, path: Path | str) -> Iterator[None]:
    """Swap ``llm``'s client for a :class:`RefusingClient` while the block runs (nested blocks
    share one); raise :class:`NotArchived` at a normal end if any request was refused."""
    with llm._client_lock:
        previous = llm._client
        refusing = previous if isinstance(previous, RefusingClient) else RefusingClient()
        llm._client = refusing
    before = len(refusing.refused)
    try:
        yield
    finally:
        with llm._client_lock:
            llm._client = previous
    missed = refusing.refused[before:]
    if missed:
        raise NotArchived(
            f"{len(missed)} LLM request(s) are in neither the cache nor {path} and "
            f"{REPLAY_ONLY_ENV} forbids a model call (record the archive), first: {missed[0]!r}"
        )


@contextmanager
def replaying(
    llm: LLM, path: Path | str | None, *, update: bool = True, keep_on_error: bool = False
) -> Iterator[ResponseArchive | None]:
    """Consult the archive at ``path`` while the block runs; with ``update``, rewrite it after
    a block that finished with what it held plus every response the block used (cache hits
    included). A block that raised leaves the file as it was unless ``keep_on_error``: a
    resumable block (a graph build) keeps the responses it paid for when it is interrupted, so
    a fresh clone resumes it from the committed archive, not only from this machine's cache.
    An empty ``path`` (a notebook's ``responses = ""``) replays and records nothing."""
    if not path:
        yield None
        return
    archive = ResponseArchive(path)
    llm.archives.append(archive)
    earlier, llm.answered = llm.answered, {}
    finished = False
    try:
        if replay_only():
            with _refusing(llm, path):
                yield archive
        else:
            yield archive
        finished = True
    finally:
        llm.archives.remove(archive)
        used, llm.answered = llm.answered, earlier | llm.answered
        # ``answered`` holds only responses the model gave (a failed call is never in it), so
        # what an interrupted block keeps is as real as what a finished one writes.
        if update and (finished or (keep_on_error and used)):
            # Keep what the archive held: a block that replays earlier work asks the model
            # nothing for it, and those paid responses must stay replayable.
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            ResponseArchive.write(path, archive.entries() | used)
