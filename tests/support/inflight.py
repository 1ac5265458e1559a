"""A remote endpoint's settings and a scripted server that counts the requests it answers at
once (the tests of requests in flight)."""

from __future__ import annotations

import threading
from dataclasses import replace

from ace_lab.config import Settings
from tests.support.replies import ace_reply


def remote(settings: Settings, concurrency: int) -> Settings:
    llm = replace(
        settings.llm, base_url="http://remote.invalid/v1", model="m", concurrency=concurrency
    )
    return replace(settings, llm=llm)


class Overlap:
    """Counts the requests a scripted server is answering at once (``peak``)."""

    def __init__(self) -> None:
        self.current = self.peak = 0
        self._lock = threading.Lock()

    def script(self, kwargs: dict) -> str:
        with self._lock:
            self.current += 1
            self.peak = max(self.peak, self.current)
        return ace_reply(kwargs)

    def served(self) -> None:  # runs after the client's delay, before the reply returns
        with self._lock:
            self.current -= 1
