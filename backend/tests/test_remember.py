"""Keep me signed in (accounts/remember.py): an HttpOnly cookie, set only when asked, that lets a new tab get its own
token at /api/auth/resume/ — CSRF-checked, throttled, revoked by logout, logout-all and a password change."""

from datetime import timedelta

import pytest
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts.models import RememberToken
from tests.factories import PASSWORD, UserFactory
from tests.test_settings import production, run_manage

pytestmark = pytest.mark.django_db

COOKIE = "parley_remember"
HINT = "parley_remembered"
RESUME = "/api/auth/resume/"
NEW_PASSWORD = "a sturdy pass phrase 42"


def browser() -> APIClient:
    """A browser: keeps cookies between requests and, unlike the default test client, enforces CSRF checks."""
    return APIClient(enforce_csrf_checks=True)


def log_in(client, user, *, remember, **extra):
    body = {"email": user.email, "password": PASSWORD}
    if remember is not None:
        body["remember"] = remember
    response = client.post("/api/auth/login/", body, format="json", **extra)
    assert response.status_code == 200, response.content
    return response


def resume(client, **extra):
    """What a new tab does: POST with the csrftoken cookie echoed in X-CSRFToken, and no Authorization header."""
    client.credentials()
    csrf = client.cookies.get("csrftoken")
    headers = {"HTTP_X_CSRFTOKEN": csrf.value} if csrf is not None else {}
    return client.post(RESUME, **{**headers, **extra})


def with_token(client, token):
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def assert_cookies_deleted(response):
    for name in (COOKIE, HINT):
        assert name in response.cookies, f"{name} is not deleted"
        assert response.cookies[name].value == ""
        assert response.cookies[name]["max-age"] == 0


# --- the cookie is set only when asked, with the right flags ------------------------------------------------------


@pytest.mark.parametrize("remember", [None, False])
def test_a_plain_login_sets_no_cookie(user, remember):
    response = log_in(browser(), user, remember=remember)
    assert COOKIE not in response.cookies
    assert HINT not in response.cookies
    assert not RememberToken.objects.exists()


def test_keep_me_signed_in_sets_an_httponly_strict_cookie_on_the_auth_path_only(user, settings):
    response = log_in(browser(), user, remember=True)

    cookie = response.cookies[COOKIE]
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Strict"
    assert cookie["path"] == "/api/auth/"
    assert cookie["secure"] == ""  # plain http outside production; see the next tests
    assert cookie["max-age"] == settings.REMEMBER_DAYS * 24 * 3600
    # The cookie is not the tab's token, and only a digest of it is stored.
    assert cookie.value != response.json()["token"]
    stored = RememberToken.objects.get(user=user)
    assert cookie.value not in stored.digest
    assert stored.expires_at > timezone.now() + timedelta(days=settings.REMEMBER_DAYS - 1)
    # The hint carries no secret and is readable by the SPA (not HttpOnly) on every path.
    hint = response.cookies[HINT]
    assert hint.value == "1"
    assert hint["httponly"] == ""
    assert hint["path"] == "/"
    assert hint["samesite"] == "Strict"
    # The CSRF cookie the resume request will echo.
    assert "csrftoken" in response.cookies


def test_the_cookies_are_secure_over_https(user):
    response = log_in(APIClient(enforce_csrf_checks=True), user, remember=True, secure=True)
    assert response.cookies[COOKIE]["secure"] is True
    assert response.cookies[HINT]["secure"] is True


def test_the_cookies_are_secure_in_production_posture(user, settings):
    settings.REMEMBER_COOKIE_SECURE = True  # what PARLEY_ENV=production sets; TLS ends in front of nginx
    response = log_in(browser(), user, remember=True)
    assert response.cookies[COOKIE]["secure"] is True
    assert response.cookies[HINT]["secure"] is True


def test_a_cross_site_form_cannot_log_a_browser_into_someone_elses_remembered_account(user):
    # A form on another site can send only form encodings or text/plain; the login accepts JSON alone.
    response = browser().post(
        "/api/auth/login/",
        f'{{"email": "{user.email}", "password": "{PASSWORD}", "remember": true}}',
        content_type="text/plain",
        HTTP_ORIGIN="https://evil.example",
    )
    assert response.status_code == 415
    assert COOKIE not in response.cookies
    assert not RememberToken.objects.exists()


