"""A fake OpenAI-compatible server for tests of everything that calls an LLM over HTTP.

Speaks just enough of the protocol: `POST /v1/chat/completions` (with usage, JSON-schema response formats
and forced tool calls) and `GET /v1/models`. Answers follow a script keyed by caller tag (format in
`engine.llm.testing.script`). The server learns the tag from the `X-Parley-Tag` header that the gateway
sends on every call, and falls back to the schema or tool name of a structured call (the tag with dots
turned into underscores), so scripts work for clients that send no header too.

Faults can be scripted per tag or injected for the next N calls (`inject`). Every request is recorded
(`requests`), and the highest number of requests handled at once is kept (`max_in_flight`).

In-process (pytest)::

    with running_fake_server({"tracer.extract": {"json": {...}}}) as server:
        config = ProviderConfig("openai-compatible", base_url=server.base_url, model="fake-model")

From another process: `python -m engine.llm.testing.fake_server --port P [--latency S] [--script FILE]`.
The first line on stdout is the base URL once the server listens. Other processes can steer it over HTTP:
`POST /_fake/script {"tag": ..., "replies": [...]}`, `POST /_fake/inject {"fault": ..., "times": N, ...}`,
`GET /_fake/requests`, `POST /_fake/reset`.
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
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from engine.llm.client import TAG_HEADER
from engine.llm.testing.script import (
    FAULTS,
    Reply,
    Script,
    ScriptPlayer,
    as_mapping,
    estimate_tokens,
    load_script,
    reply_text,
)

DEFAULT_MODELS = ("fake-model", "fake-model-mini")


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

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", [])) if isinstance(self.body, dict) else []


@dataclass
class _Injected:
    spec: dict[str, Any]
    remaining: int
    tag: str | None = None


@dataclass
class FakeLLMServer:
    """The server's state and lifecycle; handlers read and update it under one lock."""

    script: Script | None = None
    latency_s: float = 0.0
    # When set, any other bearer token is answered 401 (and echoed back, the way real providers do).
    api_key: str | None = None
    models: tuple[str, ...] = DEFAULT_MODELS
    json_schema_supported: bool = True
    host: str = "127.0.0.1"
    port: int = 0
    player: ScriptPlayer = field(init=False)
    requests: list[ReceivedRequest] = field(init=False, default_factory=list)
    max_in_flight: int = field(init=False, default=0)
    _in_flight: int = field(init=False, default=0)
    _injected: list[_Injected] = field(init=False, default_factory=list)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = field(init=False, default=None)
    _thread: threading.Thread | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.player = ScriptPlayer(self.script)

    # -- lifecycle ---------------------------------------------------------------------------------------

    def start(self) -> FakeLLMServer:
        httpd = ThreadingHTTPServer((self.host, self.port), _handler_for(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self.port = int(httpd.server_address[1])
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name="fake-llm-server", daemon=True
        )
        self._thread.start()
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
        self.player.set(tag, replies)

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
        self.player.clear()

    def chat_requests(self, tag: str | None = None) -> list[ReceivedRequest]:
        with self._lock:
            found = [r for r in self.requests if r.path.endswith("/chat/completions")]
        return [r for r in found if tag is None or r.tag == tag]

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
    server = FakeLLMServer(script=script, port=port, **options).start()
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

    def _error(self, status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> None:
        self._send(status, {"error": {"message": message, "type": kind, "code": kind}}, headers)

    # -- routes --------------------------------------------------------------------------------------------

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            if not self._authorised():
                return
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "parley-fake"}
                for m in self.state.models
            ]
            self._send(200, {"object": "list", "data": data})
        elif self.path == "/_fake/requests":
            self._send(200, [asdict(r) for r in self.state.requests])
        else:
            self._error(404, f"No route {self.path}.", "not_found")

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
            self._error(404, f"No route {self.path}.", "not_found")

    def _authorised(self) -> bool:
        expected = self.state.api_key
        presented = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        if expected is None or presented == expected:
            return True
        # Real providers echo (part of) the wrong key; doing the same lets tests prove it gets redacted.
        self._error(401, f"Incorrect API key provided: {presented}.", "invalid_api_key")
        return False

    def _chat(self, body: Any) -> None:
        state = self.state
        json_schema, schema_name, use_tools = _requested_schema(body)
        tag = self.headers.get(TAG_HEADER) or schema_name or ""
        headers = {name.lower(): value for name, value in self.headers.items()}
        received = ReceivedRequest("POST", self.path, tag, headers, body, time.time())
        state._record(received)
        state._enter()
        try:
            status = self._answer(body, tag, json_schema, schema_name, use_tools=use_tools)
        finally:
            state._leave()
            received.finished = time.time()
        received.status = status

    def _answer(
        self,
        body: Any,
        tag: str,
        json_schema: dict[str, Any] | None,
        schema_name: str | None,
        *,
        use_tools: bool,
    ) -> int:
        state = self.state
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._error(400, "The body must be a JSON object with a messages list.", "invalid_request_error")
            return 400
        if not self._authorised():
            return 401
        spec = state._take_injected(tag) or state.player.next(tag, schema_name or "") or {}
        time.sleep(state.latency_s + float(spec.get("delay", 2 if spec.get("fault") == "slow" else 0)))
        fault = spec.get("fault")
        if fault == "rate_limit":
            retry_after = str(spec.get("retry_after", 1))
            self._error(
                429, "Rate limit reached for requests.", "rate_limit_exceeded", {"Retry-After": retry_after}
            )
            return 429
        if fault == "server_error":
            status = int(spec.get("status", 500))
            message = str(spec.get("message", "The server had an error while processing your request."))
            self._error(status, message, "server_error")
            return status
        if fault == "auth":
            self._error(401, "Incorrect API key provided.", "invalid_api_key")
            return 401
        if fault == "malformed_body":
            self._send(200, None, raw=b'{"id": "chatcmpl-broken", "choices": [')
            return 200
        if json_schema is not None and not use_tools and not state.json_schema_supported:
            self._error(
                400,
                "response_format of type json_schema is not supported by this model.",
                "invalid_request_error",
            )
            return 400
        text = reply_text(spec, tag=tag, json_schema=json_schema)
        self._send(200, _completion(body, text, spec, schema_name if use_tools else None))
        return 200


