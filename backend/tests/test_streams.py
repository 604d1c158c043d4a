"""Live updates (runs/http/streams.py) through a real uvicorn serving parley.asgi on a loopback port, reading the test
database: who may stream what, and that what the worker writes reaches an open stream within a second, through
PostgreSQL's NOTIFY (the triggers of runs/migrations/0007_live_notify.py)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from django.test import Client
from knox.models import AuthToken

from accounts.services import open_session
from runs.models import Conversation, Run, RunEvent
from runs.worker import bookkeeping
from tests.conftest import _database_url, stop_process
from tests.factories import RunFactory, UserFactory
from workspace.models import Connector, Project

BACKEND_DIR = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def stream_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """uvicorn serving parley.asgi on a free loopback port, on the test database; yields its base URL."""
    from django.db import connection

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "parley.settings_test",
        "DATABASE_URL": _database_url(connection.settings_dict),
        "PARLEY_STREAM_HEARTBEAT": "1",
    }
    log_path = (BACKEND_DIR / ".pytest_cache").resolve() / "uvicorn-streams.log"
    log_path.parent.mkdir(exist_ok=True)
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "uvicorn", "parley.asgi:application", "--host", "127.0.0.1"),
                *("--port", str(port), "--lifespan", "off", "--log-level", "warning"),
            ],
            cwd=BACKEND_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    if proc.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(f"uvicorn did not start; see {log_path}") from None
                    time.sleep(0.2)
            yield f"http://127.0.0.1:{port}"
        finally:
            stop_process(proc, timeout=15)


@dataclass
class Message:
    event: str
    data: object
    id: str | None
    at: float  # when it was read (time.monotonic())


class Stream:
    """An open event stream, read message by message."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.lines = response.iter_lines()
        self.comments = 0
        self.closed = False

    def next(self, seconds: float = 5.0) -> Message | None:
        """The next message, or None once the server closed the stream; fails after `seconds` of nothing."""
        deadline = time.monotonic() + seconds
        fields: dict[str, str] = {}
        while time.monotonic() < deadline:
            try:
                line = next(self.lines)
            except StopIteration:
                self.closed = True
                return None
            if line.startswith(":"):
                self.comments += 1
            elif line == "":
                if "event" in fields or "data" in fields:
                    data = json.loads(fields["data"]) if "data" in fields else None
                    return Message(fields.get("event", "message"), data, fields.get("id"), time.monotonic())
            else:
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")
        raise AssertionError(f"no message within {seconds} s")

    def until(self, wanted: Callable[[Message], bool], seconds: float = 5.0) -> Message:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = self.next(deadline - time.monotonic())
            if found is None:
                raise AssertionError("the stream ended first")
            if wanted(found):
                return found
        raise AssertionError(f"nothing wanted within {seconds} s")


@pytest.fixture
def open_stream(stream_url):
    clients: list[httpx.Client] = []

    def open_(path: str, token: str | None = None, **headers: str) -> tuple[httpx.Response, Stream | None]:
        if token:
            headers["Authorization"] = f"Token {token}"
        client = httpx.Client(base_url=stream_url, timeout=httpx.Timeout(10.0))
        clients.append(client)
        response = client.send(client.build_request("GET", path, headers=headers), stream=True)
        if response.status_code != 200:
            response.read()
            return response, None
        return response, Stream(response)

    yield open_
    for client in clients:
        client.close()


@pytest.fixture
def owner():
    user = UserFactory()
    user.token = open_session(user)["token"]
    return user


def _project(owner, *, public: bool) -> Project:
    connector = Connector.objects.create(owner=owner, name="c", technology="demo", params={"bot": "pizza"})
    return Project.objects.create(owner=owner, name="p", connector=connector, public=public)


