"""How a TRACER run tells its caller what is happening, and how the caller stops it.

The platform's worker implements `Reporter` to turn events into database rows (stage, progress bar, live
transcript, model changes, usage); the CLI prints them. Every method has a do-nothing default in
`NullReporter`, so a reporter implements only what it shows. `CancelToken` is anything with `is_set()`
(a `threading.Event` fits); the run checks it between turns and between steps and raises `TracerCancelled`.
Events are reported when they happen; after a resume, the steps that are replayed report again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.errors import ParleyError
from engine.tracer.state import Role, Stage


class TracerCancelled(ParleyError):
    code = "tracer_cancelled"


class CancelToken(Protocol):
    def is_set(self) -> bool: ...


class Reporter(Protocol):
    def stage(self, stage: Stage) -> None:
        """The run entered `stage`."""

    def progress(self, sessions_done: int, sessions_total: int) -> None:
        """A session finished (or the run resumed with this many done)."""

    def message(self, session: int, role: Role, text: str) -> None:
        """One message of an exploration session, as soon as it was sent or received."""

    def functionality(self, event: str, name: str, detail: str) -> None:
        """The model changed: `event` is "added" or "merged" (`detail` names the absorbed node)."""

    def usage(self, record: dict[str, Any]) -> None:
        """One LLM call finished (a `UsageRecord.to_json()`)."""

    def warning(self, text: str) -> None:
        """Something the user should know that did not stop the run."""


class NullReporter:
    def stage(self, stage: Stage) -> None:
        pass

    def progress(self, sessions_done: int, sessions_total: int) -> None:
        pass

    def message(self, session: int, role: Role, text: str) -> None:
        pass

    def functionality(self, event: str, name: str, detail: str) -> None:
        pass

    def usage(self, record: dict[str, Any]) -> None:
        pass

    def warning(self, text: str) -> None:
        pass


@dataclass
class RecordingReporter(NullReporter):
    """Keeps every event as a tuple; for tests and for callers that report at the end."""

    events: list[tuple[Any, ...]] = field(default_factory=list)

    def stage(self, stage: Stage) -> None:
        self.events.append(("stage", stage))

    def progress(self, sessions_done: int, sessions_total: int) -> None:
        self.events.append(("progress", sessions_done, sessions_total))

    def message(self, session: int, role: Role, text: str) -> None:
        self.events.append(("message", session, role, text))

    def functionality(self, event: str, name: str, detail: str) -> None:
        self.events.append(("functionality", event, name, detail))

    def usage(self, record: dict[str, Any]) -> None:
        self.events.append(("usage", record.get("tag")))

    def warning(self, text: str) -> None:
        self.events.append(("warning", text))

    def of(self, kind: str) -> list[tuple[Any, ...]]:
        return [event for event in self.events if event[0] == kind]


class NeverCancelled:
    def is_set(self) -> bool:
        return False


def check_cancel(token: CancelToken) -> None:
    if token.is_set():
        raise TracerCancelled("The TRACER run was cancelled; resume it to continue from the last checkpoint.")
