"""A tiny threaded HTTP server on 127.0.0.1 that hands every request to a protocol handler.

The split is deliberate: a *protocol handler* (`handle(FakeRequest) -> FakeResponse`) knows a chatbot
technology's wire format and nothing about sockets; `FakeServer` knows sockets and nothing about chatbots.
The reference-bots HTTP server can mount the same handlers. For tests the server also records every request
(`requests`), adds latency, and lets a test script the next answers (`inject`) to simulate 500s, HTML pages,
bad JSON or a hang — whatever the protocol.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Protocol, Self
from urllib.parse import parse_qs, urlsplit

from pydantic import JsonValue


@dataclass(frozen=True)
class ScriptedReply:
    """What a fake bot says in one turn: messages, and buttons as (label, value) pairs."""

    messages: list[str]
    buttons: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, value: str | list[str] | ScriptedReply) -> ScriptedReply:
        if isinstance(value, ScriptedReply):
            return value
        return cls([value] if isinstance(value, str) else list(value))


Reply = Callable[[str, str], str | list[str] | ScriptedReply]
"""A fake bot's logic: `reply(session_id, user_text)`; raising an exception makes the turn fail (HTTP 500)."""


@dataclass(frozen=True)
class FakeRequest:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes
    received_at: float = field(default_factory=time.monotonic)  # when the server read it (monotonic clock)

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, str]:
        return {k: v[-1] for k, v in parse_qs(urlsplit(self.target).query, keep_blank_values=True).items()}

    def header(self, name: str) -> str | None:
        lowered = name.lower()
        return next((v for k, v in self.headers.items() if k.lower() == lowered), None)

    def json(self) -> Any:
        """The decoded body; raises ValueError when it is not JSON."""
        return json.loads(self.body.decode("utf-8"))


@dataclass(frozen=True)
class FakeResponse:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0

    @classmethod
    def json(cls, data: JsonValue, status: int = 200, **kwargs: Any) -> FakeResponse:
        return cls(status, json.dumps(data).encode(), **kwargs)

    @classmethod
    def html(cls, status: int, title: str) -> FakeResponse:
        page = f"<!doctype html>\n<html><head><title>{title}</title></head><body><h1>{title}</h1></body></html>\n"
        return cls(status, page.encode(), content_type="text/html; charset=utf-8")

    @classmethod
    def text(cls, body: str, status: int = 200, content_type: str = "application/json") -> FakeResponse:
        return cls(status, body.encode(), content_type=content_type)


class ProtocolHandler(Protocol):
    def handle(self, request: FakeRequest) -> FakeResponse: ...


@dataclass
class _Injection:
    response: FakeResponse
    path_contains: str
    times: int


class FakeServer:
    """Serves `handler` on 127.0.0.1:<free port> in a background thread; use as a context manager."""

    def __init__(self, handler: ProtocolHandler, *, latency_s: float = 0.0) -> None:
        self.handler = handler
        self.latency_s = latency_s
        self.requests: list[FakeRequest] = []
        self._injections: list[_Injection] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake server is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def inject(self, response: FakeResponse, *, path_contains: str = "", times: int = 1) -> None:
        """Answer the next `times` requests whose path contains `path_contains` with `response` instead."""
        with self._lock:
            self._injections.append(_Injection(response, path_contains, times))

    def requests_to(self, path_contains: str) -> list[FakeRequest]:
        with self._lock:
            return [r for r in self.requests if path_contains in r.path]

    def _respond(self, request: FakeRequest) -> FakeResponse:
        with self._lock:
            self.requests.append(request)
            for injection in self._injections:
                if injection.path_contains in request.path and injection.times > 0:
                    injection.times -= 1
                    return injection.response
        return self.handler.handle(request)

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)

    def start(self) -> Self:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = FakeRequest(self.command, self.path, dict(self.headers.items()), body)
                response = fake._respond(request)
                fake._sleep(fake.latency_s + response.delay_s)
                if fake._stopping.is_set():
                    return
                self.send_response(response.status)
                self.send_header("Content-Type", response.content_type)
                self.send_header("Content-Length", str(len(response.body)))
                for name, value in response.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(response.body)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that timed out and hung up is expected here, not an error

        self._server = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="fake-chatbot", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
