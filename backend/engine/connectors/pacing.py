"""Pacing toward a chatbot: a least interval between requests and a most number of conversations open at once.

Every technology takes the two parameters of `Pacing` (the technology's settings model gets them appended,
so forms, files and the JSON Schema show them like any other parameter). `paced(connector, pacing, key)` wraps a
live connector: each request-making call (`new_conversation`, `send`) first waits for its turn on the
chatbot's clock, and the first `new_conversation` takes one of the chatbot's session slots until `close()`.

The pace is per chatbot, not per connector instance: all connectors built from the same settings in one
process share one `Pacer` (SENSEI builds a connector per conversation; TRACER and SENSEI may talk to the same
bot). Workers in other processes have their own pacer; a chatbot's 429/503 answers (see `transport.py`) are
the backstop for that.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.connectors.base import BotReply, Connector
from engine.connectors.errors import ChatbotUnavailable

DEFAULT_MIN_INTERVAL_S = 0.0
DEFAULT_MAX_SESSIONS = 8
SLOT_WAIT_S = 900.0  # a conversation waits this long for a free session slot before giving up


class Pacing(BaseModel):
    """The pacing parameters every technology accepts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_interval_s: float = Field(
        DEFAULT_MIN_INTERVAL_S,
        ge=0,
        le=600,
        description="Least seconds between two requests to this chatbot, all conversations together "
        "(0: no pause). Raise it for a chatbot that answers 429 Too Many Requests.",
    )
    max_sessions: int = Field(
        DEFAULT_MAX_SESSIONS,
        ge=1,
        le=100,
        description="Most conversations open with this chatbot at once; further conversations wait for "
        "one to end.",
    )


PACING_FIELDS: tuple[str, ...] = tuple(Pacing.model_fields)


def pacing_of(settings: Any) -> Pacing:
    """The pacing part of validated technology settings (defaults when the model has no such fields)."""
    return Pacing(**{name: getattr(settings, name) for name in PACING_FIELDS if hasattr(settings, name)})


class Pacer:
    """One chatbot's clock and session slots, shared by every connector that talks to it."""

    def __init__(
        self,
        pacing: Pacing,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.pacing = pacing
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next_at = 0.0
        self._slots = threading.BoundedSemaphore(pacing.max_sessions)

    def wait_turn(self) -> float:
        """Block until this request may leave; returns the seconds waited. Turns are handed out in order."""
        interval = self.pacing.min_interval_s
        if interval <= 0:
            return 0.0
        with self._lock:
            now = self._clock()
            start = max(now, self._next_at)
            self._next_at = start + interval
        wait = start - now
        if wait > 0:
            self._sleep(wait)
        return max(0.0, wait)

    def take_slot(self, timeout_s: float = SLOT_WAIT_S) -> None:
        if not self._slots.acquire(timeout=timeout_s):
            raise ChatbotUnavailable(
                f"All {self.pacing.max_sessions} session slots of this chatbot stayed busy for "
                f"{timeout_s:g} s (the connector's max_sessions)."
            )

    def give_slot(self) -> None:
        self._slots.release()


_PACERS: dict[str, Pacer] = {}
_PACERS_LOCK = threading.Lock()


def pacer_key(technology: str, params: Mapping[str, Any]) -> str:
    """Which chatbot a connector talks to: a digest of its technology and parameters (secrets never kept)."""
    text = json.dumps([technology, params], sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def shared_pacer(key: str, pacing: Pacing) -> Pacer:
    with _PACERS_LOCK:
        pacer = _PACERS.get(key)
        if pacer is None or pacer.pacing != pacing:
            pacer = _PACERS[key] = Pacer(pacing)
        return pacer


class PacedConnector(Connector):
    """A connector whose requests keep the chatbot's pace and whose conversation holds a session slot."""

    def __init__(self, inner: Connector, pacer: Pacer) -> None:
        self.inner = inner
        self.pacer = pacer
        self.technology = inner.technology
        self._holding = False
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        # Anything beyond the contract (a technology's own attributes) is the wrapped connector's.
        inner = self.__dict__.get("inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)

    def _hold(self) -> None:
        with self._lock:
            if self._holding:
                return
            self.pacer.take_slot()
            self._holding = True

    def new_conversation(self) -> None:
        self._hold()
        self.pacer.wait_turn()
        self.inner.new_conversation()

    def greeting(self) -> BotReply | None:
        self._hold()
        return self.inner.greeting()

    def send(self, text: str) -> BotReply:
        self._hold()
        self.pacer.wait_turn()
        return self.inner.send(text)

    def close(self) -> None:
        try:
            self.inner.close()
        finally:
            self._release()

    def _release(self) -> None:
        with self._lock:
            if self._holding:
                self._holding = False
                self.pacer.give_slot()

    def __del__(self) -> None:
        # A caller that forgot close() must not keep the chatbot's slot forever.
        if self.__dict__.get("_holding"):
            self._release()


def paced(connector: Connector, settings: Any, key: str) -> Connector:
    """`connector` behind the shared pacer of the chatbot `key` names, with the pacing of `settings`."""
    return PacedConnector(connector, shared_pacer(key, pacing_of(settings)))
