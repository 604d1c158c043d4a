"""The reference bots' HTTP exchange as a protocol handler sees it: the request, the response, what a bot says.

A *protocol handler* (`handle(FakeRequest) -> FakeResponse`) knows one chatbot technology's wire format and
nothing about sockets: the reference bots' server (`engine.bots.server`) mounts the Taskyto one
(`engine.bots.taskyto`) with a bot's runtime as its reply function; the tests mount the same handlers, and one
per other technology, on a socket server of their own (`tests/doubles/connectors/`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol
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


def read_request(handler: BaseHTTPRequestHandler) -> FakeRequest:
    """The request an HTTP server's `handler` is serving, body read."""
    length = int(handler.headers.get("Content-Length") or 0)
    body = handler.rfile.read(length) if length else b""
    return FakeRequest(handler.command, handler.path, dict(handler.headers.items()), body)


def write_response(handler: BaseHTTPRequestHandler, response: FakeResponse) -> None:
    """Send `response` (status, headers and body) through the HTTP server's `handler`."""
    handler.send_response(response.status)
    handler.send_header("Content-Type", response.content_type)
    handler.send_header("Content-Length", str(len(response.body)))
    for name, value in response.headers.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(response.body)
