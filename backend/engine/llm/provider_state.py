"""`ProviderState`: what every LLM client of one run shares about the servers it calls.

- per (base URL, model): what the server refused (`Learned`), which request shapes it has accepted, and a probe
  lock — a call that carries a parameter not yet accepted for that model goes alone, so concurrent
  conversations pay a refusal once per parameter per run, not once each;
- per base URL: the circuit breaker and the rate-limit pause (`engine.llm.breaker`);
- the warning hook: every adaptation is told once per run ("gpt-5-mini accepts only its default temperature…"),
  through `on_warning` (the worker writes a run warning, the CLI prints it).

Build one per run and hand it to every client (`LLMClient(state=...)`); `known` is what earlier runs learned
(stored with the key, README D10) and `to_json()` what to store back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from engine.llm.breaker import DEFAULT_THRESHOLD, CircuitBreaker, RatePause
from engine.llm.capabilities import Family, Learned, Note, Refusal, describe_adaptation

Warn = Callable[[str], None]


@dataclass
class _ModelState:
    learned: Learned
    stored: Learned
    confirmed: set[str] = field(default_factory=set)
    probe: threading.Lock = field(default_factory=threading.Lock)
    told_stored: bool = False


class Probe:
    """The probe lock a call holds while it is the only one trying a request shape; released once, by its call."""

    def __init__(self, lock: threading.Lock | None) -> None:
        self._lock = lock

    @property
    def alone(self) -> bool:
        return self._lock is not None

    def release(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.release()


def _storage_key(url: str, model: str) -> str:
    return f"{url}|{model}"


class ProviderState:
    """Shared by the clients of one run; thread-safe. A client without one gets its own."""

    def __init__(
        self,
        *,
        known: Mapping[str, Any] | None = None,
        on_warning: Warn | None = None,
        breaker_threshold: int = DEFAULT_THRESHOLD,
    ) -> None:
        self._lock = threading.Lock()
        self._known = {str(k): Learned.from_json(v) for k, v in (known or {}).items()}
        self._models: dict[tuple[str, str], _ModelState] = {}
        self._breakers: dict[str, CircuitBreaker] = {}
        self._pauses: dict[str, RatePause] = {}
        self._told: set[tuple[str, str, str]] = set()
        self._warnings: list[str] = []
        self.on_warning = on_warning
        self.breaker_threshold = breaker_threshold

    # -- per provider ------------------------------------------------------------------------------------------

    def breaker(self, url: str, where: str) -> CircuitBreaker:
        with self._lock:
            if url not in self._breakers:
                self._breakers[url] = CircuitBreaker(where, threshold=self.breaker_threshold)
            return self._breakers[url]

    def pause(self, url: str) -> RatePause:
        with self._lock:
            return self._pauses.setdefault(url, RatePause())

    # -- per model -----------------------------------------------------------------------------------------------

    def _model(self, url: str, model: str) -> _ModelState:
        with self._lock:
            state = self._models.get((url, model))
            if state is None:
                stored = self._known.get(_storage_key(url, model), Learned())
                state = self._models[(url, model)] = _ModelState(stored, stored)
            return state

    def learned(self, url: str, model: str, *, where: str = "") -> Learned:
        state = self._model(url, model)
        with self._lock:
            learned, tell = state.learned, bool(state.stored) and not state.told_stored
            state.told_stored = True
        if tell:
            self._warn(
                f"{where or url} refused parameters for {model} in an earlier run; Parley adapts to it from "
                f"the start ({_summary(state.stored)})."
            )
        return learned

    def learn(self, url: str, model: str, refusal: Refusal, family: Family, *, where: str) -> bool:
        """Record a refusal; False when it teaches nothing new (the caller then gives up on the call)."""
        state = self._model(url, model)
        with self._lock:
            after = state.learned.after(refusal, family)
            if after is None:
                return False
            state.learned = after
            state.confirmed.clear()  # what was accepted was accepted together with the refused field
        self._warn(describe_adaptation(refusal, model=model, where=where))
        return True

    def raise_headroom(self, url: str, model: str, headroom: int, *, where: str) -> bool:
        """A reasoning model spent its whole completion cap thinking: give it more room for the rest of the run."""
        state = self._model(url, model)
        with self._lock:
            current = state.learned.reasoning_headroom or 0
            if headroom <= current:
                return False
            state.learned = state.learned.with_headroom(headroom)
        self._warn(
            f"{model} at {where} spent its whole completion allowance on hidden reasoning and answered nothing; "
            f"Parley now allows it {headroom} more tokens per call for the rest of the run."
        )
        return True

    @contextmanager
    def gate(self, url: str, model: str, signature: frozenset[str]) -> Iterator[Probe]:
        """Let a call through; alone (holding the model's probe lock) when it carries something not yet accepted.
        The call releases the probe early once an attempt failed for a reason that says nothing about its
        parameters (an outage, a rate limit), so that concurrent calls are not held behind its retries."""
        state = self._model(url, model)
        with self._lock:
            known = signature <= state.confirmed
        if known:
            yield Probe(None)
            return
        state.probe.acquire()
        with self._lock:
            known = signature <= state.confirmed
        probe = Probe(state.probe)
        if known:  # accepted while this call waited: no need to go alone any more
            probe.release()
        try:
            yield probe
        finally:
            probe.release()

    def confirm(self, url: str, model: str, signature: frozenset[str]) -> None:
        state = self._model(url, model)
        with self._lock:
            state.confirmed |= signature

    def tell(self, url: str, model: str, note: Note) -> None:
        """Warn about a documented adaptation once per run and model."""
        key = (url, model, note.field)
        with self._lock:
            if key in self._told:
                return
            self._told.add(key)
        self._warn(note.text)

    # -- reporting ----------------------------------------------------------------------------------------------

    def _warn(self, text: str) -> None:
        with self._lock:
            self._warnings.append(text)
        if self.on_warning is not None:
            self.on_warning(text)

    @property
    def warnings(self) -> list[str]:
        with self._lock:
            return list(self._warnings)

    def to_json(self) -> dict[str, Any]:
        """Everything learned about every (base URL, model), earlier runs included, to store with the key."""
        with self._lock:
            merged = dict(self._known)
            for (url, model), state in self._models.items():
                key = _storage_key(url, model)
                merged[key] = merged.get(key, Learned()).merged(state.learned)
        return {key: learned.to_json() for key, learned in sorted(merged.items()) if learned}


def _summary(learned: Learned) -> str:
    parts = [f"no `{name}`" for name in sorted(learned.dropped)]
    if learned.token_param:
        parts.append(f"the cap as `{learned.token_param}`")
    parts += [f"no `{method}` structured output" for method in sorted(learned.refused_methods)]
    if learned.system_role == "user":
        parts.append("system instructions in the user message")
    if learned.reasoning_headroom:
        parts.append(f"{learned.reasoning_headroom} tokens of reasoning room")
    return ", ".join(parts) or "nothing"