# --- resume ---------------------------------------------------------------------------------------------------------


def test_a_new_tab_resumes_with_a_fresh_working_token(user):
    client = browser()
    first = log_in(client, user, remember=True).json()["token"]

    response = resume(client)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["user"]["email"] == user.email
    assert body["token"] != first
    assert AuthToken.objects.filter(user=user).count() == 2  # one knox token per tab
    assert with_token(APIClient(), body["token"]).get("/api/auth/me/").json()["email"] == user.email
    assert RememberToken.objects.get(user=user).last_used_at is not None
    # Every new tab gets its own token; the cookie keeps working.
    assert resume(client).json()["token"] not in (first, body["token"])


def test_the_remember_secret_is_not_an_api_token(user):
    client = browser()
    log_in(client, user, remember=True)
    secret = client.cookies[COOKIE].value
    response = with_token(APIClient(), secret).get("/api/auth/me/")
    assert response.status_code == 401


def test_a_cross_site_post_without_the_csrf_token_is_refused(user):
    client = browser()
    log_in(client, user, remember=True)
    tokens_before = AuthToken.objects.count()

    # What a page on another site can make the browser send: the cookie, but no X-CSRFToken header.
    response = client.post(RESUME, HTTP_ORIGIN="https://evil.example")

    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "csrf_failed"
    assert body["detail"].startswith("Refused: this request did not come from Parley's own pages")
    assert set(body) == {"detail", "code"}
    assert AuthToken.objects.count() == tokens_before
    assert COOKIE not in response.cookies  # a refused request cannot log the victim out either


def test_a_cross_site_post_with_a_guessed_csrf_token_is_refused(user):
    client = browser()
    log_in(client, user, remember=True)
    response = client.post(RESUME, HTTP_X_CSRFTOKEN="x" * 32)
    assert response.status_code == 403
    assert response.json()["code"] == "csrf_failed"


def test_the_right_csrf_token_from_another_origin_is_refused(user):
    client = browser()
    log_in(client, user, remember=True)
    response = resume(client, HTTP_ORIGIN="https://evil.example")
    assert response.status_code == 403
    assert response.json()["code"] == "csrf_failed"
    assert "Origin checking failed" in response.json()["detail"]


def test_the_same_origin_passes_the_check(user):
    client = browser()
    log_in(client, user, remember=True)
    assert resume(client, HTTP_ORIGIN="http://testserver").status_code == 200


def test_the_csrf_endpoint_sets_the_cookie_a_resume_needs(user):
    client = browser()
    log_in(client, user, remember=True)
    del client.cookies["csrftoken"]  # say the user cleared it

    response = client.get("/api/auth/csrf/")

    assert response.status_code == 200
    assert "csrftoken" in response.cookies
    token = response.json()["csrf_token"]
    client.credentials()
    assert client.post(RESUME, HTTP_X_CSRFTOKEN=token).status_code == 200


def test_without_a_cookie_resume_is_a_401_that_clears_the_hint():
    client = browser()
    client.cookies[HINT] = "1"  # a stale hint alone
    response = client.post(RESUME)
    assert response.status_code == 401
    assert response.json()["code"] == "not_remembered"
    assert response["WWW-Authenticate"] == "Token"
    assert_cookies_deleted(response)


def test_an_expired_cookie_gets_401_and_is_deleted(user):
    client = browser()
    log_in(client, user, remember=True)
    RememberToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = resume(client)

    assert response.status_code == 401
    assert response.json()["code"] == "not_remembered"
    assert_cookies_deleted(response)
    assert not RememberToken.objects.exists()


def test_a_revoked_or_unknown_cookie_gets_401_and_is_deleted(user):
    client = browser()
    log_in(client, user, remember=True)
    RememberToken.objects.all().delete()  # revoked, e.g. by an administrator

    response = resume(client)

    assert response.status_code == 401
    assert_cookies_deleted(response)


def test_a_deactivated_account_cannot_resume(user):
    client = browser()
    log_in(client, user, remember=True)
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert resume(client).status_code == 401


