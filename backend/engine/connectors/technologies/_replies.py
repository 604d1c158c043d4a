"""Turning pieces of JSON replies into messages and buttons; shared by the technologies."""

from __future__ import annotations

import json

from pydantic import JsonValue

from engine.connectors.base import Button

TEXT_KEYS = ("text", "content", "message", "body")
LABEL_KEYS = ("title", "label", "text", "name")
VALUE_KEYS = ("payload", "value", "postback")
URL_KEYS = ("url", "link", "href")


def _first_string(item: dict[str, JsonValue], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def as_messages(value: JsonValue) -> list[str]:
    """Messages from a reply value: a string is one message, a list gives one per item (strings, or objects
    with text/content/message/body), numbers are written out; empty texts are dropped."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, bool | int | float):
        return [json.dumps(value)]
    if isinstance(value, dict):
        text = _first_string(value, TEXT_KEYS)
        return [text] if text else []
    return [text for item in value for text in as_messages(item)]


def as_buttons(value: JsonValue) -> list[Button]:
    """Buttons from a list of strings or of objects with a label (title/label/text/name), an optional value
    (payload/value/postback) and an optional link (url/link/href). Items without a label are skipped."""
    items = value if isinstance(value, list) else [value]
    buttons = []
    for item in items:
        if isinstance(item, str) and item:
            buttons.append(Button(label=item, value=item))
        elif isinstance(item, dict):
            label = _first_string(item, LABEL_KEYS)
            if label:
                buttons.append(
                    Button(
                        label=label, value=_first_string(item, VALUE_KEYS), url=_first_string(item, URL_KEYS)
                    )
                )
    return buttons
