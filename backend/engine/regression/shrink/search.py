"""Replaying candidate scripts against the live chatbot, and the delta-debugging search over them.

A *candidate* is a list of literal user messages whose last one is the failing user turn (kept last: the failure
check is tied to its reply, `engine.regression.shrink.failure`). `Replayer.reproduces` plays it through a fresh
connector up to `replays` times and says whether the check failed in at least `needed` of them — stopping as
soon as the answer is known, so a candidate that fails twice in a row costs two replays, not three. Results are
remembered per candidate; every request sent to the chatbot counts against `max_chatbot_calls`, and a replay
that would cross the cap is not started (`CapReached`), so the cap is never exceeded.

`shrink_messages` is ddmin (Zeller & Hildebrandt) over the messages before the failing one: try dropping chunks
of halves, quarters… down to single messages, keep any drop that still reproduces; then try merging each pair
of neighbouring messages into one (a chatbot that takes "a medium with ham" in one turn needs one turn less);
repeat while anything changed. It ends when no message can be removed or merged, or at the cap.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date

from engine.connectors.base import Connector
from engine.conversation import ConversationError
from engine.regression.shrink.failure import FailureCheck, resembles
from engine.sensei.errors import connector_error, describe
from engine.sensei.profile import Profile
from engine.sensei.scripted import check_reply

ConnectorFactory = Callable[[], Connector]
Candidate = tuple[str, ...]


class CapReached(Exception):
    """The next replay would send more requests than `max_chatbot_calls` allows."""


@dataclass(frozen=True)
class Replayed:
    """One replay: the chatbot's reply to each message sent, and the error that ended it, if one did."""

    replies: tuple[str, ...]
    error: ConversationError | None
    error_step: int | None  # 0-based index of the message whose request failed
    calls: int


@dataclass(frozen=True)
class Attempt:
    failed: int  # replays in which the failure showed
    replays: int
    last: Replayed  # the last replay, for the report (a failing one when any failed)

    @property
    def rate(self) -> float:
        return self.failed / self.replays if self.replays else 0.0


def replay(factory: ConnectorFactory, messages: Sequence[str], *, greet: bool) -> Replayed:
    """Send `messages` literally through a new conversation; a failed request ends the replay (as in SENSEI)."""
    connector = factory()
    replies: list[str] = []
    calls = 0
    try:
        try:
            connector.new_conversation()
            if greet:
                calls += 1
                connector.greeting()
        except Exception as exc:  # noqa: BLE001 - a chatbot that cannot start is a failed replay, not a crash
            return Replayed((), connector_error(exc, 0), 0, calls)
        for step, message in enumerate(messages):
            calls += 1
            try:
                reply = connector.send(message)
            except Exception as exc:  # noqa: BLE001 - a failed request is a finding of the replay
                return Replayed(tuple(replies), connector_error(exc, step), step, calls)
            replies.append(reply.text)
        return Replayed(tuple(replies), None, None, calls)
    finally:
        with contextlib.suppress(Exception):  # closing is best effort; the replay's result stands
            connector.close()


def shows_failure(
    failure: FailureCheck, replayed: Replayed, steps: int, profile: Profile, today: date
) -> bool:
    """Whether a replay of `steps` messages shows the failure on the reply to its last message."""
    last = steps - 1
    if failure.kind == "error":
        return (
            replayed.error is not None
            and replayed.error_step == last
            and describe(replayed.error.code).kind == "finding"
        )
    if replayed.error is not None or len(replayed.replies) < steps or failure.check is None:
        return False  # a crash before the reply is another failure; the reply's check was never reached
    reply = replayed.replies[last]
    held, _ = check_reply(failure.check, reply, profile, today)
    return held is False and resembles(reply, failure.anchor)


@dataclass
class Replayer:
    factory: ConnectorFactory
    failure: FailureCheck
    profile: Profile  # carries the custom types a `states` check may name
    greet: bool
    replays: int = 3
    needed: int = 2
    max_chatbot_calls: int = 200
    today: date = field(default_factory=date.today)
    calls: int = 0
    tried: int = 0
    capped: bool = False
    _seen: dict[Candidate, Attempt] = field(default_factory=dict)

    def attempt(self, candidate: Candidate, *, early_stop: bool = True) -> Attempt:
        """Replay up to `replays` times (fewer once k-of-n is decided, with `early_stop`)."""
        failed = 0
        done = 0
        last: Replayed | None = None
        for _ in range(self.replays):
            cost = len(candidate) + (1 if self.greet else 0)
            if self.calls + cost > self.max_chatbot_calls:
                self.capped = True
                raise CapReached
            replayed = replay(self.factory, candidate, greet=self.greet)
            self.calls += replayed.calls
            done += 1
            shown = shows_failure(self.failure, replayed, len(candidate), self.profile, self.today)
            failed += shown
            if shown or not failed:  # the report shows a failing replay when there was one
                last = replayed
            if early_stop and (failed >= self.needed or failed + self.replays - done < self.needed):
                break
        assert last is not None
        return Attempt(failed, done, last)

    def remember(self, candidate: Candidate, attempt: Attempt) -> None:
        self._seen[candidate] = attempt

    def seen(self, candidate: Candidate) -> Attempt:
        return self._seen[candidate]

    def reproduces(self, candidate: Candidate) -> bool:
        if candidate not in self._seen:
            self.tried += 1
            self._seen[candidate] = self.attempt(candidate)
        return self._seen[candidate].failed >= self.needed


def _chunks(items: Sequence[int], n: int) -> list[list[int]]:
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        out.append(list(items[start:end]))
        start = end
    return [c for c in out if c]


def _ddmin(prefix: list[str], last: str, test: Callable[[Candidate], bool]) -> list[str]:
    """The smallest subsequence of `prefix` found that, followed by `last`, still reproduces."""
    if test((last,)):
        return []  # the failing message alone: the cheapest win, tried first
    kept = list(range(len(prefix)))
    n = 2
    while kept:
        n = min(n, len(kept))
        reduced = False
        for chunk in _chunks(kept, n):
            rest = [i for i in kept if i not in chunk]
            if test((*(prefix[i] for i in rest), last)):
                kept, n, reduced = rest, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(kept):
                break
            n = min(2 * n, len(kept))
    return [prefix[i] for i in kept]


def _merge(messages: list[str], test: Callable[[Candidate], bool]) -> list[str]:
    """Neighbouring messages joined into one where the failure still shows."""
    i = 0
    while i < len(messages) - 1:
        joined = [*messages[:i], f"{messages[i]} {messages[i + 1]}", *messages[i + 2 :]]
        if test(tuple(joined)):
            messages = joined
        else:
            i += 1
    return messages


def shrink_messages(messages: Sequence[str], replayer: Replayer) -> list[str]:
    """ddmin then merging, repeated while either shortens the script (see the module docstring). At the cap,
    the shortest candidate that reproduced so far."""
    best = list(messages)

    def test(candidate: Candidate) -> bool:
        nonlocal best
        if not replayer.reproduces(candidate):
            return False
        if (len(candidate), sum(map(len, candidate))) < (len(best), sum(map(len, best))):
            best = list(candidate)
        return True

    current = list(messages)
    try:
        while True:
            before = len(current)
            current = [*_ddmin(current[:-1], current[-1], test), current[-1]]
            current = _merge(current, test)
            if len(current) >= before:
                return current
    except CapReached:
        return best
