"""The top level of a profile: its keys in every dialect, the sections put together, and the entry point.

Owns `test_name` (or the file name when it is missing), `llm`/`LLM`, and where `conversation` may be written
(`conversations`, or indented under `chatbot` as in the paper). Each section is read by its own module.

With a `script` (read by `dialects.script`), `user`, `chatbot` and `conversation` become optional: a script without goals is
one conversation of exactly its steps (`conversation.number` may repeat it), decided by its checks.
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
from engine.sensei.dialects.script import read_min_pass_rate, read_script
from engine.sensei.dialects.user import read_user
from engine.sensei.problems import Problem
from engine.sensei.profile import (
    ChatbotSettings,
    ConversationSettings,
    GoalStyle,
    NumberSpec,
    Profile,
    ScriptStep,
    UserSettings,
)
from engine.sensei.yamlpos import no_position
from engine.yamldata import Locator


def read_profile(reader: Reader, data: Any) -> Profile | None:
    if not isinstance(data, dict):
        reader.error(
            "wrong_type", "a profile is a mapping with test_name, user, chatbot and conversation", ()
        )
        return None
    known = [
        "test_name",
        "llm",
        "LLM",
        "user",
        "chatbot",
        "conversation",
        "conversations",
        "name",
        "script",
        "min_pass_rate",
    ]
    reader.unknown_keys(data, known, ())
    script = read_script(reader, data.get("script"), ("script",))
    # A broken script still makes the other sections optional: one error, not four.
    scripted = "script" in data
    min_pass_rate = read_min_pass_rate(reader, data.get("min_pass_rate"), ("min_pass_rate",))
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
    user: UserSettings | None = UserSettings(role="")
    if not scripted or data.get("user") is not None:
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
    chatbot: ChatbotSettings | None = ChatbotSettings()
    if not scripted or chatbot_data is not None:
        chatbot = read_chatbot(reader, chatbot_data, ("chatbot",), scripted=scripted)
    conv_path: Path = (
        ("chatbot", "conversations") if conversation_key == "chatbot.conversations" else (conversation_key,)
    )
    conversation: ConversationSettings | None
    if scripted and conversation_data is None:
        conversation = ConversationSettings(
            number=NumberSpec(kind="fixed", count=1), goal_style=GoalStyle(kind="steps", steps=1)
        )
    else:
        conversation = read_conversation(reader, conversation_data, conv_path, scripted=scripted)
    if None in (name, llm, user, chatbot, conversation) or (scripted and script is None):
        return None
    if script:
        conversation = _scripted_conversation(reader, script, user, chatbot, conversation, conv_path)  # type: ignore[arg-type]
    try:
        return Profile(
            name=name or "",
            llm=llm,  # type: ignore[arg-type]
            user=user,  # type: ignore[arg-type]
            chatbot=chatbot,  # type: ignore[arg-type]
            conversation=conversation,  # type: ignore[arg-type]
            custom_types=sorted(reader.used_types.values(), key=lambda t: t.name),
            script=script or [],
            min_pass_rate=min_pass_rate,
        )
    except ValidationError as exc:  # a gap in the checks above; say where rather than crash
        for item in exc.errors():
            reader.error("invalid", item["msg"], tuple(str(p) for p in item["loc"]))
        return None


def _scripted_conversation(
    reader: Reader,
    script: list[ScriptStep],
    user: UserSettings,
    chatbot: ChatbotSettings,
    conversation: ConversationSettings,
    path: Path,
) -> ConversationSettings:
    """The conversation settings a script implies: without goals, exactly its steps (a goal style would let
    an LLM speak); with goals, the script's turns count among the goal style's user messages."""
    style = conversation.goal_style
    if not user.goals:
        if chatbot.outputs:
            reader.error(
                "outputs_need_goals",
                "a script without goals is decided by its checks alone; outputs need an LLM to extract them",
                ("chatbot", "output"),
                "Check the value with `states: <type>` or `matches:` on the step that should state it.",
            )
        return conversation.model_copy(
            update={"goal_style": GoalStyle(kind="steps", steps=len(script), max_cost=style.max_cost)}
        )
    turns = style.steps if style.kind != "all_answered" else style.limit
    if turns is not None and turns <= len(script):
        reader.warn(
            "script_fills_conversation",
            f"the script's {len(script)} turns use up the goal style's {turns} user messages: "
            "the simulated user never speaks",
            (*path, "goal_style"),
            "Raise the goal style's steps (or limit) above the number of script steps.",
        )
    return conversation


def read_profile_data(
    data: Any, *, locate: Locator = no_position, options: LoadOptions | None = None
) -> tuple[Profile | None, list[Problem]]:
    """The canonical profile from already-parsed data (any dialect), and the problems found reading it."""
    reader = Reader(locate, options or LoadOptions())
    profile = read_profile(reader, data)
    return profile, reader.problems


ProfileReader = Callable[[Any], tuple[Profile | None, list[Problem]]]
