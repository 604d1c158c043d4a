"""Structured output: asking for a pydantic model, reading the answer, and the one repair attempt.

Two ways to ask, both standard in the OpenAI protocol: a JSON-schema response format (preferred) or a single
forced tool call whose parameters are the schema (for servers without response formats). Either way the
schema is named after the caller tag, and the answer is validated by pydantic — never fished out of prose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from langchain_core.messages import AIMessage
from pydantic import BaseModel, ValidationError

from engine.llm.messages import Message, assistant, user

Method = Literal["json_schema", "tool_calling"]
ModelT = TypeVar("ModelT", bound=BaseModel)
_MAX_PROBLEMS = 20


def schema_name(tag: str) -> str:
    """OpenAI accepts `^[a-zA-Z0-9_-]{1,64}$` as a schema or function name: "tracer.extract" → "tracer_extract"."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", tag)[:64]
    return name or "response"


def request_kwargs(schema: type[BaseModel], tag: str, method: Method) -> dict[str, Any]:
    """The extra chat-completions parameters that ask for `schema`."""
    name = schema_name(tag)
    parameters = schema.model_json_schema()
    description = (schema.__doc__ or "").strip() or f"The answer for {tag}."
    if method == "json_schema":
        # strict=False: strict mode rejects optional fields and defaults, which ordinary pydantic models
        # have; pydantic validates the answer anyway and a violation gets the repair attempt.
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": name,
                    "description": description,
                    "schema": parameters,
                    "strict": False,
                },
            }
        }
    return {
        "tools": [
            {
                "type": "function",
                "function": {"name": name, "description": description, "parameters": parameters},
            }
        ],
        "tool_choice": {"type": "function", "function": {"name": name}},
    }


def message_text(message: AIMessage) -> str:
    """The text of an answer; some servers send content as a list of typed parts."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = [part if isinstance(part, str) else str(part.get("text", "")) for part in content]
    return "".join(parts)


def raw_answer(message: AIMessage, method: Method) -> str:
    """The JSON text the model produced, as it produced it."""
    if method == "tool_calling":
        if message.tool_calls:
            return json.dumps(message.tool_calls[0]["args"], ensure_ascii=False)
        if message.invalid_tool_calls:
            return str(message.invalid_tool_calls[0].get("args") or "")
    return message_text(message)


def _without_code_fence(text: str) -> str:
    # Some local models wrap JSON in a Markdown fence despite the response format; that is layout, not prose.
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and "\n" in stripped:
        return stripped[stripped.index("\n") + 1 : -3]
    return stripped


def parse(schema: type[ModelT], raw: str) -> ModelT:
    """Validate the answer; raises pydantic's `ValidationError` (invalid JSON included)."""
    return schema.model_validate_json(_without_code_fence(raw))


def describe_problems(error: ValidationError) -> str:
    lines = []
    for problem in error.errors(include_url=False)[:_MAX_PROBLEMS]:
        where = ".".join(str(part) for part in problem["loc"]) or "(the whole answer)"
        lines.append(f"- {where}: {problem['msg']}")
    if error.error_count() > _MAX_PROBLEMS:
        lines.append(f"- … and {error.error_count() - _MAX_PROBLEMS} more")
    return "\n".join(lines)


REPAIR_INSTRUCTION = (
    "That answer cannot be used: it is not valid against the required JSON schema.\n"
    "What is wrong:\n{problems}\n"
    "Answer again with one JSON value that satisfies the schema, and nothing else."
)


def repair_messages(messages: Sequence[Message], raw: str, problems: str) -> list[Message]:
    """The original conversation, the faulty answer, and what was wrong with it."""
    return [*messages, assistant(raw or "(empty answer)"), user(REPAIR_INSTRUCTION.format(problems=problems))]


def looks_like_unsupported_response_format(detail: str) -> bool:
    """Did a 400 complain about the response format itself (rather than the prompt or the model)?"""
    lowered = detail.lower()
    return "response_format" in lowered or "json_schema" in lowered or "response format" in lowered