def test_the_owner_streams_a_run_and_an_appended_event_arrives_within_a_second(open_stream, owner):
    run = RunFactory(owner=owner, kind=Run.Kind.SENSEI, project=_project(owner, public=False))
    response, stream = open_stream(f"/api/stream/runs/{run.pk}/", owner.token)
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["x-accel-buffering"] == "no"
    first = stream.next()
    assert first.event == "run"
    assert first.data["id"] == run.pk and first.data["status"] == "queued" and first.data["is_owner"] is True

    written = time.monotonic()
    event = RunEvent.objects.create(
        run=run, type="message", data={"profile": "p", "index": 0, "role": "user", "text": "hi"}
    )
    got = stream.until(lambda m: m.event == "events")
    assert [e["id"] for e in got.data] == [event.pk]
    assert got.data[0]["data"]["text"] == "hi"
    assert got.id == str(event.pk)  # the cursor a reconnecting client sends back as Last-Event-ID
    assert got.at - written < 1.0

    Run.objects.filter(pk=run.pk).update(progress_done=1, progress_total=4, stage="simulating")
    changed = stream.until(lambda m: m.event == "run")
    assert changed.data["progress"] == {"done": 1, "total": 4}
    assert changed.data["stage"] == "simulating"
    # Every message carries the cursor: the browser's client forgets Last-Event-ID on a message without one.
    assert changed.id == str(event.pk)


def test_an_event_that_commits_after_a_later_one_still_arrives(open_stream, owner):
    """SENSEI's conversations write side by side: an event can commit after one with a higher id."""
    import psycopg

    from runs.http.live import conninfo

    run = RunFactory(owner=owner)
    _, stream = open_stream(f"/api/stream/runs/{run.pk}/", owner.token)
    stream.next()
    with psycopg.connect(conninfo()) as slow:
        earlier = slow.execute(
            "INSERT INTO runs_runevent (run_id, type, visibility, data, created_at) "
            "VALUES (%s, 'stage', 'public', '{\"stage\": \"slow\"}', now()) RETURNING id",
            (run.pk,),
        ).fetchone()[0]
        later = RunEvent.objects.create(run=run, type="stage", data={"stage": "fast"})
        assert earlier < later.pk
        assert [e["id"] for e in stream.until(lambda m: m.event == "events").data] == [later.pk]
        slow.commit()
    assert [e["id"] for e in stream.until(lambda m: m.event == "events").data] == [earlier]


def test_owner_only_events_reach_the_owner_only(open_stream, owner):
    run = RunFactory(owner=owner, project=_project(owner, public=True))
    RunEvent.objects.create(
        run=run, type="log", visibility=RunEvent.Visibility.OWNER, data={"text": "secret"}
    )
    RunEvent.objects.create(run=run, type="stage", data={"stage": "exploring"})
    _, mine = open_stream(f"/api/stream/runs/{run.pk}/", owner.token)
    _, theirs = open_stream(f"/api/stream/runs/{run.pk}/")
    assert [e["type"] for e in mine.until(lambda m: m.event == "events").data] == ["log", "stage"]
    assert [e["type"] for e in theirs.until(lambda m: m.event == "events").data] == ["stage"]


def test_a_stream_starts_after_the_cursor_it_is_given(open_stream, owner):
    run = RunFactory(owner=owner)
    old = RunEvent.objects.create(run=run, type="stage", data={"stage": "a"})
    new = RunEvent.objects.create(run=run, type="stage", data={"stage": "b"})
    _, stream = open_stream(f"/api/stream/runs/{run.pk}/?after={old.pk}", owner.token)
    assert [e["id"] for e in stream.until(lambda m: m.event == "events").data] == [new.pk]
    _, resumed = open_stream(f"/api/stream/runs/{run.pk}/", owner.token, **{"Last-Event-ID": str(new.pk)})
    assert resumed.next().event == "run"
    RunEvent.objects.create(run=run, type="stage", data={"stage": "c"})
    assert [e["data"]["stage"] for e in resumed.until(lambda m: m.event == "events").data] == ["c"]


