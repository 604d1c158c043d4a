"""The account endpoints as a client sees them: clear JSON errors, tokens that can be revoked and expire."""

from datetime import timedelta

import pytest
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.models import User
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

STRONG = "a sturdy pass phrase 42"


def signup(api, email="new@example.com", password=STRONG, **extra):
    return api.post("/api/auth/signup/", {"email": email, "password": password}, format="json", **extra)


def login(api, email, password, **extra):
    return api.post("/api/auth/login/", {"email": email, "password": password}, format="json", **extra)


def test_signup_returns_a_token_that_works(api):
    response = signup(api)
    assert response.status_code == 201
    body = response.json()
    assert body["user"]["email"] == "new@example.com"
    api.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert api.get("/api/auth/me/").json()["email"] == "new@example.com"


def test_signup_stores_only_a_hash_of_the_token(api):
    token = signup(api).json()["token"]
    stored = AuthToken.objects.get()
    assert token not in (stored.digest, stored.token_key)


def test_signup_with_a_taken_email_says_so_case_insensitively(api):
    UserFactory(email="taken@example.com")
    response = signup(api, email="Taken@Example.com")
    assert response.status_code == 400
    assert response.json()["fields"]["email"] == ["An account with this e-mail already exists."]


@pytest.mark.parametrize(
    ("password", "message_part"),
    [("short", "too short"), ("password123456", "too common"), ("84736251904738", "entirely numeric")],
)
def test_signup_with_a_weak_password_explains_why(api, password, message_part):
    response = signup(api, password=password)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert any(message_part in message for message in body["fields"]["password"])
    assert not User.objects.exists()


def test_signup_with_a_malformed_email_is_a_field_error(api):
    response = signup(api, email="not-an-address")
    assert response.status_code == 400
    assert "email" in response.json()["fields"]


def test_signup_without_a_body_lists_the_missing_fields(api):
    response = api.post("/api/auth/signup/", {}, format="json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"email", "password"}


def test_malformed_json_is_a_clear_400_not_a_500(api):
    response = api.post("/api/auth/login/", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


def test_login_with_a_wrong_password_is_a_clear_error(api, user):
    response = login(api, user.email, "wrong password entirely")
    assert response.status_code == 400
    assert response.json() == {
        "detail": "The e-mail or password is incorrect.",
        "code": "invalid_credentials",
    }


def test_login_with_an_unknown_email_gives_the_same_error(api):
    response = login(api, "nobody@example.com", PASSWORD)
    assert response.json()["code"] == "invalid_credentials"


def test_login_ignores_the_case_of_the_email(api, user):
    assert login(api, user.email.upper(), PASSWORD).status_code == 200


def test_each_login_is_a_separate_device_token(api, user):
    first = login(api, user.email, PASSWORD).json()["token"]
    second = login(api, user.email, PASSWORD).json()["token"]
    assert first != second
    assert AuthToken.objects.filter(user=user).count() == 2


def test_logout_revokes_only_that_token(api, user):
    first = login(api, user.email, PASSWORD).json()["token"]
    second = login(api, user.email, PASSWORD).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert api.post("/api/auth/logout/").status_code == 204
    assert api.get("/api/auth/me/").status_code == 401
    api.credentials(HTTP_AUTHORIZATION=f"Token {second}")
    assert api.get("/api/auth/me/").status_code == 200


def test_logout_all_revokes_every_token(api, user):
    tokens = [login(api, user.email, PASSWORD).json()["token"] for _ in range(3)]
    api.credentials(HTTP_AUTHORIZATION=f"Token {tokens[0]}")
    assert api.post("/api/auth/logout-all/").status_code == 204
    for token in tokens:
        api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        assert api.get("/api/auth/me/").status_code == 401


def test_an_expired_token_is_refused(api, user):
    _, token = AuthToken.objects.create(user, expiry=timedelta(seconds=-1))
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = api.get("/api/auth/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_using_a_token_extends_its_expiry(api, user):
    instance, token = AuthToken.objects.create(user, expiry=timedelta(hours=1))
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    api.get("/api/auth/me/")
    instance.refresh_from_db()
    assert instance.expiry > instance.created + timedelta(hours=9)


def test_anonymous_requests_to_private_endpoints_get_401(api):
    for path in ("/api/auth/me/", "/api/keys/", "/api/connectors/"):
        response = api.get(path)
        assert response.status_code == 401
        assert response.json()["code"] == "not_authenticated"


def test_password_change_needs_the_current_password(auth_api):
    response = auth_api.post(
        "/api/auth/password/", {"current_password": "guess", "new_password": STRONG}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["fields"]["current_password"] == ["The current password is incorrect."]


def test_password_change_logs_out_other_devices_and_issues_a_new_token(api, user):
    other = login(api, user.email, PASSWORD).json()["token"]
    mine = login(api, user.email, PASSWORD).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {mine}")
    response = api.post(
        "/api/auth/password/", {"current_password": PASSWORD, "new_password": STRONG}, format="json"
    )
    assert response.status_code == 200
    fresh = response.json()["token"]
    for token in (other, mine):
        api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        assert api.get("/api/auth/me/").status_code == 401
    api.credentials(HTTP_AUTHORIZATION=f"Token {fresh}")
    assert api.get("/api/auth/me/").status_code == 200
    assert login(APIClient(), user.email, STRONG).status_code == 200


def test_login_is_throttled_per_client_address(api, user):
    elsewhere = {"HTTP_X_FORWARDED_FOR": "198.51.100.7"}
    here = {"HTTP_X_FORWARDED_FOR": "203.0.113.9"}
    for _ in range(10):
        assert login(api, user.email, "wrong password entirely", **here).status_code == 400
    blocked = login(api, user.email, PASSWORD, **here)
    assert blocked.status_code == 429
    assert blocked.json()["code"] == "throttled"
    assert blocked.json()["detail"].startswith("Too many attempts. Try again in ")
    assert login(api, user.email, PASSWORD, **elsewhere).status_code == 200


def test_the_throttle_keys_on_the_address_nginx_appended_not_on_one_the_client_chose(api, user):
    for n in range(10):
        # A client that forges a new first X-Forwarded-For entry each time; nginx appends the real one last.
        login(api, user.email, "wrong password entirely", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, 203.0.113.9")
    blocked = login(api, user.email, PASSWORD, HTTP_X_FORWARDED_FOR="10.0.0.99, 203.0.113.9")
    assert blocked.status_code == 429


def test_signup_is_throttled(api):
    for n in range(20):
        signup(api, email=f"bulk{n}@example.com", HTTP_X_FORWARDED_FOR="203.0.113.50")
    response = signup(api, email="one-more@example.com", HTTP_X_FORWARDED_FOR="203.0.113.50")
    assert response.status_code == 429


def test_the_display_name_can_be_set_and_is_what_public_pages_show(auth_api):
    response = auth_api.patch(
        "/api/auth/me/", {"display_name": "Ada", "email": "evil@example.com"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["display_name"] == "Ada"
    assert response.json()["email"] == auth_api.user.email  # the e-mail is not editable here
