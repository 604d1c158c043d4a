"""Typed parsers for settings read from the environment.

Each parser accepts only well-defined values and raises ImproperlyConfigured with the variable's name otherwise,
so a typo in a deployment fails at start-up instead of silently meaning "false" or "0". Secrets may come from a
file named by `<NAME>_FILE` (Docker and Kubernetes secrets), and are refused when they still hold the
placeholder shipped in `.env.example`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

# Values from .env.example that must never reach a production start.
PLACEHOLDER_PREFIX = "change-me"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class Env:
    """Reads typed values from a mapping (os.environ by default) so tests can pass their own."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self.environ = os.environ if environ is None else environ

    def _raw(self, name: str) -> str | None:
        value = self.environ.get(name)
        if value is None or value.strip() == "":
            return None
        return value.strip()

    def str(self, name: str, default: str) -> str:
        value = self._raw(name)
        return default if value is None else value

    def bool(self, name: str, default: bool) -> bool:
        value = self._raw(name)
        if value is None:
            return default
        lowered = value.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ImproperlyConfigured(f"{name} must be one of true/false/1/0/yes/no/on/off, not {value!r}.")

    def int(self, name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
        value = self._raw(name)
        if value is None:
            return default
        try:
            number = int(value)
        except ValueError:
            raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}.") from None
        if minimum is not None and number < minimum:
            raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}.")
        if maximum is not None and number > maximum:
            raise ImproperlyConfigured(f"{name} must be at most {maximum}, not {number}.")
        return number

    def list(self, name: str, default: list[str]) -> list[str]:
        value = self._raw(name)
        if value is None:
            return list(default)
        return [item.strip() for item in value.split(",") if item.strip()]

    def path(self, name: str, default: Path) -> Path:
        value = self._raw(name)
        return default if value is None else Path(value).expanduser().resolve()

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.str(name, default)
        if value not in choices:
            raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, not {value!r}.")
        return value

    def secret(self, name: str, *, required: bool) -> str | None:
        """A secret from NAME or from the file named by NAME_FILE; placeholders count as missing."""
        value = self._raw(name)
        file_name = self._raw(f"{name}_FILE")
        if value is not None and file_name is not None:
            raise ImproperlyConfigured(f"Set either {name} or {name}_FILE, not both.")
        if file_name is not None:
            try:
                value = Path(file_name).read_text(encoding="utf-8").strip() or None
            except OSError as exc:
                raise ImproperlyConfigured(
                    f"{name}_FILE points to {file_name!r}, which cannot be read: {exc}."
                ) from None
        if value is not None and value.lower().startswith(PLACEHOLDER_PREFIX):
            if required:
                raise ImproperlyConfigured(
                    f"{name} still holds the placeholder from .env.example; generate a real value "
                    "(`make run` writes one into .env)."
                )
            value = None
        if value is None and required:
            raise ImproperlyConfigured(f"{name} is required when PARLEY_ENV=production.")
        return value
