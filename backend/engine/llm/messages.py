"""The messages a caller sends: a role and a text. Small on purpose, so prompts stay plain data that can be
hashed for the cache, measured for the budget and turned into LangChain messages at the last moment."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str


def system(content: str) -> Message:
    return Message("system", content)


def user(content: str) -> Message:
    return Message("user", content)


def assistant(content: str) -> Message:
    return Message("assistant", content)


MessageLike = Message | tuple[str, str]


def normalise(messages: Sequence[MessageLike]) -> list[Message]:
    """Accepts `Message`s or `(role, content)` pairs; refuses unknown roles and an empty conversation."""
    result: list[Message] = []
    for item in messages:
        role, content = (item.role, item.content) if isinstance(item, Message) else item
        if role == "system":
            result.append(system(content))
        elif role == "user":
            result.append(user(content))
        elif role == "assistant":
            result.append(assistant(content))
        else:
            raise ValueError(f"Unknown message role {role!r}: use system, user or assistant.")
    if not result:
        raise ValueError("An LLM call needs at least one message.")
    return result


def to_langchain(messages: Sequence[Message]) -> list[BaseMessage]:
    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds[m.role](content=m.content) for m in messages]


def total_chars(messages: Sequence[Message]) -> int:
    return sum(len(m.content) for m in messages)
