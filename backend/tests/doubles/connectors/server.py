"""A tiny threaded HTTP server on 127.0.0.1 that hands every request to a protocol handler (tests only).

The split is deliberate: a *protocol handler* (`handle(FakeRequest) -> FakeResponse`, `engine.bots.wire`) knows a
chatbot technology's wire format and nothing about sockets; `FakeServer` knows sockets and nothing about chatbots.
The reference-bots HTTP server mounts the Taskyto handler itself. For tests the server also records every request
(`requests`), adds latency, and lets a test script the next answers (`inject`) to simulate 500s, HTML pages,
bad JSON or a hang — whatever the protocol.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from engine.bots.wire import (
    FakeRequest,
    FakeResponse,
    ProtocolHandler,
    Reply,
    ScriptedReply,
    read_request,
    write_response,
)

__all__ = ["FakeRequest", "FakeResponse", "FakeServer", "ProtocolHandler", "Reply", "ScriptedReply"]


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
                response = fake._respond(read_request(self))
                fake._sleep(fake.latency_s + response.delay_s)
                if fake._stopping.is_set():
                    return
                write_response(self, response)

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
