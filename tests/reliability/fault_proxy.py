"""A fault-injecting proxy in front of an OpenAI-compatible server, and a fake upstream for it.

:class:`FakeUpstream` is a tiny deterministic OpenAI-compatible server: ``/v1/chat/completions``
answers :func:`expected_answer` of the request (a fixed text per prompt hash, or that text as a
JSON object when a ``response_format`` is asked for), so the reliability suite needs no model.

:class:`FaultProxy` forwards requests to an upstream (the fake one, or a real local server) and
turns a set ``rate`` of them into faults: a hang past the client's timeout, 429 with
``Retry-After``, 500, a connection reset, ``{"choices": []}``, or a JSON body cut in half.
Whether a request faults is a hash of the request body and how often that body was seen before,
so a run faults the same requests whatever order its threads send them in. ``rate`` may be
changed while the proxy runs (0 heals it).

Both listen on 127.0.0.1 only, close idle connections after ``idle_s``, serve a bounded number of
requests per connection, and stop by themselves after ``lifetime_s`` if nobody stops them.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import socket
import struct
import threading
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

#: Every fault the proxy can inject, in the order a hash picks from.
FAULTS = ("timeout", "rate_limit", "server_error", "reset", "empty_choices", "truncated")
_MAX_BODY = 8 * 1024 * 1024  # bytes of one request body the servers read at most
_REQUESTS_PER_CONNECTION = 200


def canonical(body: bytes) -> str:
    """The request body as canonical JSON (the same call retried gives the same string)."""
    try:
        return json.dumps(json.loads(body), sort_keys=True, separators=(",", ":"))
    except (ValueError, UnicodeDecodeError):
        return body.decode("utf-8", "replace")


def body_key(body: bytes) -> str:
    """Names one request: sha256 of its canonical JSON body."""
    return hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()


def prompt_hash(messages: Any) -> str:
    """Names a prompt (the messages of a request, whatever its sampling settings)."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8")).hexdigest()