def _requested_schema(body: Any) -> tuple[dict[str, Any] | None, str | None, bool]:
    """(schema, name, via tools?) of a structured call, or (None, None, False) for a plain one."""
    if not isinstance(body, dict):
        return None, None, False
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        return spec.get("schema"), spec.get("name"), False
    tools = body.get("tools")
    if isinstance(tools, list) and tools:
        function = tools[0].get("function", {})
        return function.get("parameters"), function.get("name"), True
    return None, None, False


def _completion(
    body: dict[str, Any], text: str, spec: dict[str, Any], tool_name: str | None
) -> dict[str, Any]:
    prompt = "".join(str(m.get("content") or "") for m in body["messages"] if isinstance(m, dict))
    usage = spec.get("usage") or {}
    prompt_tokens = int(usage.get("prompt_tokens", estimate_tokens(prompt)))
    completion_tokens = int(usage.get("completion_tokens", estimate_tokens(text)))
    message: dict[str, Any] = {"role": "assistant", "content": text}
    finish_reason = str(spec.get("finish_reason", "stop"))
    if tool_name is not None:
        call = {"id": "call_fake_1", "type": "function", "function": {"name": tool_name, "arguments": text}}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish_reason = str(spec.get("finish_reason", "tool_calls"))
    return {
        "id": f"chatcmpl-fake-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(body.get("model") or DEFAULT_MODELS[0]),
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.llm.testing.fake_server", description="A fake OpenAI-compatible LLM server."
    )
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free port)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--latency", type=float, default=0.0, metavar="S", help="seconds to wait before answering"
    )
    parser.add_argument("--script", metavar="FILE", help="YAML or JSON script: caller tag → replies")
    parser.add_argument("--api-key", help="answer 401 to any other key")
    parser.add_argument("--no-json-schema", action="store_true", help="refuse JSON-schema response formats")
    args = parser.parse_args(argv)
    script = load_script(args.script) if args.script else None
    server = FakeLLMServer(
        script=script,
        latency_s=args.latency,
        api_key=args.api_key,
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


__all__ = ["FAULTS", "FakeLLMServer", "ReceivedRequest", "main", "running_fake_server"]

if __name__ == "__main__":
    sys.exit(main())
