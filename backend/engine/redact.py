"""The one secret scrubber: given a run's secrets, it blanks them out of any text before it is stored or shown.

Secrets are whatever the caller knows to be secret — the LLM API key, a connector's headers and tokens, profile
parameters marked secret. Providers and chatbots sometimes echo them back, whole or masked (OpenAI prints the first
and last characters with stars in between), URL-encoded in a query string, or after "Bearer"; each of those
forms is replaced by `[redacted]`. Every writer of errors, events, transcripts and exports passes its text (or
JSON-like data) through one `Scrubber`, built once per run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

MASK = "[redacted]"
# Shorter values are placeholders ("ollama", "none", "k"): masking them would mangle ordinary words.
MIN_SECRET_LENGTH = 8


class Scrubber:
    """Replaces every known secret (and masked or encoded echoes of it) by `[redacted]`. Immutable, thread-safe."""

    def __init__(self, *secrets: str | None) -> None:
        self._secrets = tuple(sorted({s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}, key=len))[
            ::-1
        ]
        patterns: list[re.Pattern[str]] = []
        for secret in self._secrets:
            forms = {secret, quote(secret, safe=""), quote(secret)}
            patterns += [re.compile(re.escape(form)) for form in sorted(forms, key=len, reverse=True)]
            # "sk-ab***********wxyz" and similar partial echoes of the same secret.
            head, tail = re.escape(secret[:3]), re.escape(secret[-4:])
            patterns.append(re.compile(head + r"[\w\-*.]{0,200}?" + tail))
        self._patterns = tuple(patterns)

    @property
    def secrets(self) -> tuple[str, ...]:
        return self._secrets

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def __call__(self, text: str) -> str:
        for pattern in self._patterns:
            text = pattern.sub(MASK, text)
        return text

    def scrub(self, value: Any) -> Any:
        """`value` with every string inside it scrubbed (dicts, lists and tuples are copied, keys included)."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self.scrub(k): self.scrub(v) for k, v in value.items()}
        if isinstance(value, list):  # subclasses too (DRF's ReturnList), as a plain list
            return [self.scrub(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.scrub(v) for v in value)
        return value

    def adding(self, secrets: Iterable[str | None]) -> Scrubber:
        """A scrubber that also knows `secrets`."""
        return Scrubber(*self._secrets, *secrets)
