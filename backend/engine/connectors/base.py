"""The connector contract: the data a chatbot turn produces and the interface every technology implements.

One `Connector` instance holds at most one conversation at a time and is used from one thread. Its lifecycle:

    connector.new_conversation()      # forget the previous conversation, open a fresh one
    connector.greeting()              # what the bot said on its own at the start, or None
    connector.send("hello")           # one user turn -> BotReply
    ...
    connector.close()                 # release sockets; the instance is unusable afterwards

`send` before any `new_conversation` opens one implicitly. Errors are the classes of `errors.py`; nothing else
escapes on purpose. Retries (`RetryPolicy`): opening a conversation is retried with back-off on failures that
may be transient; a user turn is retried only when the request provably never left this machine (the
connection could not be made), because re-sending a turn that reached the chatbot would say it twice.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

from pydantic import BaseModel, ConfigDict, Field

from engine.egress import EgressGuard
from engine.json_value import JsonValue


class Button(BaseModel):
    """A choice the chatbot offers. `value` is what a click sends (a payload or the label itself); `url` is set
    for link buttons."""

    model_config = ConfigDict(frozen=True)

    label: str
    value: str | None = None
    url: str | None = None


class BotReply(BaseModel):
    """Everything the chatbot produced in answer to one user turn (or spontaneously, for a greeting).

    `messages` are the separate bubbles in order (possibly none: a silent bot); `raw` is the decoded response
    body as received, kept for debugging and reports; `latency_s` is the wall time of the turn; `ended` is set
    when the chatbot's protocol says this reply closed the conversation (a session-ended event, a final
    state)."""

    messages: list[str] = Field(default_factory=list)
    buttons: list[Button] = Field(default_factory=list)
    raw: JsonValue = None
    latency_s: float = 0.0
    ended: bool = False

    @property
    def text(self) -> str:
        """All messages as one text, one per line: for callers that want a single string."""
        return "\n".join(self.messages)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently retryable steps are repeated (exponential back-off with jitter).

    A chatbot that answers 429 or 503 asked to be called later, so that request is sent again — a user turn
    too, since the chatbot refused it without processing it — after its `Retry-After` (else the back-off), up
    to `rate_limit_retries` times; a `Retry-After` longer than `max_retry_after_s` is not waited for."""

    attempts: int = 3
    first_wait_s: float = 1.0
    max_wait_s: float = 10.0
    rate_limit_retries: int = 3
    max_retry_after_s: float = 60.0


@dataclass(frozen=True)
class ConnectorContext:
    """What a connector needs from its caller: the egress guard for all traffic, and the retry policy."""

    guard: EgressGuard
    retry: RetryPolicy = field(default_factory=RetryPolicy)


class Connector(abc.ABC):
    """One technology's way to talk to a chatbot. See the module docstring for the contract."""

    technology: str = ""

    @abc.abstractmethod
    def new_conversation(self) -> None:
        """Start a fresh conversation, dropping any previous one. Retried with back-off on transient failures."""

    @abc.abstractmethod
    def send(self, text: str) -> BotReply:
        """Send one user turn and return the chatbot's reply. Never re-sent once the request left."""

    def greeting(self) -> BotReply | None:
        """What the chatbot said on its own when the current conversation started; None if it waits for the user.
        Opens a conversation if none is open."""
        return None

    def close(self) -> None:  # noqa: B027 - optional hook: connectors without resources need nothing here
        """Release network resources. Idempotent."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
