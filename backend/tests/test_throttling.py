"""Every login-like endpoint is throttled, and the client address cannot be chosen by the client."""

from __future__ import annotations

import importlib

import pytest
from django.urls import clear_url_caches
from rest_framework.test import APIClient

from tests.factories import PASSWORD
from tests.test_accounts_api import login


def test_a_client_that_reaches_gunicorn_directly_cannot_rotate_its_address(api, user):
    # Not from nginx (127.0.0.1): every forged X-Forwarded-For is ignored and the real address counts.
    direct = {"REMOTE_ADDR": "198.51.100.20"}
    for n in range(10):
        login(api, user.email, "wrong password entirely", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}", **direct)
    blocked = login(api, user.email, PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.99", **direct)
    assert blocked.status_code == 429


def test_password_change_is_throttled_per_account(auth_api):
    for n in range(10):
        response = auth_api.post(
            "/api/auth/password/",
            {"current_password": f"guess number {n}", "new_password": "A much longer passphrase 42!"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{n}",  # a new address each time does not help
        )
        assert response.status_code == 400, response.json()
    blocked = auth_api.post(
        "/api/auth/password/",
        {"current_password": PASSWORD, "new_password": "A much longer passphrase 42!"},
        format="json",
        HTTP_X_FORWARDED_FOR="203.0.113.77",
    )
    assert blocked.status_code == 429
    assert blocked.json()["code"] == "throttled"


def test_the_admin_is_off_by_default(client):
    assert client.get("/admin/login/").status_code == 404


@pytest.fixture
def admin_on(settings):
    import parley.urls

    settings.ADMIN_ENABLED = True
    importlib.reload(parley.urls)
    clear_url_caches()
    yield
    settings.ADMIN_ENABLED = False
    importlib.reload(parley.urls)
    clear_url_caches()


@pytest.mark.django_db
def test_the_admin_login_when_turned_on_is_throttled_like_the_api(admin_on):
    client = APIClient()
    for _ in range(10):
        response = client.post("/admin/login/", {"username": "root@example.com", "password": "guess"})
        assert response.status_code == 200  # the form again, with its error
    blocked = client.post("/admin/login/", {"username": "root@example.com", "password": "guess"})
    assert blocked.status_code == 429
    assert blocked["Retry-After"]