def test_the_stream_ends_once_the_run_is_final(open_stream, owner):
    run = RunFactory(owner=owner)
    _, stream = open_stream(f"/api/stream/runs/{run.pk}/", owner.token)
    assert stream.next().data["status"] == "queued"
    assert bookkeeping.start(run.pk) is not None
    assert stream.until(lambda m: m.event == "run").data["status"] == "running"
    RunEvent.objects.create(run=run, type="stage", data={"stage": "last words"})
    assert bookkeeping.succeed(run.pk, {"pong": True})
    messages = [stream.next(), stream.next(), stream.next()]
    assert [m.event for m in messages] == ["events", "run", "end"]  # the last lines come before the status
    assert messages[1].data["status"] == "succeeded" and messages[1].data["result"]["pong"] is True
    assert messages[2].data == {"status": "succeeded"}
    assert stream.next() is None and stream.closed


def test_a_finished_run_streams_its_state_and_ends_at_once(open_stream, owner):
    run = RunFactory(owner=owner, status=Run.Status.FAILED, error_message="boom")
    _, stream = open_stream(f"/api/stream/runs/{run.pk}/", owner.token)
    assert [(m.event, m.data) for m in (stream.next(), stream.next())] == [
        ("run", stream_run_document(run, owner)),
        ("end", {"status": "failed"}),
    ]


def stream_run_document(run: Run, viewer) -> dict:
    client = Client(headers={"Authorization": f"Token {viewer.token}"})
    return client.get(f"/api/runs/{run.pk}/").json()


def test_a_stored_conversation_is_announced(open_stream, owner):
    run = RunFactory(owner=owner, kind=Run.Kind.SENSEI)
    _, stream = open_stream(f"/api/stream/runs/{run.pk}/", owner.token)
    stream.next()
    Conversation.objects.create(run=run, profile="p", index=0, record={})
    assert stream.until(lambda m: m.event == "conversations").data == {}


def test_a_stranger_gets_the_detail_endpoints_404(open_stream, owner):
    run = RunFactory(owner=owner, project=_project(owner, public=False))
    stranger = UserFactory()
    response, _ = open_stream(f"/api/stream/runs/{run.pk}/", open_session(stranger)["token"])
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found.", "code": "not_found"}
    anonymous, _ = open_stream(f"/api/stream/runs/{run.pk}/")
    assert anonymous.status_code == 404
    missing, _ = open_stream(f"/api/stream/runs/{run.pk + 1000}/", owner.token)
    assert missing.status_code == 404


def test_a_bad_token_is_refused_like_the_api_refuses_it(open_stream, owner):
    run = RunFactory(owner=owner, project=_project(owner, public=True))
    response, _ = open_stream(f"/api/stream/runs/{run.pk}/", "not-a-token")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Token"


def test_a_public_run_streams_to_anyone_without_owner_rights(open_stream, owner):
    run = RunFactory(owner=owner, project=_project(owner, public=True))
    _, anonymous = open_stream(f"/api/stream/runs/{run.pk}/")
    assert anonymous.next().data["is_owner"] is False
    _, stranger = open_stream(f"/api/stream/runs/{run.pk}/", open_session(UserFactory())["token"])
    assert stranger.next().data["is_owner"] is False


def test_a_run_made_private_stops_streaming_to_others(open_stream, owner):
    run = RunFactory(owner=owner, project=_project(owner, public=True))
    _, stream = open_stream(f"/api/stream/runs/{run.pk}/")
    stream.next()
    Project.objects.filter(pk=run.project_id).update(public=False)
    RunEvent.objects.create(run=run, type="stage", data={"stage": "hidden"})
    assert stream.until(lambda m: m.event == "end").data == {"status": "gone"}


def test_quiet_streams_send_heartbeats(open_stream, owner):
    run = RunFactory(owner=owner)
    _, stream = open_stream(f"/api/stream/runs/{run.pk}/", owner.token)
    stream.next()
    time.sleep(2.5)  # PARLEY_STREAM_HEARTBEAT is 1 s in this server
    Run.objects.filter(pk=run.pk).update(stage="later")
    stream.until(lambda m: m.event == "run")
    assert stream.comments >= 3  # ": connected" and at least two heartbeats


