"""Key rotation: after `rotate_secrets`, the old Fernet key can be dropped and every secret still decrypts."""

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command

from accounts.models import LLMKey
from tests.factories import UserFactory
from workspace.models import Connector

pytestmark = pytest.mark.django_db


def test_rotation_moves_every_secret_to_the_new_key(settings):
    old, new = settings.FERNET_KEYS[0], Fernet.generate_key().decode()
    owner = UserFactory()
    key = LLMKey(owner=owner, name="k", provider="openai")
    key.set_secret("sk-rotate-me-1234567890")
    key.save()
    connector = Connector(owner=owner, name="c", technology="millionbot", params={"bot_id": "b"})
    connector.set_secrets({"api_key": "bot-secret"})
    connector.save()

    settings.FERNET_KEYS = [new, old]
    call_command("rotate_secrets")
    settings.FERNET_KEYS = [new]  # the old key is gone

    key.refresh_from_db()
    connector.refresh_from_db()
    assert key.reveal() == "sk-rotate-me-1234567890"
    assert connector.reveal_secrets() == {"api_key": "bot-secret"}


def test_rotation_without_the_old_key_changes_nothing_and_says_why(settings):
    key = LLMKey(owner=UserFactory(), name="k", provider="openai")
    key.set_secret("sk-keep-me-1234567890")
    key.save()
    before = key.encrypted_key
    settings.FERNET_KEYS = [Fernet.generate_key().decode()]
    with pytest.raises(CommandError, match="put the old key back"):
        call_command("rotate_secrets")
    key.refresh_from_db()
    assert key.encrypted_key == before
