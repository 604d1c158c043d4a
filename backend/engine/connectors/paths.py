"""Reply paths: where in a JSON response the chatbot's text, messages or buttons are.

Syntax: keys separated by dots, list positions as integers, negative from the end: `data.messages.0.text`,
`messages.-1.content`; `messages[-1].content` is accepted as a spelling of the same. The empty path is the whole
document. A path that does not match raises `ChatbotProtocolError` naming the path, the point where it stopped
and what was there instead, so a wrong `response_path` is fixed from the message alone.
"""

from __future__ import annotations

import re

from pydantic import JsonValue

from engine.connectors.errors import ChatbotProtocolError

Segment = str | int

_BRACKET = re.compile(r"\[(-?\d+)\]")
_INTEGER = re.compile(r"-?\d+")


def parse_path(path: str) -> tuple[Segment, ...]:
    """Split a path into keys and list positions; raises ValueError on an empty segment."""
    text = _BRACKET.sub(r".\1", path.strip()).strip(".") if path.strip() else ""
    if not text:
        return ()
    segments: list[Segment] = []
    for part in text.split("."):
        if not part:
            raise ValueError(f"{path!r} has an empty segment (two dots in a row?)")
        segments.append(int(part) if _INTEGER.fullmatch(part) else part)
    return tuple(segments)


def _describe(value: JsonValue) -> str:
    if isinstance(value, dict):
        keys = ", ".join(sorted(value)[:12]) or "none"
        return f"an object with keys: {keys}"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    return f"the value {str(value)[:60]!r}" if value is not None else "null"


def extract(document: JsonValue, path: str, *, setting: str = "response_path", where: str = "") -> JsonValue:
    """The value at `path`; `setting` and `where` (a URL) name the configuration and source in errors."""
    current = document
    walked: list[str] = []
    for segment in parse_path(path):
        found = False
        if isinstance(current, dict) and str(segment) in current:
            current, found = current[str(segment)], True
        elif (
            isinstance(current, list) and isinstance(segment, int) and -len(current) <= segment < len(current)
        ):
            current, found = current[segment], True
        if not found:
            at = ".".join(walked) or "the top level"
            source = f" from {where}" if where else ""
            raise ChatbotProtocolError(
                f"The reply{source} has nothing at {setting} {path!r}: at {at} there is {_describe(current)}, "
                f"with no {segment!r}."
            )
        walked.append(str(segment))
    return current
