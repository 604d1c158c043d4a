"""Placeholders in request templates, substituted into the *parsed* request so no value can change its shape.

Placeholders: `{user_msg}` (the user's turn), `{session_id}` (the conversation's id), `{uuid}` (a fresh UUID for
every request) and `{turn}` (1-based number of the user turn in the conversation). Substitution happens once,
on the strings of the already-parsed template — never by formatting a text that is parsed afterwards — so a
value is never itself scanned for placeholders, and each destination gets its own escaping:

- JSON bodies: values are inserted into the data structure and serialised by the JSON encoder;
  a string that is exactly `{turn}` becomes the number;
- paths: values are percent-encoded as one segment (`/`, `?`, `#` and `.` included), so `../` cannot climb;
- query parameters: inserted as data, encoded by the HTTP client;
- headers: a value containing CR, LF or another control character is refused, never sent.

Any other `{...}` text is left as written (JSON-looking text in a template stays intact).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from pydantic import JsonValue

from engine.connectors.errors import ConnectorConfigError

PLACEHOLDERS = ("user_msg", "session_id", "uuid", "turn")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Values:
    user_msg: str
    session_id: str
    uuid: str
    turn: int

    def get(self, name: str) -> str:
        return str(getattr(self, name))


def render_text(template: str, values: Values, *, encode: bool = False) -> str:
    """Substitute placeholders in one string; `encode` percent-encodes each value as a path segment."""

    def replace(match: re.Match[str]) -> str:
        value = values.get(match.group(1))
        # quote() leaves dots alone, and ".." as a whole segment would still climb: encode them too.
        return quote(value, safe="").replace(".", "%2E") if encode else value

    return _PLACEHOLDER.sub(replace, template)


def render_body(template: JsonValue, values: Values) -> JsonValue:
    """The template with placeholders substituted in every string (keys included)."""
    if isinstance(template, str):
        if template == "{turn}":
            return values.turn
        return render_text(template, values)
    if isinstance(template, list):
        return [render_body(item, values) for item in template]
    if isinstance(template, dict):
        return {render_text(key, values): render_body(item, values) for key, item in template.items()}
    return template


def render_path(template: str, values: Values) -> str:
    return render_text(template, values, encode=True)


def render_query(template: Mapping[str, JsonValue], values: Values, *, field: str) -> dict[str, str]:
    """Query parameters from a flat mapping; nested values cannot be expressed in a query string."""
    rendered: dict[str, str] = {}
    for key, value in template.items():
        if isinstance(value, dict | list):
            raise ConnectorConfigError(
                f"{field}.{key}: a query parameter must be a plain value, not a nested object or list.",
                field=f"{field}.{key}",
            )
        if isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = "" if value is None else render_text(str(value), values)
        rendered[render_text(key, values)] = text
    return rendered


def render_headers(template: Mapping[str, str], values: Values, *, field: str) -> dict[str, str]:
    rendered: dict[str, str] = {}
    for name, value in template.items():
        text = render_text(str(value), values)
        if _CONTROL.search(text):
            raise ConnectorConfigError(
                f"{field}.{name}: a placeholder put a line break or control character into this header; "
                "Parley refuses to send it. Put {user_msg} in the body instead.",
                field=f"{field}.{name}",
            )
        rendered[name] = text
    return rendered


def check_header_templates(headers: Mapping[str, str]) -> None:
    """Static check of configured headers (for settings validators): no control characters anywhere."""
    for name, value in headers.items():
        if _CONTROL.search(name) or _CONTROL.search(str(value)):
            raise ValueError(f"header {name!r} contains a line break or control character")
