"""A scripted OpenAI-shaped client, for unit tests of control flow (never for results)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from ace_lab.config import Settings

#: A fixed system + user chat, shared by the ace_lab.llm tests.
CHAT_MESSAGES = [{"role": "system", "content": "fixed"}, {"role": "user", "content": "q"}]


class ScriptedClient:
    """Stands in for ``openai.OpenAI`` in unit tests of control flow (never for results).

    ``script`` items are returned in order: a string is the completion text, an exception is
    raised, a callable gets the request kwargs and returns either. ``delay_s`` simulates a slow
    server; ``in_flight`` runs while a request is being served, outside the client's lock, so a
    test can observe how many requests are served at once.
    """

    def __init__(
        self,
        script: list[Any] | Callable[[dict], Any],
        delay_s: float = 0.0,
        server_cached_tokens: int = 0,
        in_flight: Callable[[], Any] | None = None,
    ) -> None:
        self.script = script
        self.delay_s = delay_s
        self.in_flight = in_flight
        self.server_cached_tokens = server_cached_tokens
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs: Any) -> Any:
        with self._lock:
            self.requests.append(kwargs)
            item = self.script(kwargs) if callable(self.script) else self.script.pop(0)
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.in_flight is not None:
            self.in_flight()
        if isinstance(item, BaseException):
            raise item
        message = SimpleNamespace(content=item)
        return SimpleNamespace(
            choices=[SimpleNamespace(message=message)],
            usage=SimpleNamespace(
                prompt_tokens=11,
                completion_tokens=len(str(item).split()),
                prompt_tokens_details=SimpleNamespace(cached_tokens=self.server_cached_tokens),
            ),
        )


def scripted_llm(settings: Settings, script: Any, **kw: Any) -> Any:
    """An ``ace_lab.llm.LLM`` answering from a :class:`ScriptedClient` (``kw`` go to it)."""
    from ace_lab.llm import LLM

    return LLM(settings, client=ScriptedClient(script, **kw))
