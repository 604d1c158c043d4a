"""LLM keys: stored encrypted, never returned, tested only inside a worker."""

import logging

import pytest

from accounts.models import LLMKey
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

CANARY = "sk-canary-0123456789abcdefghijklmnopqrstuv"


def create_key(api, **overrides):
    body = {"name": "main", "provider": "openai", "key": CANARY, **overrides}
    return api.post("/api/keys/", body, format="json")


def test_a_key_is_stored_encrypted_and_only_its_hint_is_returned(auth_api, caplog):
    caplog.set_level(logging.DEBUG)
    response = create_key(auth_api)
    assert response.status_code == 201, response.json()
    assert response.json()["hint"] == "sk-…stuv"
    stored = LLMKey.objects.get()
    assert CANARY not in stored.encrypted_key
    assert stored.reveal() == CANARY
    listing = auth_api.get("/api/keys/")
    detail = auth_api.get(f"/api/keys/{stored.pk}/")
    for body in (response.content, listing.content, detail.content):
        assert CANARY.encode() not in body
    assert CANARY not in caplog.text


def test_creating_a_key_never_contacts_the_provider(auth_api):
    # The test database has no network and no worker; creation must still succeed at once.
    assert create_key(auth_api).status_code == 201
    assert LLMKey.objects.get().last_checked_at is None


def test_only_the_name_can_change(auth_api):
    key_id = create_key(auth_api).json()["id"]
    assert (
        auth_api.patch(f"/api/keys/{key_id}/", {"name": "renamed"}, format="json").json()["name"] == "renamed"
    )
    response = auth_api.patch(f"/api/keys/{key_id}/", {"key": "sk-other"}, format="json")
    assert response.status_code == 400
    assert "add a new key" in response.json()["fields"]["key"][0]


def test_openai_compatible_keys_need_a_base_url(auth_api):
    response = create_key(auth_api, provider="openai-compatible", key="")
    assert response.status_code == 400
    assert "base URL" in response.json()["fields"]["base_url"][0]
    ok = create_key(auth_api, provider="openai-compatible", key="", base_url="http://ollama.lan:11434/v1")
    assert ok.status_code == 201


def test_duplicate_names_are_refused(auth_api):
    create_key(auth_api)
    assert create_key(auth_api, name="MAIN").json()["fields"]["name"] == [
        "You already have a key with this name."
    ]


def test_other_users_keys_do_not_exist_for_me(auth_api):
    other = LLMKey(owner=UserFactory(), name="theirs", provider="openai")
    other.set_secret(CANARY)
    other.save()
    assert auth_api.get("/api/keys/").json()["count"] == 0
    for method, path in (("get", ""), ("patch", ""), ("delete", ""), ("post", "test/"), ("post", "models/")):
        assert getattr(auth_api, method)(f"/api/keys/{other.pk}/{path}", {}, format="json").status_code == 404


def test_providers_are_listed_with_their_needs(auth_api):
    providers = {p["id"]: p for p in auth_api.get("/api/providers/").json()}
    assert set(providers) == {"openai", "gemini", "openai-compatible"}
    assert providers["openai-compatible"]["needs_base_url"] is True
    assert providers["openai"]["fallback_models"]
