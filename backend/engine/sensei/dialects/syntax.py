"""Small pieces of the profile language's syntax shared by several sections: names and `f(args)` calls."""

from __future__ import annotations

import re

from engine.sensei.profile import AnyRequest

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z_ ]*?)\s*\((.*)\)\s*$", re.DOTALL)


def call_parts(text: str) -> tuple[str, list[str]] | None:
    """ "combinations(0.5, forward)" -> ("combinations", ["0.5", "forward"]); None if not a call."""
    match = CALL.match(text)
    if not match:
        return None
    inner = match.group(2).strip()
    args = [a.strip().strip("\"'") for a in inner.split(",")] if inner else []
    return match.group(1).strip().lower(), args


def any_request(item: str) -> AnyRequest | None:
    parts = call_parts(item)
    if parts is None or parts[0] != "any":
        return None
    prompt = item[item.index("(") + 1 : item.rindex(")")].strip()
    count = re.match(r"^(\d+)\s", prompt)
    return AnyRequest(prompt=prompt, count=int(count.group(1)) if count else None)
