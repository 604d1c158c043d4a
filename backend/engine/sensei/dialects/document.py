"""The top level of a profile: its keys in every dialect, the sections put together, and the entry point.

Owns `test_name` (or the file name when it is missing), `llm`/`LLM`, and where `conversation` may be written
(`conversations`, or indented under `chatbot` as in the paper). Each section is read by its own module.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path as FsPath
from typing import Any

from pydantic import ValidationError

from engine.sensei.dialects.chatbot import read_chatbot
from engine.sensei.dialects.conversation import read_conversation
from engine.sensei.dialects.llm import read_llm
from engine.sensei.dialects.reader import LoadOptions, Path, Reader
from engine.sensei.dialects.user import read_user
from engine.sensei.problems import Problem
from engine.sensei.profile import Profile
from engine.sensei.yamlpos import Locator, no_position


def read_profile(reader: Reader, data: Any) -> Profile | None:
    if not isinstance(data, dict):
        reader.error(
            "wrong_type", "a profile is a mapping with test_name, user, chatbot and conversation", ()
        )
        return None
    known = ["test_name", "llm", "LLM", "user", "chatbot", "conversation", "conversations", "name"]
    reader.unknown_keys(data, known, ())
    name = reader.text(data.get("test_name"), ("test_name",), "test_name")
    if name is None and data.get("name") is not None:
        name = reader.text(data.get("name"), ("name",), "name")
        reader.deprecated("name", "test_name", ("name",))
    if name is None:
        stem = FsPath(reader.options.source).stem if reader.options.source not in ("", "profile") else ""
        if stem:
            name = stem
            reader.warn(
                "missing",
                f"test_name is missing; using the file name {stem!r}",
                (),
                "Add `test_name: <unique name>` at the top.",
            )
        else:
            reader.error("missing", "test_name is required", (), "Add `test_name: <unique name>` at the top.")
    llm_key = "llm" if "llm" in data or "LLM" not in data else "LLM"
    if llm_key == "LLM":
        reader.deprecated("LLM", "llm", ("LLM",))
    llm = read_llm(reader, data.get(llm_key), (llm_key,))
    user = read_user(reader, data.get("user"), ("user",))
    chatbot_data = data.get("chatbot")
    conversation_key = "conversation"
    conversation_data = data.get("conversation")
    if conversation_data is None and "conversations" in data:
        conversation_key = "conversations"
        conversation_data = data["conversations"]
        reader.deprecated("conversations", "conversation", ("conversations",))
    if conversation_data is None and isinstance(chatbot_data, dict) and "conversations" in chatbot_data:
        # The paper's listing indents `conversations` under `chatbot`.
        conversation_data = chatbot_data["conversations"]
        conversation_key = "chatbot.conversations"
        reader.warn(
            "deprecated",
            "`conversations` belongs at the top level, as `conversation`",
            ("chatbot", "conversations"),
            "Move it to the top level and call it `conversation`.",
        )
    chatbot = read_chatbot(reader, chatbot_data, ("chatbot",))
    conv_path: Path = (
        ("chatbot", "conversations") if conversation_key == "chatbot.conversations" else (conversation_key,)
    )
    conversation = read_conversation(reader, conversation_data, conv_path)
    if None in (name, llm, user, chatbot, conversation):
        return None
    try:
        return Profile(
            name=name or "",
            llm=llm,  # type: ignore[arg-type]
            user=user,  # type: ignore[arg-type]
            chatbot=chatbot,  # type: ignore[arg-type]
            conversation=conversation,  # type: ignore[arg-type]
            custom_types=sorted(reader.used_types.values(), key=lambda t: t.name),
        )
    except ValidationError as exc:  # a gap in the checks above; say where rather than crash
        for item in exc.errors():
            reader.error("invalid", item["msg"], tuple(str(p) for p in item["loc"]))
        return None


def read_profile_data(
    data: Any, *, locate: Locator = no_position, options: LoadOptions | None = None
) -> tuple[Profile | None, list[Problem]]:
    """The canonical profile from already-parsed data (any dialect), and the problems found reading it."""
    reader = Reader(locate, options or LoadOptions())
    profile = read_profile(reader, data)
    return profile, reader.problems


ProfileReader = Callable[[Any], tuple[Profile | None, list[Problem]]]
