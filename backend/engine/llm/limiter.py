"""Caps how many calls run at once against one provider key, across every thread of the process.

Providers rate-limit per key, so concurrency is counted per (base URL, key) pair — identified by a hash,
never the key itself. Share one `ConcurrencyLimiter` between all gateways of a process (a worker does) so
two runs using the same key share its slots.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

# How often a waiting coroutine looks for a free slot; polling keeps cancellation clean (nothing to undo).
_ASYNC_POLL_S = 0.01


class ConcurrencyLimiter:
    """A registry of bounded semaphores keyed by provider key hash."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slots: dict[str, threading.BoundedSemaphore] = {}

    def _semaphore(self, key: str, limit: int) -> threading.BoundedSemaphore:
        with self._lock:
            # The first gateway to use a key fixes its limit: a later, different setting for the same key
            # would otherwise make two semaphores and double the real concurrency.
            return self._slots.setdefault(key, threading.BoundedSemaphore(limit))

    @contextmanager
    def slot(self, key: str, limit: int) -> Iterator[None]:
        semaphore = self._semaphore(key, limit)
        semaphore.acquire()
        try:
            yield
        finally:
            semaphore.release()

    @asynccontextmanager
    async def async_slot(self, key: str, limit: int) -> AsyncIterator[None]:
        semaphore = self._semaphore(key, limit)
        while not semaphore.acquire(blocking=False):
            await asyncio.sleep(_ASYNC_POLL_S)
        try:
            yield
        finally:
            semaphore.release()
