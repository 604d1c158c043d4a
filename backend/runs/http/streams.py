"""/api/stream/: live updates as Server-Sent Events, from async views served by the ASGI process (parley/asgi.py).

`/api/stream/runs/{id}/` follows one run: its events as they are written (`events`, a JSON list, with the last
event id as the message id), the run as the detail endpoint shows it whenever it changes (`run`), a nudge when a
conversation was stored (`conversations`), and `end` once the run is final (or `gone` when it was deleted or is
no longer visible). `/api/stream/runs/` tells a visitor which of the runs they may see changed (`runs`), at most
once a second, so run lists refetch only then. Comment lines every PARLEY_STREAM_HEARTBEAT seconds keep proxies
from closing a quiet stream; after PARLEY_STREAM_MAX_SECONDS, or at the first heartbeat after its sign-in ended
(logout, a revoked or expired token), a stream says `reconnect` and ends.

Who sees what is the one visibility policy (workspace.visibility), as for the run endpoints: the owner, or anyone
for a run of a public project — strangers get the same 404 as the detail endpoint, only the owner gets owner-only
events, and a visitor's snapshot and events of every kind come without the chatbot's address.
Authentication is the API's own (the `Authorization` header, sent by a fetch-based client; never a token in the
URL, which nginx would log). Database reads run on a small pool of threads (PARLEY_STREAM_DB_THREADS), and the
streams watching one run share each read (runs.http.live.Hub.shared).
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import close_old_connections
from django.db.models import Count, Max, Q, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.settings import api_settings

from runs.http.live import RESYNC, Change, Hub, Unavailable, hub
from runs.http.serializers import RunEventSerializer, RunSerializer
from runs.models import Run, RunEvent
from runs.selectors import readable_runs
from workspace import visibility

T = TypeVar("T")

FINAL = frozenset({Run.Status.SUCCEEDED, Run.Status.FAILED, Run.Status.CANCELLED})
EVENTS_PER_READ = 500
# Writers insert events concurrently (SENSEI's conversations run in threads), so an event may commit shortly
# after one with a higher id: events younger than this are read again, and sent if they were not yet.
SETTLE_S = 2.0
LIST_INTERVAL_S = 1.0  # a runs-list stream speaks at most this often: each message makes the lists refetch
PREAMBLE = "retry: 2000\n: connected\n\n"  # sent at once, so the headers leave before the first change
HEARTBEAT = ": keep-alive\n\n"


@functools.cache
def _reader_pool() -> ThreadPoolExecutor:
    """One pool per process, made on first use."""
    return ThreadPoolExecutor(settings.STREAM_DB_THREADS, thread_name_prefix="parley-stream-db")


async def _read(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` on the readers' pool: the ORM is synchronous, and a stream must not hold a thread."""

    def call() -> T:
        close_old_connections()  # what Django does around each request: drop broken or too old connections
        return function(*args)

    return await sync_to_async(call, thread_sensitive=False, executor=_reader_pool())()


def message(event: str, data: str, *, id_: int | None = None) -> str:
    """One SSE message; `data` is compact JSON, which never holds a raw line break."""
    head = f"event: {event}\n" + (f"id: {id_}\n" if id_ is not None else "")
    return f"{head}data: {data}\n\n"


def _json(value: Any) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, separators=(",", ":"), ensure_ascii=False)


# --- who is asking -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Viewer:
    pk: int | None

    @property
    def authenticated(self) -> bool:
        return self.pk is not None


def _authenticate(request: HttpRequest) -> Viewer:
    """The API's own authentication classes (knox tokens today), so the streams accept what the API accepts."""
    drf_request = Request(
        request, authenticators=[cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES]
    )
    user = drf_request.user
    return Viewer(user.pk if user is not None and user.is_authenticated else None)


SessionCheck = Callable[[], Awaitable[bool]]


def _session_check(request: HttpRequest, viewer: Viewer) -> SessionCheck:
    """Whether the stream's sign-in still holds, asked at each heartbeat: after a logout, a revoked token or an
    expired one, the stream says `reconnect` and ends, and the reconnection is refused as the API refuses it."""

    async def check() -> bool:
        if not viewer.authenticated:
            return True
        try:
            return (await _read(_authenticate, request)).pk == viewer.pk
        except exceptions.APIException:
            return False

    return check


def _user_of(viewer: Viewer) -> Any:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User

    return User(pk=viewer.pk) if viewer.pk is not None else AnonymousUser()


def _visible_owner(viewer: Viewer, run_id: int) -> int | None:
    """The owner of run `run_id` if `viewer` may read it (the detail endpoint's rule), else None."""
    return readable_runs(_user_of(viewer)).filter(pk=run_id).values_list("owner_id", flat=True).first()


