"""Encryption of stored secrets (LLM API keys, connector secrets) with MultiFernet.

PARLEY_FERNET_KEYS lists keys newest first: new values are encrypted with the first, old values decrypt with
any of them, and `manage.py rotate_secrets` re-encrypts everything with the first so an old key can be dropped.
Decryption happens only in workers (and the rotation command), never to build an API response.
"""

from __future__ import annotations

from functools import cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class SecretUnreadable(Exception):
    """A stored secret cannot be decrypted with any configured key (a key was dropped too early)."""


@cache
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    if not keys:
        raise ImproperlyConfigured(
            "PARLEY_FERNET_KEYS is empty: secrets cannot be stored (see .env.example)."
        )
    return MultiFernet([Fernet(key) for key in keys])


def _current() -> MultiFernet:
    return _fernet(tuple(settings.FERNET_KEYS))


def encrypt(plaintext: str) -> str:
    return _current().encrypt(plaintext.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _current().decrypt(token.encode()).decode()
    except InvalidToken:
        raise SecretUnreadable("A stored secret could not be decrypted with the configured keys.") from None


def rotate(token: str) -> str:
    """Re-encrypt with the newest key."""
    try:
        return _current().rotate(token.encode()).decode()
    except InvalidToken:
        raise SecretUnreadable("A stored secret could not be decrypted with the configured keys.") from None


def mask(secret: str) -> str:
    """A hint that helps tell keys apart without revealing them: `sk-…a1b2`."""
    secret = secret.strip()
    if len(secret) < 12:
        return "…" + secret[-2:] if len(secret) > 4 else "…"
    return f"{secret[:3]}…{secret[-4:]}"
