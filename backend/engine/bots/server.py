"""HTTP servers for the reference bots: Taskyto's protocol or a plain JSON one, with coverage and faults.

- `taskyto`: exactly the wire behaviour of `taskyto-serve` (TASKYTO-ALMITA-MORTAR.md §2), by mounting the
  connectors' `TaskytoProtocol` handler with the bot's runtime as its reply function. A stillborn mutant is
  served as Taskyto serves a bot whose state machine cannot be built: an HTML 500 on every `new`.
- `json`: `POST /chat {"session_id"?, "message"?}` -> `{"session_id", "messages": [..], "buttons": [..]}`.
  Without a session id a session is opened and its greeting returned (followed by the reply to `message`,
  if one was sent); an unknown session id is a JSON 404, a crash a JSON 500.
- Both: `GET /__coverage/<conversation id>` (that conversation's log and percentages) and `GET /__coverage`
  (the aggregate over every conversation so far, forgotten ones included).
- Faults: latency before every answer, HTTP 500 on the N-th user turn of every conversation, or on every N-th
  (turns N, 2N, 3N…; the conversation stays usable), forgetting every session after every N turns served
  (a restart), and a *flaky* bot: HTTP 500 on each user turn with probability `fail_rate`, drawn from a random
  generator seeded with `fault_seed` — the same seed and the same order of turns fail the same turns, so the
  reference bots have a mutant that fails only some of the time, reproducibly (pass^k and k-of-n are tested on
  it).

The socket layer is a stdlib `ThreadingHTTPServer` bound to the requested host and port; requests and
responses are the connectors' `FakeRequest`/`FakeResponse`, so the protocol handlers are shared.
"""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, Self

from engine.bots.coverage import CoverageStore
from engine.bots.definition import BotDefinition
from engine.bots.groundtruth import build_manifest
from engine.bots.registry import UnknownMutant, load_bot, mutants_of
from engine.bots.runtime import BotRuntime, Reply
from engine.bots.taskyto import TaskytoProtocol
from engine.bots.wire import (
    FakeRequest,
    FakeResponse,
    ProtocolHandler,
    ScriptedReply,
    read_request,
    write_response,
)

Protocol = Literal["taskyto", "json"]


@dataclass(frozen=True)
class Faults:
    """Fault injection: seconds of latency per request, the user turn (1-based, per conversation) that
    answers 500, every how many user turns one answers 500, after how many turns served (server-wide)
    every session is forgotten, and the probability that a user turn answers 500 (with its seed)."""

    latency_s: float = 0.0
    fail_on_turn: int | None = None
    forget_every: int | None = None
    fail_every: int | None = None
    fail_rate: float = 0.0
    fault_seed: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.fail_rate <= 1.0:
            raise ValueError("fail_rate is a probability, from 0 to 1")


class InjectedFailure(RuntimeError):
    """The failure `Faults.fail_on_turn` asks for."""


class UnknownSession(KeyError):
    pass


class BotSessions:
    """The runtimes of one bot's conversations, their coverage, and the fault bookkeeping."""

    def __init__(
        self,
        bot: BotDefinition | None,
        manifest_bot: BotDefinition,
        *,
        faults: Faults = Faults(),
        today: date | None = None,
    ) -> None:
        self.bot = bot
        self.faults = faults
        self.today = today
        self.coverage = CoverageStore(build_manifest(manifest_bot))
        self._runtimes: dict[str, BotRuntime] = {}
        self._turns: dict[str, int] = {}
        self._served = 0
        self._lock = threading.Lock()
        self._luck = random.Random(faults.fault_seed)  # noqa: S311 - a reproducible fault, not a secret
        self.on_forget: list[Any] = []

    @property
    def stillborn(self) -> bool:
        return self.bot is None

    def open(self, conversation_id: str) -> Reply:
        if self.bot is None:
            raise RuntimeError("the bot cannot start")
        runtime = BotRuntime(self.bot, conversation_id=conversation_id, today=self.today or date.today())
        greeting = runtime.start()
        with self._lock:
            self._runtimes[conversation_id] = runtime
            self._turns[conversation_id] = 0
        self.coverage.add(runtime.coverage)
        return greeting

    def known(self, conversation_id: str) -> bool:
        with self._lock:
            return conversation_id in self._runtimes

    def turn(self, conversation_id: str, text: str) -> Reply:
        with self._lock:
            runtime = self._runtimes.get(conversation_id)
            if runtime is None:
                raise UnknownSession(conversation_id)
            self._turns[conversation_id] += 1
            number = self._turns[conversation_id]
            # Drawn on every turn, so the sequence of failures depends only on the seed and the turns' order.
            unlucky = self.faults.fail_rate > 0 and self._luck.random() < self.faults.fail_rate
        try:
            if unlucky:
                raise InjectedFailure(
                    f"injected flaky failure on turn {number} (rate {self.faults.fail_rate})"
                )
            if self.faults.fail_on_turn is not None and number == self.faults.fail_on_turn:
                raise InjectedFailure(f"injected failure on turn {number}")
            if self.faults.fail_every and number % self.faults.fail_every == 0:
                raise InjectedFailure(f"injected failure on turn {number} (every {self.faults.fail_every})")
            return runtime.reply(text)
        finally:
            self._count_served()

    def _count_served(self) -> None:
        with self._lock:
            self._served += 1
            forget = self.faults.forget_every is not None and self._served % self.faults.forget_every == 0
        if forget:
            self.forget_all()

    def forget_all(self) -> None:
        with self._lock:
            self._runtimes.clear()
            self._turns.clear()
        for callback in self.on_forget:
            callback()