def test_resume_is_throttled_per_address_and_failed_attempts_count(user):
    client = browser()
    log_in(client, user, remember=True)
    secret = client.cookies[COOKIE].value
    here = {"HTTP_X_FORWARDED_FOR": "203.0.113.61"}
    guesser = browser()
    for n in range(30):  # PARLEY_RESUME_THROTTLE's default, 30/min
        guesser.cookies[COOKIE] = f"guess-{n}"
        guesser.cookies["csrftoken"] = client.cookies["csrftoken"].value
        assert resume(guesser, **here).status_code == 401
    guesser.cookies[COOKIE] = secret
    blocked = resume(guesser, **here)
    assert blocked.status_code == 429
    assert blocked.json()["code"] == "throttled"
    assert resume(client, HTTP_X_FORWARDED_FOR="198.51.100.61").status_code == 200


# --- what ends it ---------------------------------------------------------------------------------------------------


def test_logout_revokes_the_remember_token_and_deletes_the_cookies(user):
    client = browser()
    token = log_in(client, user, remember=True).json()["token"]
    secret = client.cookies[COOKIE].value

    response = with_token(client, token).post("/api/auth/logout/")

    assert response.status_code == 204
    assert_cookies_deleted(response)
    assert not RememberToken.objects.exists()
    client.cookies[COOKIE] = secret  # a copy of the cookie kept from before is worthless now
    assert resume(client).status_code == 401


def test_a_plain_login_ends_an_earlier_keep_me_signed_in_of_the_browser(user):
    client = browser()
    log_in(client, user, remember=True)
    other = UserFactory()

    response = log_in(client, other, remember=False)

    assert_cookies_deleted(response)
    assert not RememberToken.objects.exists()


def test_logging_in_again_with_keep_me_signed_in_replaces_the_token(user):
    client = browser()
    log_in(client, user, remember=True)
    old = client.cookies[COOKIE].value
    response = log_in(client, user, remember=True)
    assert response.cookies[COOKIE].value not in ("", old)
    assert RememberToken.objects.count() == 1


def test_logout_all_revokes_every_remember_token_of_the_user(user):
    laptop, phone = browser(), browser()
    log_in(laptop, user, remember=True)
    log_in(phone, user, remember=True)
    someone_else = browser()
    log_in(someone_else, UserFactory(), remember=True)
    tab = log_in(browser(), user, remember=False).json()["token"]

    assert with_token(APIClient(), tab).post("/api/auth/logout-all/").status_code == 204

    assert resume(laptop).status_code == 401
    assert resume(phone).status_code == 401
    assert resume(someone_else).status_code == 200


def test_a_password_change_revokes_every_remember_token_and_deletes_this_browsers_cookies(user):
    laptop, phone = browser(), browser()
    token = log_in(laptop, user, remember=True).json()["token"]
    log_in(phone, user, remember=True)

    response = with_token(laptop, token).post(
        "/api/auth/password/", {"current_password": PASSWORD, "new_password": NEW_PASSWORD}, format="json"
    )

    assert response.status_code == 200
    assert_cookies_deleted(response)
    assert not RememberToken.objects.filter(user=user).exists()
    assert resume(phone).status_code == 401


# --- settings postures --------------------------------------------------------------------------------------------

SHOW = (
    "from django.conf import settings as s; print(s.REMEMBER_COOKIE_SECURE, sorted(s.CSRF_TRUSTED_ORIGINS))"
)


def test_production_makes_the_cookie_secure_and_trusts_only_the_public_origin():
    result = run_manage("shell", "-c", SHOW, **production())
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "True ['https://parley.example.com']"


def test_on_a_loopback_address_both_names_of_the_server_pass_the_origin_check():
    # nginx forwards Host without the port, so Django cannot derive http://127.0.0.1:8091 itself; `make run` and
    # the e2e stack announce http://localhost:PORT while a browser may open http://127.0.0.1:PORT.
    result = run_manage("shell", "-c", SHOW, PARLEY_ENV="local", PARLEY_PUBLIC_URL="http://localhost:8091")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == (
        "False ['http://127.0.0.1:8091', 'http://localhost:8091']"
    )
