"""The run context every engine takes: how it tells its caller what is happening, how the caller stops it, and
where its LLM usage goes.

An engine entry point (TRACER, SENSEI, the bench, qualification, a security campaign) takes its job and a
`RunContext`. The CLI builds one with a console reporter (`commands.common.cli_context`), the platform's worker
one that writes run events and polls the run's cancel flag (`runs.worker.reporting.run_context`); a test passes
`RunContext()` (silent, never cancelled) or a `RecordingReporter`.

- `Reporter`: the one set of hooks. Each does nothing here; a caller overrides what it shows. Engines say what
  happened in plain data (text, counts, JSON-ready dicts), so one reporter serves every kind of run.
- `CancelToken`: set by whoever wants the run to stop; an engine looks at it between turns, sessions, attempts
  and phases. `RunContext.check_cancel` raises `Cancelled`, the one exception an engine stops with on a cancel;
  its message says what was cancelled and what is kept. (SENSEI and a campaign do not raise: they stop early and
  say so in their result.)
- usage: `RunContext.meter(ledger)` sends every LLM call of a client to `reporter.usage`, once per ledger however
  many clients share it.

Engines call the reporter from worker threads (SENSEI runs conversations side by side): a reporter that keeps
state guards it itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.errors import ParleyError


class Cancelled(ParleyError):
    """The run stopped because it was asked to; the message says what it keeps."""

    code = "cancelled"


class CancelToken:
    """Set by whoever wants the run to stop (a `threading.Event` underneath). The platform's token asks the
    database instead (`runs.worker.reporting.RunCancel`)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


class Reporter:
    """What an engine tells its caller as it runs; every hook does nothing unless overridden."""

    def stage(self, stage: str, *, label: str | None = None) -> None:
        """The run entered `stage` (a short name: "probe", "simulating", "attacking"); `label` is a longer text
        for the log when the stage alone says too little (the bench names the bot)."""

    def progress(
        self, done: int, total: int, *, counts: Mapping[str, int] | None = None, **detail: Any
    ) -> None:
        """`done` of `total` units (sessions, attempts, mutants) are finished. `detail` says which unit finished
        and how (JSON values); `counts`, when the engine keeps one, is the running tally per outcome."""

    def message(self, role: str, text: str, **where: Any) -> None:
        """One message of a conversation, as soon as it was sent or received; `where` says which conversation
        (TRACER: session; SENSEI: conversation, profile, index; a campaign: attempt, phase)."""

    def event(self, kind: str, data: Mapping[str, Any], *, done: int | None = None) -> None:
        """Something the run found or finished: "functionality" (TRACER's model changed), "conversation" (SENSEI
        judged one). `done`, when the event finishes a unit, is how many are finished now."""

    def artefact(self, name: str, content: Any) -> None:
        """A document to keep now, before the run ends (SENSEI's "plan", so a resumed run plans the same)."""

    def usage(self, record: Mapping[str, Any]) -> None:
        """One LLM call finished (a `UsageRecord.to_json()`)."""

    def warning(self, text: str) -> None:
        """Something the user should know that did not stop the run."""

    def log(self, text: str) -> None:
        """A line for the run's owner (what was planned)."""


@dataclass
class RecordingReporter(Reporter):
    """Keeps every hook call as a tuple (`("stage", name)`, `("progress", done, total)`, an event as
    `(kind, data)`...); for tests and for callers that look at the events afterwards."""

    events: list[tuple[Any, ...]] = field(default_factory=list)

    def stage(self, stage: str, *, label: str | None = None) -> None:
        self.events.append(("stage", stage))

    def progress(
        self, done: int, total: int, *, counts: Mapping[str, int] | None = None, **detail: Any
    ) -> None:
        self.events.append(("progress", done, total, *([detail] if detail else [])))

    def message(self, role: str, text: str, **where: Any) -> None:
        self.events.append(("message", role, text, where))

    def event(self, kind: str, data: Mapping[str, Any], *, done: int | None = None) -> None:
        self.events.append((kind, dict(data)))

    def artefact(self, name: str, content: Any) -> None:
        self.events.append(("artefact", name, content))

    def usage(self, record: Mapping[str, Any]) -> None:
        self.events.append(("usage", record.get("tag")))

    def warning(self, text: str) -> None:
        self.events.append(("warning", text))

    def log(self, text: str) -> None:
        self.events.append(("log", text))

    def of(self, kind: str) -> list[tuple[Any, ...]]:
        return [event for event in self.events if event[0] == kind]


class _Usage(Protocol):
    def to_json(self) -> dict[str, Any]: ...


class Ledger(Protocol):
    """What `meter` needs of an LLM client's ledger (`engine.llm.UsageLedger`)."""

    def subscribe(self, listener: Callable[[Any], None]) -> None: ...


@dataclass
class RunContext:
    """The reporter, the cancel token and the usage sink of one run, handed to its engine."""

    reporter: Reporter = field(default_factory=Reporter)
    cancel: CancelToken = field(default_factory=CancelToken)
    _metered: list[Ledger] = field(default_factory=list, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def meter(self, ledger: Ledger) -> None:
        """Report every call recorded in `ledger` from now on to `reporter.usage` (a ledger met twice, once)."""
        with self._lock:
            if any(known is ledger for known in self._metered):
                return
            self._metered.append(ledger)

        def report(record: _Usage) -> None:
            self.reporter.usage(record.to_json())

        ledger.subscribe(report)

    def check_cancel(self, message: str) -> None:
        """Raise `Cancelled(message)` when the run was asked to stop."""
        if self.cancel.cancelled:
            raise Cancelled(message)

    def quiet(self) -> RunContext:
        """The same cancel token and a silent reporter: for an engine run inside another (the bench's TRACER and
        SENSEI phases), whose events the outer run does not show and whose usage it meters itself."""
        return RunContext(cancel=self.cancel)