def _json(data: Any, status: int = 200) -> FakeResponse:
    return FakeResponse(status, (json.dumps(data, ensure_ascii=False) + "\n").encode())


class TaskytoBotProtocol:
    """Taskyto's protocol (the connectors' handler) in front of the bot's sessions."""

    def __init__(self, sessions: BotSessions) -> None:
        self.sessions = sessions
        greeting = sessions.bot.greeting.text if sessions.bot and sessions.bot.greeting.by == "bot" else None
        self.protocol = TaskytoProtocol(self._reply, greeting=greeting or "")
        self.protocol.fail_new = sessions.stillborn
        sessions.on_forget.append(self.protocol.forget_all)

    def _reply(self, conversation_id: str, text: str) -> ScriptedReply:
        if not self.sessions.known(conversation_id):
            self.sessions.open(conversation_id)  # the greeting is swallowed by the first turn, as in Taskyto
        reply = self.sessions.turn(conversation_id, text)
        return ScriptedReply(reply.messages, [(b, b) for b in reply.buttons])

    def handle(self, request: FakeRequest) -> FakeResponse:
        return self.protocol.handle(request)


class JsonChatProtocol:
    """`POST /chat {session_id?, message?}` -> `{session_id, messages, buttons}`."""

    def __init__(self, sessions: BotSessions) -> None:
        self.sessions = sessions

    def handle(self, request: FakeRequest) -> FakeResponse:
        if request.path != "/chat":
            return _json({"error": f"no route {request.path}"}, 404)
        if request.method != "POST":
            return _json({"error": "use POST"}, 405)
        try:
            body = request.json() if request.body else {}
        except ValueError:
            return _json({"error": "the body is not JSON"}, 400)
        if not isinstance(body, dict):
            return _json({"error": "the body must be a JSON object"}, 400)
        session = body.get("session_id")
        message = body.get("message")
        if session is not None and not isinstance(session, str):
            return _json({"error": "session_id must be a string"}, 400)
        if message is not None and not isinstance(message, str):
            return _json({"error": "message must be a string"}, 400)
        messages: list[str] = []
        buttons: list[str] = []
        if not session:
            if self.sessions.stillborn:
                return FakeResponse.html(500, "500 Internal Server Error")
            session = str(uuid.uuid4())
            greeting = self.sessions.open(session)
            messages, buttons = list(greeting.messages), list(greeting.buttons)
        elif not self.sessions.known(session):
            return _json({"error": f"unknown session {session}"}, 404)
        if message is not None:
            try:
                reply = self.sessions.turn(session, message)
            except UnknownSession:
                return _json({"error": f"unknown session {session}"}, 404)
            except Exception as exc:  # noqa: BLE001 - the bot's failure is the server's 500
                return _json({"error": f"the bot failed: {exc}", "session_id": session}, 500)
            messages += reply.messages
            buttons = list(reply.buttons)
        return _json({"session_id": session, "messages": messages, "buttons": buttons})


class CoverageRoutes:
    """`GET /__coverage[/<id>]` in front of a protocol handler."""

    def __init__(self, sessions: BotSessions, inner: ProtocolHandler) -> None:
        self.sessions = sessions
        self.inner = inner

    def handle(self, request: FakeRequest) -> FakeResponse:
        path = request.path
        if path == "/__coverage" or path.startswith("/__coverage/"):
            if request.method != "GET":
                return _json({"error": "use GET"}, 405)
            conversation = path.removeprefix("/__coverage").strip("/")
            if not conversation:
                return _json(self.sessions.coverage.aggregate())
            report = self.sessions.coverage.report(conversation)
            if report is None:
                return _json({"error": f"no conversation {conversation}"}, 404)
            return _json(report)
        return self.inner.handle(request)


class BotServer:
    """A ThreadingHTTPServer serving a protocol handler on host:port (0: any free port)."""

    def __init__(
        self, handler: ProtocolHandler, *, host: str = "127.0.0.1", port: int = 0, latency_s: float = 0.0
    ):
        self.handler = handler
        self.latency_s = latency_s
        self.host = host
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                response = server.handler.handle(read_request(self))
                if server.latency_s + response.delay_s > 0:
                    time.sleep(server.latency_s + response.delay_s)
                write_response(self, response)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

        self._httpd = Server((host, port), Handler)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def serve_forever(self) -> None:
        self._httpd.serve_forever(poll_interval=0.2)

    def start(self) -> Self:
        self._thread = threading.Thread(target=self.serve_forever, name="reference-bot", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def build_server(
    bot_id: str,
    *,
    mutant: str | None = None,
    protocol: Protocol = "taskyto",
    host: str = "127.0.0.1",
    port: int = 0,
    faults: Faults = Faults(),
    today: date | None = None,
) -> tuple[BotServer, BotSessions]:
    """A not-yet-started server for a bot or one of its mutants (a stillborn one is served as unstartable)."""
    original = load_bot(bot_id)
    definition: BotDefinition | None = original
    if mutant is not None:
        found = [m for m in mutants_of(bot_id) if m.id == mutant]
        if not found:
            raise UnknownMutant(
                f"{bot_id} has no mutant {mutant!r}; `parley bots mutants {bot_id}` lists them."
            )
        definition = found[0].definition
    sessions = BotSessions(definition, original, faults=faults, today=today)
    inner: ProtocolHandler = (
        TaskytoBotProtocol(sessions) if protocol == "taskyto" else JsonChatProtocol(sessions)
    )
    return BotServer(
        CoverageRoutes(sessions, inner), host=host, port=port, latency_s=faults.latency_s
    ), sessions
