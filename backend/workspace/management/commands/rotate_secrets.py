"""`manage.py rotate_secrets`: re-encrypt every stored secret with the newest key of PARLEY_FERNET_KEYS.

Rotation: put a new key first in PARLEY_FERNET_KEYS (keep the old ones after it), restart, run this command,
then remove the old keys. Safe to run twice; it stops at the first secret no configured key can read.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.models import LLMKey
from common import crypto
from workspace.models import Connector


class Command(BaseCommand):
    help = "Re-encrypt stored LLM keys and connector secrets with the first key of PARLEY_FERNET_KEYS."

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            with transaction.atomic():
                keys = 0
                for key in LLMKey.objects.select_for_update():
                    key.encrypted_key = crypto.rotate(key.encrypted_key)
                    key.save(update_fields=["encrypted_key"])
                    keys += 1
                connectors = 0
                for connector in Connector.objects.select_for_update().exclude(encrypted_secrets=""):
                    connector.encrypted_secrets = crypto.rotate(connector.encrypted_secrets)
                    connector.save(update_fields=["encrypted_secrets"])
                    connectors += 1
        except crypto.SecretUnreadable as exc:
            raise CommandError(
                f"{exc} Nothing was changed; put the old key back in PARLEY_FERNET_KEYS."
            ) from None
        self.stdout.write(f"Re-encrypted {keys} LLM key(s) and the secrets of {connectors} connector(s).")
