"""The offline provider over HTTP: a fake OpenAI-compatible server, as strict as the provider it stands for.

`POST /v1/chat/completions` is answered by the strict protocol double (`engine.llm.offline.protocol`): OpenAI's
rules by default (`provider="gemini"` or `"local"` for the others), so it refuses what the real API refuses,
answers 429 with `Retry-After`, returns refusals and empty answers when scripted, and wraps JSON in prose outside
strict JSON-schema mode. `GET /v1/models` lists the models it serves; any other model is a 404. Answers follow a
script keyed by caller tag (format in `engine.llm.offline.script`); the server learns the tag from the
`X-Parley-Tag` header the gateway sends on every call, or from the schema or tool name of a structured call.

Faults can be scripted per tag or injected for the next N calls (`inject`). Every request is recorded
(`requests`), and the highest number of requests handled at once is kept (`max_in_flight`).

In-process (pytest)::

    with running_fake_server({"tracer.extract": {"json": {...}}}) as server:
        config = ProviderConfig("openai-compatible", base_url=server.base_url, model="gpt-5-mini")

From another process: `python -m engine.llm.offline.server --port P [--latency S] [--script FILE]
[--provider openai|gemini|local]`. The first line on stdout is the base URL once the server listens. Other
processes can steer it over HTTP: `POST /_fake/script {"tag": ..., "replies": [...]}`,
`POST /_fake/inject {"fault": ..., "times": N, ...}`, `GET /_fake/requests`, `POST /_fake/reset`.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from engine.llm.client import TAG_HEADER
from engine.llm.offline.protocol import ProviderDouble, ProviderKind, requested_schema
from engine.llm.offline.script import FAULTS, Reply, Script, as_mapping, load_script

# The models the fake server lists and serves: two neutral names and the OpenAI models the tests exercise.
DEFAULT_MODELS = (
    "fake-model",
    "fake-model-mini",
    "gpt-4o-mini",
    "gpt-4.1-mini",
    "gpt-5-mini",
    "o4-mini",
)


@dataclass
class ReceivedRequest:
    """One request as the server saw it: header names in lower case, `body` parsed from JSON (or None)."""

    method: str
    path: str
    tag: str
    headers: dict[str, str]
    body: Any
    started: float
    finished: float | None = None
    status: int | None = None
    error: Any = None  # the error body, when the server refused or failed the request

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []


@dataclass
class _Injected:
    spec: dict[str, Any]
    remaining: int
    tag: str | None = None


class FakeLLMServer:
    """The server's state and lifecycle; handlers read and update it under one lock. The protocol rules and
    the script live in `double`; `json_schema_supported` and friends are forwarded to it."""

    def __init__(
        self,
        script: Script | None = None,
        *,
        latency_s: float = 0.0,
        api_key: str | None = None,
        models: tuple[str, ...] = DEFAULT_MODELS,
        provider: ProviderKind = "openai",
        host: str = "127.0.0.1",
        port: int = 0,
        **rules: Any,
    ) -> None:
        self.double = ProviderDouble(
            provider=provider, script=script, models=models, api_key=api_key, **rules
        )
        self.latency_s = latency_s
        self.host = host
        self.port = port
        self.requests: list[ReceivedRequest] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._injected: list[_Injected] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # -- rules, forwarded to the double ---------------------------------------------------------------------

    @property
    def models(self) -> tuple[str, ...]:
        return self.double.models or ()

    @models.setter
    def models(self, value: tuple[str, ...]) -> None:
        self.double.models = tuple(value)

    @property
    def api_key(self) -> str | None:
        return self.double.api_key

    @property
    def json_schema_supported(self) -> bool:
        return self.double.json_schema_supported

    @json_schema_supported.setter
    def json_schema_supported(self, value: bool) -> None:
        self.double.json_schema_supported = value

    @property
    def player(self) -> Any:
        return self.double.player

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> FakeLLMServer:
        httpd = ThreadingHTTPServer((self.host, self.port), _handler_for(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self.port = int(httpd.server_address[1])
        thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name="fake-llm-server", daemon=True
        )
        thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    # -- steering ----------------------------------------------------------------------------------------

    def set_replies(self, tag: str, replies: Reply | list[Reply]) -> None:
        self.double.set_replies(tag, replies)

    def inject(self, fault: str, *, times: int = 1, tag: str | None = None, **options: Any) -> None:
        """Make the next `times` calls (of `tag`, or of any tag) fail with `fault` (see the script format)."""
        spec = as_mapping({"fault": fault, **options})
        with self._lock:
            self._injected.append(_Injected(spec, times, tag))

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._injected.clear()
            self.max_in_flight = 0
        self.double.player.clear()

    def chat_requests(self, tag: str | None = None) -> list[ReceivedRequest]:
        with self._lock:
            found = [r for r in self.requests if r.path.endswith("/chat/completions")]
        return [r for r in found if tag is None or r.tag == tag]

    def refused(self, param: str | None = None) -> list[ReceivedRequest]:
        """Chat requests answered 400 (for `param`: those whose error names that parameter)."""
        found = [r for r in self.chat_requests() if r.status == 400]
        return found if param is None else [r for r in found if param in json.dumps(r.error or {})]

    # -- used by the handler -----------------------------------------------------------------------------

    def _record(self, request: ReceivedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _take_injected(self, tag: str) -> dict[str, Any] | None:
        with self._lock:
            for item in self._injected:
                if item.remaining > 0 and item.tag in (None, tag):
                    item.remaining -= 1
                    return dict(item.spec)
            return None


@contextmanager
def running_fake_server(
    script: Script | None = None, *, port: int = 0, **options: Any
) -> Iterator[FakeLLMServer]:
    """Start a fake server for the duration of a `with` block; `server.base_url` is what clients use."""
    server = FakeLLMServer(script, port=port, **options).start()
    try:
        yield server
    finally:
        server.stop()


def _handler_for(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        state = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    state: FakeLLMServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests assert on recorded requests, not on access logs."""

    # -- plumbing ------------------------------------------------------------------------------------------

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def _send(
        self, status: int, payload: Any, headers: dict[str, str] | None = None, raw: bytes | None = None
    ) -> None:
        body = raw if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _bearer(self) -> str:
        return (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()

    # -- routes --------------------------------------------------------------------------------------------

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            key = self.state.api_key
            if key is not None and self._bearer() != key:
                reply = self.state.double.handle({}, tag="", bearer=self._bearer())
                self._send(reply.status, reply.body, reply.headers)
                return
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "parley-fake"}
                for m in self.state.models
            ]
            self._send(200, {"object": "list", "data": data})
        elif self.path == "/_fake/requests":
            self._send(200, [asdict(r) for r in self.state.requests])
        else:
            self._send(404, {"error": {"message": f"No route {self.path}.", "type": "not_found"}})

    def do_POST(self) -> None:
        body = self._read_json()
        if self.path.rstrip("/") == "/v1/chat/completions":
            self._chat(body)
        elif self.path == "/_fake/script" and isinstance(body, dict):
            self.state.set_replies(str(body["tag"]), body["replies"])
            self._send(200, {"ok": True})
        elif self.path == "/_fake/inject" and isinstance(body, dict):
            options = {k: v for k, v in body.items() if k not in ("fault", "times", "tag")}
            self.state.inject(
                str(body["fault"]), times=int(body.get("times", 1)), tag=body.get("tag"), **options
            )
            self._send(200, {"ok": True})
        elif self.path == "/_fake/reset":
            self.state.reset()
            self._send(200, {"ok": True})
        else:
            self._send(404, {"error": {"message": f"No route {self.path}.", "type": "not_found"}})

    def _chat(self, body: Any) -> None:
        state = self.state
        _, schema_name, _ = requested_schema(body)
        tag = self.headers.get(TAG_HEADER) or schema_name or ""
        headers = {name.lower(): value for name, value in self.headers.items()}
        received = ReceivedRequest("POST", self.path, tag, headers, body, time.time())
        state._record(received)
        state._enter()
        try:
            injected = state._take_injected(tag)
            reply = state.double.handle(body, tag=tag, bearer=self._bearer(), injected=injected)
            time.sleep(state.latency_s + reply.delay_s)
            # Recorded before the answer leaves: a client that has read it may look at the record at once.
            received.status = reply.status
            received.error = reply.body if reply.status >= 400 else None
            self._send(reply.status, reply.body, reply.headers, raw=reply.raw)
        finally:
            state._leave()
            received.finished = time.time()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.llm.offline.server", description="A fake OpenAI-compatible LLM server."
    )
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free port)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--latency", type=float, default=0.0, metavar="S", help="seconds to wait before answering"
    )
    parser.add_argument("--script", metavar="FILE", help="YAML or JSON script: caller tag → replies")
    parser.add_argument("--api-key", help="answer 401 to any other key")
    parser.add_argument("--no-json-schema", action="store_true", help="refuse JSON-schema response formats")
    parser.add_argument(
        "--provider",
        choices=("openai", "gemini", "local"),
        default="openai",
        help="whose API rules to follow",
    )
    args = parser.parse_args(argv)
    script = load_script(args.script) if args.script else None
    server = FakeLLMServer(
        script,
        latency_s=args.latency,
        api_key=args.api_key,
        provider=args.provider,
        json_schema_supported=not args.no_json_schema,
        host=args.host,
        port=args.port,
    ).start()
    sys.stdout.write(f"{server.base_url}\n")
    sys.stdout.flush()
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        stopped.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


__all__ = ["DEFAULT_MODELS", "FAULTS", "FakeLLMServer", "ReceivedRequest", "main", "running_fake_server"]

if __name__ == "__main__":
    sys.exit(main())