def _refusal(exc: exceptions.APIException) -> HttpResponse:
    code = exc.get_codes()
    response = JsonResponse(
        {"detail": str(exc.detail), "code": code if isinstance(code, str) else exc.default_code},
        status=exc.status_code,
    )
    if isinstance(exc, exceptions.AuthenticationFailed | exceptions.NotAuthenticated):
        response["WWW-Authenticate"] = "Token"
    return response


def _event_stream(body: AsyncIterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(body, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once (the location says so too)
    return response


# --- one run -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunState:
    status: str
    snapshot: str  # the run as GET /api/runs/{id}/ shows it to this audience, as JSON text
    events: list[tuple[int, float, str]]  # (id, written at, JSON text), oldest first
    full: bool  # a whole page of events: there may be more


def read_run(run_id: int, viewer: Viewer, owner_view: bool, floor: int) -> RunState | None:
    """The run and its events after `floor`, as `viewer` may see them (workspace.visibility: a visitor's view has
    no chatbot address in the run or in any event); None once it is gone or hidden."""
    run = (
        Run.objects.select_related("project__connector", "project__llm_key", "owner")
        .filter(pk=run_id)
        .first()
    )
    if run is None or not (owner_view or (run.project is not None and run.project.public)):
        return None
    user = _user_of(viewer)
    view = visibility.for_runs(user, run)
    snapshot = _json(RunSerializer(run, context={"request": SimpleNamespace(user=user)}).data)
    events = RunEvent.objects.filter(run_id=run_id, id__gt=floor)
    if not (owner_view and view.owner):
        events = events.filter(visibility=RunEvent.Visibility.PUBLIC)
    rows = list(events.order_by("id")[:EVENTS_PER_READ])
    return RunState(
        status=run.status,
        snapshot=snapshot,
        events=[
            (row.pk, row.created_at.timestamp(), _json(view.data(RunEventSerializer(row).data)))
            for row in rows
        ],
        full=len(rows) == EVENTS_PER_READ,
    )


class _Cursor:
    """Which events a stream has sent: everything up to `floor`, and the ids in `recent` above it."""

    def __init__(self, after: int) -> None:
        self.floor = after
        self.recent: dict[int, float] = {}

    def fresh(self, state: RunState) -> list[tuple[int, float, str]]:
        new = [event for event in state.events if event[0] not in self.recent]
        self.recent.update((event_id, written) for event_id, written, _ in new)
        settled = [event_id for event_id, written in self.recent.items() if written <= time.time() - SETTLE_S]
        if state.full and not new:
            settled.append(state.events[-1][0])  # a burst larger than a page inside the settle window
        if settled:
            self.floor = max(self.floor, *settled)
            self.recent = {event_id: at for event_id, at in self.recent.items() if event_id > self.floor}
        return new


async def follow_run(
    run_id: int, viewer: Viewer, owner_view: bool, after: int, signed_in: SessionCheck
) -> AsyncIterator[str]:
    yield PREAMBLE
    live = hub()
    try:
        subscription = await live.subscribe(run_id, lambda change: True)
    except Unavailable as exc:
        yield message("unavailable", _json({"detail": str(exc)}))
        return
    try:
        deadline = time.monotonic() + settings.STREAM_MAX_S
        cursor, snapshot, changes, last_id = _Cursor(after), "", list[Change](), after
        written = time.monotonic()
        while True:
            read = functools.partial(_read, read_run, run_id, viewer, owner_view, cursor.floor)
            state = await live.shared((run_id, owner_view, cursor.floor, live.version(run_id)), read)
            if state is None:
                yield message("end", _json({"status": "gone"}))
                return
            out = []
            for start in range(0, len(new := cursor.fresh(state)), EVENTS_PER_READ):
                batch = new[start : start + EVENTS_PER_READ]
                last_id = max(last_id, batch[-1][0])
                out.append(message("events", "[" + ",".join(text for _, _, text in batch) + "]", id_=last_id))
            # Every message carries the cursor: a client that reconnects by itself sends back the id of the
            # last message it read as Last-Event-ID, and would otherwise get the log again.
            # The run after its events: the final status arrives once the last lines are in.
            if state.snapshot != snapshot:
                snapshot = state.snapshot
                out.append(message("run", snapshot, id_=last_id or None))
            if any(change.what in ("conversation", RESYNC) for change in changes):
                out.append(message("conversations", "{}", id_=last_id or None))
            if out:
                yield "".join(out)
                written = time.monotonic()
            if state.full:
                changes = []
                continue
            if state.status in FINAL:
                yield message("end", _json({"status": state.status}), id_=last_id or None)
                return
            # Quiet until something changes: heartbeats only, no reads.
            changes = []
            while not changes:
                changes, written, expired = await _wait(subscription.next, written, deadline)
                if expired and (time.monotonic() >= deadline or not await signed_in()):
                    yield message("reconnect", "{}", id_=last_id or None)
                    return
                if expired:
                    yield HEARTBEAT
    finally:
        subscription.close()


async def _wait(
    next_changes: Callable[[float], Any], written: float, deadline: float
) -> tuple[list[Change], float, bool]:
    """Wait for changes: (the changes, the time of the last write, whether a heartbeat is due or the stream's
    time is up — the caller writes then, so the write time is now)."""
    beat = settings.STREAM_HEARTBEAT_S
    timeout = max(0.0, min(written + beat, deadline) - time.monotonic())
    changes: list[Change] = await next_changes(timeout)
    now = time.monotonic()
    if now >= deadline or now - written >= beat:
        return changes, now, True
    return changes, written, False


def _not_streamable(request: HttpRequest) -> HttpResponse | None:
    """A refusal unless this is a GET served under ASGI: a WSGI worker would be held for the whole stream."""
    if request.method != "GET":
        return JsonResponse({"detail": "Method not allowed.", "code": "method_not_allowed"}, status=405)
    if not isinstance(request, ASGIRequest):
        return JsonResponse(
            {
                "detail": "Live updates are served by the ASGI process (uvicorn, parley.asgi), not by this server.",
                "code": "not_streamable",
            },
            status=503,
        )
    return None


async def run_stream(request: HttpRequest, run_id: int) -> HttpResponse:
    if refusal := _not_streamable(request):
        return refusal
    try:
        viewer = await _read(_authenticate, request)
    except exceptions.APIException as exc:
        return _refusal(exc)
    owner = await _read(_visible_owner, viewer, run_id)
    if owner is None:
        return _refusal(exceptions.NotFound())
    return _event_stream(
        follow_run(run_id, viewer, owner == viewer.pk, _after(request), _session_check(request, viewer))
    )


def _after(request: HttpRequest) -> int:
    """The last event id the client holds: `?after=`, or Last-Event-ID when the client reconnects by itself."""
    values = (request.GET.get("after"), request.headers.get("Last-Event-ID"))
    # ASCII digits only: str.isdigit() also takes "²", which int() refuses (a 500 once). Anything else, or a
    # number too large for an event id, is no cursor: the stream starts from the beginning.
    return max(
        (int(value) for value in values if value and value.isascii() and value.isdigit() and len(value) < 19),
        default=0,
    )


# --- the runs a visitor may see ------------------------------------------------------------------------------


def _fingerprint(viewer: Viewer) -> dict[str, Any]:
    """A summary of the visible runs that changes whenever a list of them would (polling mode only)."""
    runs = Run.objects.filter(visibility.readable(_user_of(viewer), "project__"))
    return runs.aggregate(
        count=Count("id"),
        last=Max("id"),
        finished=Max("finished_at"),
        started=Max("started_at"),
        done=Sum("progress_done"),
        active=Count("id", filter=Q(status__in=Run.ACTIVE)),
    )


def _watches(viewer: Viewer) -> Callable[[Change], bool]:
    """The changes this viewer hears of: only ids of runs they may read (the list message carries nothing else)."""
    return lambda change: visibility.may_see(viewer.pk, change.owner, change.public)


async def follow_runs(viewer: Viewer, signed_in: SessionCheck) -> AsyncIterator[str]:
    yield PREAMBLE
    live: Hub = hub()
    try:
        subscription = await live.subscribe(None, _watches(viewer))
    except Unavailable as exc:
        yield message("unavailable", _json({"detail": str(exc)}))
        return
    try:
        deadline = time.monotonic() + settings.STREAM_MAX_S
        fingerprint = await _read(_fingerprint, viewer) if live.polling else None
        written = spoke = time.monotonic()
        while True:
            changes, written, expired = await _wait(subscription.next, written, deadline)
            if expired:
                if time.monotonic() >= deadline or not await signed_in():
                    yield message("reconnect", "{}")
                    return
                yield HEARTBEAT
            if not changes:
                continue
            if live.polling and all(change.what == RESYNC for change in changes):
                now = await _read(_fingerprint, viewer)
                if now == fingerprint:
                    continue
                fingerprint = now
            pause = spoke + LIST_INTERVAL_S - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)
                changes += await subscription.next(0)
            runs = sorted({change.run for change in changes if change.what != RESYNC})
            yield message("runs", _json({"runs": runs}))
            written = spoke = time.monotonic()
    finally:
        subscription.close()


async def runs_stream(request: HttpRequest) -> HttpResponse:
    if refusal := _not_streamable(request):
        return refusal
    try:
        viewer = await _read(_authenticate, request)
    except exceptions.APIException as exc:
        return _refusal(exc)
    return _event_stream(follow_runs(viewer, _session_check(request, viewer)))
