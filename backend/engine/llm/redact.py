"""Keeps API keys out of everything the gateway says: error messages, log lines and stored responses.

Providers sometimes echo the key back, whole or masked (OpenAI prints the first and last characters with
stars in between), so besides the exact key we also blank any token that starts and ends like it.
"""

from __future__ import annotations

import re

MASK = "[redacted]"
# Keys shorter than this are placeholders ("ollama", "none"): masking them would mangle ordinary words.
_MIN_SECRET_LENGTH = 8


class Redactor:
    """Replaces every known secret (and masked echoes of it) in a text by `[redacted]`."""

    def __init__(self, *secrets: str | None) -> None:
        self._patterns: list[re.Pattern[str]] = []
        for secret in secrets:
            if not secret or len(secret) < _MIN_SECRET_LENGTH:
                continue
            self._patterns.append(re.compile(re.escape(secret)))
            head, tail = re.escape(secret[:3]), re.escape(secret[-4:])
            # "sk-ab***********wxyz" and similar partial echoes of the same key.
            self._patterns.append(re.compile(head + r"[\w\-*.]{0,200}?" + tail))

    def __call__(self, text: str) -> str:
        for pattern in self._patterns:
            text = pattern.sub(MASK, text)
        return text