def test_a_signed_out_session_stops_its_streams_at_the_next_heartbeat(open_stream, owner):
    # Logging out (or revoking the token) must not leave an open stream that keeps telling what happens.
    run = RunFactory(owner=owner)
    _, one = open_stream(f"/api/stream/runs/{run.pk}/", owner.token)
    _, runs = open_stream("/api/stream/runs/", owner.token)
    assert one.next().event == "run"
    AuthToken.objects.filter(user=owner).delete()
    RunEvent.objects.create(run=run, type="stage", data={"stage": "after the logout"})
    assert one.until(lambda m: m.event == "reconnect", seconds=5).event == "reconnect"
    assert runs.until(lambda m: m.event == "reconnect", seconds=5).event == "reconnect"
    assert one.next() is None and runs.next() is None  # ended by the server
    response, _ = open_stream(f"/api/stream/runs/{run.pk}/", owner.token)
    assert response.status_code == 401  # and the reconnection is refused


def test_the_runs_list_stream_names_changed_runs_to_those_who_may_see_them(open_stream, owner):
    stranger = UserFactory()
    _, mine = open_stream("/api/stream/runs/", owner.token)
    _, theirs = open_stream("/api/stream/runs/", open_session(stranger)["token"])
    _, public = open_stream("/api/stream/runs/")
    private = RunFactory(owner=owner)
    assert mine.until(lambda m: m.event == "runs").data == {"runs": [private.pk]}
    shown = RunFactory(owner=owner, project=_project(owner, public=True))
    assert shown.pk in public.until(lambda m: m.event == "runs").data["runs"]
    assert theirs.until(lambda m: m.event == "runs").data == {"runs": [shown.pk]}  # never the private one


def test_streams_refuse_other_methods_and_wsgi(owner):
    run = RunFactory(owner=owner)
    client = Client(headers={"Authorization": f"Token {owner.token}"})
    # The test client is WSGI: a stream there would hold a sync worker for its whole life.
    refused = client.get(f"/api/stream/runs/{run.pk}/")
    assert refused.status_code == 503
    assert refused.json()["code"] == "not_streamable"
    assert client.post(f"/api/stream/runs/{run.pk}/").status_code == 405


def _close_reader_connections() -> None:
    """The stream readers' threads keep their database connections; close them so the test database can go."""
    import threading

    from django.conf import settings
    from django.db import connections

    from runs.http import streams

    size = settings.STREAM_DB_THREADS
    everyone = threading.Barrier(size)

    def close() -> None:
        everyone.wait(timeout=10)  # one call per thread: none may take two while another takes none
        connections.close_all()

    for future in [streams._reader_pool().submit(close) for _ in range(size)]:
        future.result(timeout=15)


def test_a_client_that_goes_away_leaves_nothing_behind(owner):
    """Django cancels the stream when the client disconnects: its subscription goes, so a hundred closed tabs
    do not leave a hundred watchers behind."""
    import asyncio

    from parley.asgi import application
    from runs.http import live

    run = RunFactory(owner=owner)

    async def scenario() -> None:
        hub = live.hub()
        body: list[bytes] = []
        gone = asyncio.Event()
        requested = False

        async def receive() -> dict:
            nonlocal requested
            if not requested:
                requested = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            body.append(message.get("body", b""))

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": f"/api/stream/runs/{run.pk}/",
            "raw_path": f"/api/stream/runs/{run.pk}/".encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"127.0.0.1"), (b"authorization", f"Token {owner.token}".encode())],
            "client": ("127.0.0.1", 40000),
            "server": ("127.0.0.1", 80),
        }
        served = asyncio.create_task(application(scope, receive, send))
        for _ in range(100):
            if b"event: run" in b"".join(body):
                break
            await asyncio.sleep(0.05)
        assert b"event: run" in b"".join(body)
        assert hub.subscriptions == 1
        gone.set()
        await asyncio.wait_for(served, 5)
        assert hub.subscriptions == 0
        await hub.close()

    try:
        asyncio.run(scenario())
    finally:
        _close_reader_connections()