def expected_answer(request: dict[str, Any]) -> str:
    """What :class:`FakeUpstream` answers: ``answer-<hash of the messages>``, as JSON
    (``{"answer": ...}``) when the request asks for a ``response_format``."""
    text = "answer-" + prompt_hash(request.get("messages", []))[:12]
    return json.dumps({"answer": text}) if request.get("response_format") else text


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 64


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    owner: _Base  # set on the subclass made per server

    def setup(self) -> None:
        self.timeout = self.owner.idle_s  # an idle keep-alive connection is closed
        super().setup()
        self._served = 0

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _read_body(self) -> bytes:
        length = min(int(self.headers.get("Content-Length") or 0), _MAX_BODY)
        return self.rfile.read(length) if length else b""

    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self.send_bytes(status, json.dumps(payload).encode("utf-8"), headers)

    def send_bytes(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _bounded(self) -> bool:
        """Whether to serve this request: not once stopped; at most a bounded number per
        connection (a keep-alive loop ends)."""
        self._served += 1
        if self._served >= _REQUESTS_PER_CONNECTION or self.owner.stopping.is_set():
            self.close_connection = True
        return not self.owner.stopping.is_set()

    def do_GET(self) -> None:
        if self._bounded():
            self.owner.handle_get(self)

    def do_POST(self) -> None:
        if not self._bounded():
            return  # stopped: the connection closes unanswered
        body = self._read_body()
        try:
            self.owner.handle_post(self, body)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True


class _Base:
    """A threaded HTTP server on 127.0.0.1 that stops after ``lifetime_s`` at the latest."""

    def __init__(self, *, idle_s: float = 2.0, lifetime_s: float = 600.0) -> None:
        self.idle_s = idle_s
        self.lifetime_s = lifetime_s
        self.stopping = threading.Event()
        self.closed = threading.Event()  # set once the listening socket is closed
        handler = type(f"{type(self).__name__}Handler", (_Handler,), {"owner": self})
        self._server = _Server(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._serve, name=type(self).__name__, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The OpenAI-style base URL (``http://127.0.0.1:<port>/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        watchdog = threading.Timer(self.lifetime_s, self.stop)
        watchdog.daemon = True
        watchdog.start()
        try:
            self._server.serve_forever(poll_interval=0.1)
        finally:
            watchdog.cancel()

    def start(self) -> _Base:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake every hanging handler and close the socket (idempotent)."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._server.shutdown()
        self._server.server_close()
        self.closed.set()

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def handle_get(self, h: _Handler) -> None:
        h.send_json(404, {"error": {"message": "not found"}})

    def handle_post(self, h: _Handler, body: bytes) -> None:
        raise NotImplementedError


class FakeUpstream(_Base):
    """A deterministic OpenAI-compatible chat server (see :func:`expected_answer`).

    ``headers`` keeps the headers (names lower-cased) of every request it received.
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.requests = 0
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()

    def handle_get(self, h: _Handler) -> None:
        if h.path.rstrip("/").endswith("/models"):
            h.send_json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        else:
            super().handle_get(h)

    def handle_post(self, h: _Handler, body: bytes) -> None:
        with self._lock:
            self.requests += 1
            self.headers.append({k.lower(): v for k, v in h.headers.items()})
        if not h.path.rstrip("/").endswith("/chat/completions"):
            h.send_json(404, {"error": {"message": f"no route {h.path}"}})
            return
        try:
            request = json.loads(body)
        except ValueError:
            h.send_json(400, {"error": {"message": "body is not JSON"}})
            return
        text = expected_answer(request)
        words = sum(len(str(m.get("content", "")).split()) for m in request.get("messages", []))
        h.send_json(
            200,
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": request.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": words,
                    "completion_tokens": len(text.split()),
                    "total_tokens": words + len(text.split()),
                },
            },
        )


@dataclass(frozen=True)
class Seen:
    """One request the proxy received: its body key, its prompt's hash (:func:`prompt_hash`)
    and the fault it got (None: forwarded untouched)."""

    key: str
    prompt: str
    fault: str | None


class FaultProxy(_Base):
    """Forwards to ``upstream`` (a base URL), turning a ``rate`` of requests into faults.

    ``hang_s``: how long a ``timeout`` fault holds the request before dropping the connection
    (set it above the client's timeout). ``retry_after_s``: the 429 ``Retry-After`` header.
    ``seen`` lists every request in arrival order.
    """

    def __init__(
        self,
        upstream: str,
        *,
        rate: float = 0.2,
        faults: tuple[str, ...] = FAULTS,
        seed: int = 0,
        hang_s: float = 1.0,
        retry_after_s: float = 1.0,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        unknown = set(faults) - set(FAULTS)
        if unknown or not faults:
            raise ValueError(f"unknown faults {sorted(unknown)}; use some of {FAULTS}")
        parts = urlsplit(upstream)
        self.upstream_host = parts.hostname or "127.0.0.1"
        self.upstream_port = parts.port or 80
        self.rate = rate
        self.faults = faults
        self.seed = seed
        self.hang_s = hang_s
        self.retry_after_s = retry_after_s
        self.seen: list[Seen] = []
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    # ----------------------------------------------------------------- bookkeeping
    def _decide(self, key: str, prompt: str) -> str | None:
        with self._lock:
            n = self._counts[key]
            self._counts[key] += 1
            digest = hashlib.sha256(f"{self.seed}:{key}:{n}".encode()).digest()
            u = int.from_bytes(digest[:8], "big") / 2**64
            fault = self.faults[digest[8] % len(self.faults)] if u < self.rate else None
            self.seen.append(Seen(key, prompt, fault))
            return fault

    def requests_for(self, key: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.key == key]

    def fault_counts(self) -> Counter[str]:
        with self._lock:
            return Counter(s.fault for s in self.seen if s.fault)

    # --------------------------------------------------------------------- forward
    def _forward(self, h: _Handler, body: bytes) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=60)
        try:
            headers = {k: v for k, v in h.headers.items() if k.lower() not in ("host",)}
            conn.request(h.command, h.path, body=body or None, headers=headers)
            response = conn.getresponse()
            data = response.read()
            keep = {"Retry-After"} & set(response.headers.keys())
            return response.status, {k: response.headers[k] for k in keep}, data
        finally:
            conn.close()

    def handle_get(self, h: _Handler) -> None:
        status, headers, data = self._forward(h, b"")
        h.send_bytes(status, data, headers)

    def handle_post(self, h: _Handler, body: bytes) -> None:
        try:
            prompt = prompt_hash(json.loads(body).get("messages"))
        except (ValueError, AttributeError):
            prompt = ""
        fault = self._decide(body_key(body), prompt)
        if fault == "timeout":
            self.stopping.wait(self.hang_s)  # past the client's timeout, then drop
            h.close_connection = True
            return
        if fault == "reset":
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            h.close_connection = True
            h.connection.close()  # with linger 0, closing sends a TCP reset
            return
        if fault == "rate_limit":
            error = {"error": {"message": "rate limited (fault proxy)", "type": "rate_limit"}}
            h.send_json(429, error, {"Retry-After": f"{self.retry_after_s:g}"})
            return
        if fault == "server_error":
            h.send_json(500, {"error": {"message": "internal error (fault proxy)"}})
            return
        status, headers, data = self._forward(h, body)
        if fault == "empty_choices" and status == 200:
            payload = json.loads(data)
            payload["choices"] = []
            data = json.dumps(payload).encode("utf-8")
        elif fault == "truncated" and status == 200:
            data = data[: len(data) // 2]
        h.send_bytes(status, data, headers)


def faulty_endpoint(rate: float, **kw: Any) -> tuple[FakeUpstream, FaultProxy]:
    """A started fake upstream and a started proxy in front of it (stop both when done)."""
    upstream = FakeUpstream().start()
    proxy = FaultProxy(upstream.url, rate=rate, **kw).start()
    return upstream, proxy
