"""What changed, for the live-update streams of one ASGI process (runs/http/streams.py).

One `Hub` per event loop holds one PostgreSQL connection that LISTENs on the channel the triggers of migration
0007 notify (a run created, changed or deleted; an event or a conversation added), and hands each change to the
streams that asked for it. So a hundred open streams cost one database connection and a hundred idle
coroutines, not a hundred workers. A stream subscribes *before* it reads the state it starts from, so nothing
that commits between the two is lost; when the listening connection drops, every stream is told to read again
(`RESYNC`), since notifications sent meanwhile are gone.

`shared` runs one read for many streams: the streams that watch the same run wake on the same notification
and ask for the same thing, and only the first asks the database.

Without NOTIFY (the embedded SQLite mode), the hub wakes every stream every PARLEY_STREAM_POLL_MS to read again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

import psycopg
from django.conf import settings
from django.db import connections
from psycopg.conninfo import make_conninfo

logger = logging.getLogger(__name__)

CHANNEL = "parley_runs"  # named in runs/migrations/0007_live_notify.py too
RESYNC = "resync"
RUN_ROW_CHANGES = frozenset({"created", "run", "deleted"})
# How long to wait for the listening connection before a stream gives up (the client retries).
READY_TIMEOUT_S = 10.0
# A quiet listening connection is checked this often, so a silently dead one is replaced.
LIVENESS_S = 30.0
# The OPTIONS of Django's database settings that are libpq's (the others are Django's or psycopg's own).
LIBPQ_OPTIONS = frozenset(
    {"sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout", "options", "passfile", "service"}
)


class Unavailable(Exception):
    """The hub cannot listen (the database does not answer); the stream cannot promise live updates."""


@dataclass(frozen=True)
class Change:
    """One notification: run `run` had `what` happen (`created`, `run`, `deleted`, `event`, `conversation`),
    or `resync`: anything may have changed."""

    run: int
    what: str
    owner: int | None = None
    public: bool = False
    status: str = ""

    @classmethod
    def parse(cls, payload: str) -> Change | None:
        try:
            data = json.loads(payload)
            return cls(
                run=int(data["run"]),
                what=str(data["what"]),
                owner=int(data["owner"]) if data.get("owner") is not None else None,
                public=bool(data.get("public")),
                status=str(data.get("status") or ""),
            )
        except (ValueError, KeyError, TypeError):
            logger.warning("Ignoring a malformed notification on %s: %.200s", CHANNEL, payload)
            return None


class Subscription:
    """What one stream receives: the changes since it last looked, and a way to wait for the next."""

    def __init__(self, hub: Hub, run_id: int | None, wants: Callable[[Change], bool]) -> None:
        self.hub = hub
        self.run_id = run_id
        self.wants = wants
        self._pending: list[Change] = []
        self._wake = asyncio.Event()

    def deliver(self, change: Change) -> None:
        if change.what == RESYNC or self.wants(change):
            self._pending.append(change)
            self._wake.set()

    async def next(self, timeout: float) -> list[Change]:
        """The changes that arrived since the last call, waiting up to `timeout` seconds for one; [] if none."""
        if not self._pending:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
        changes, self._pending = self._pending, []
        self._wake.clear()
        return changes

    def close(self) -> None:
        self.hub.unsubscribe(self)


class Hub:
    def __init__(self) -> None:
        self._runs: dict[int, set[Subscription]] = {}
        self._lists: set[Subscription] = set()
        self._versions: dict[int, int] = {}
        self._epoch = 0
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._inflight: dict[Hashable, asyncio.Future[Any]] = {}
        self.polling = connections["default"].vendor != "postgresql"

    # -- subscriptions ---------------------------------------------------------------------------------------
    async def subscribe(self, run_id: int | None, wants: Callable[[Change], bool]) -> Subscription:
        """Changes of run `run_id` (every kind), or with `run_id` None the run-row changes `wants` accepts."""
        subscription = Subscription(self, run_id, wants)
        if run_id is None:
            self._lists.add(subscription)
        else:
            self._runs.setdefault(run_id, set()).add(subscription)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._serve(), name="parley-live-hub")
        try:
            await asyncio.wait_for(self._ready.wait(), READY_TIMEOUT_S)
        except TimeoutError:
            subscription.close()
            raise Unavailable("The database does not answer; live updates are not available.") from None
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        if subscription.run_id is None:
            self._lists.discard(subscription)
            return
        watchers = self._runs.get(subscription.run_id)
        if watchers is not None:
            watchers.discard(subscription)
            if not watchers:
                del self._runs[subscription.run_id]
                self._versions.pop(subscription.run_id, None)

    @property
    def subscriptions(self) -> int:
        return len(self._lists) + sum(len(watchers) for watchers in self._runs.values())

    def version(self, run_id: int) -> tuple[int, int]:
        """Changes so far to run `run_id` as this hub saw them: equal versions mean an equal database state."""
        return (self._epoch, self._versions.get(run_id, 0))

    def dispatch(self, change: Change) -> None:
        if change.what == RESYNC:
            self._epoch += 1
            for subscription in [*self._lists, *(s for group in self._runs.values() for s in group)]:
                subscription.deliver(change)
            return
        watchers = self._runs.get(change.run)
        if watchers:
            self._versions[change.run] = self._versions.get(change.run, 0) + 1
            for subscription in watchers:
                subscription.deliver(change)
        if change.what in RUN_ROW_CHANGES:
            for subscription in self._lists:
                subscription.deliver(change)

    # -- one read for many streams ----------------------------------------------------------------------------
    async def shared(self, key: Hashable, read: Callable[[], Awaitable[Any]]) -> Any:
        """The result of `read()`, shared with every caller that asks for the same `key` while it runs."""
        future = self._inflight.get(key)
        if future is None:
            future = asyncio.ensure_future(read())
            self._inflight[key] = future
            future.add_done_callback(lambda _done: self._inflight.pop(key, None))
        return await asyncio.shield(future)

    # -- listening --------------------------------------------------------------------------------------------
    async def _serve(self) -> None:
        if self.polling:
            self._ready.set()
            while True:
                await asyncio.sleep(settings.STREAM_POLL_MS / 1000)
                self.dispatch(Change(run=0, what=RESYNC))
        delay = 0.5
        while True:
            try:
                await self._listen()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("Live updates: the listening connection failed; reconnecting", exc_info=True)
            self._ready.clear()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    async def _listen(self) -> None:
        async with await psycopg.AsyncConnection.connect(conninfo(), autocommit=True) as conn:
            await conn.execute(f"LISTEN {CHANNEL}")
            # Whatever happened while nobody listened is unknown: every stream reads again.
            self.dispatch(Change(run=0, what=RESYNC))
            self._ready.set()
            while True:
                async for notify in conn.notifies(timeout=LIVENESS_S):
                    change = Change.parse(notify.payload)
                    if change is not None:
                        self.dispatch(change)
                await conn.execute("SELECT 1")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._ready.clear()


def conninfo() -> str:
    """Django's own database settings, as a libpq connection string (for the listening connection)."""
    db = connections["default"].settings_dict
    params = {
        "dbname": db["NAME"],
        "user": db.get("USER"),
        "password": db.get("PASSWORD"),
        "host": db.get("HOST"),
        "port": str(db["PORT"]) if db.get("PORT") else None,
    }
    params.update(
        {key: str(value) for key, value in (db.get("OPTIONS") or {}).items() if key in LIBPQ_OPTIONS}
    )
    return make_conninfo(application_name="parley-live", **{k: v for k, v in params.items() if v})


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Hub] = weakref.WeakKeyDictionary()


def hub() -> Hub:
    """The hub of the running event loop (one per ASGI process in production; one per loop in tests)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub()
    return found
