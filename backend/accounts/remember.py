"""Keep me signed in: an opt-in cookie that lets a new tab of the same browser get a token of its own.

The SPA's session stays a per-tab knox token held in memory and sessionStorage (README D1): it travels in the
`Authorization` header, which no other site can make a browser send. A user who ticks "Keep me signed in" at login
also gets two cookies:

- `parley_remember`: the secret of a `RememberToken` (accounts/models.py). HttpOnly (no script ever reads it),
  SameSite=Strict (no request started by another site carries it), Secure in production and over https, and
  Path=/api/auth/ (no other endpoint ever receives it). Its only power is POST /api/auth/resume/, the one request
  the API authenticates by a cookie, which answers with a fresh per-tab token. Because it is a cookie, that request
  must also pass Django's CSRF check: the `csrftoken` cookie echoed in an `X-CSRFToken` header, and an `Origin`
  that is Parley's own. A cross-site request is refused with a JSON 403 even from a browser that ignores SameSite.
- `parley_remembered=1`: no secret, readable by scripts, so the SPA knows there is something to resume and
  anonymous visitors do not call the endpoint on every page load.

Logging out revokes the token behind this browser's cookie and deletes both cookies; logging out everywhere and
changing the password revoke every remember token of the user (accounts/services.py). A cookie that is unknown,
revoked or expired is answered with 401 and deleted.

Login itself reads no credential from a cookie, and its JSON-only body cannot be sent by another site's form
(tests/test_remember.py pins this), so nobody can plant their own "remembered" account in someone's browser.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.http import HttpResponseBase
from django.middleware.csrf import get_token
from django.utils import timezone
from rest_framework import exceptions, status
from rest_framework.authentication import CSRFCheck
from rest_framework.request import Request

from accounts.models import RememberToken, User

COOKIE = "parley_remember"
HINT_COOKIE = "parley_remembered"
COOKIE_PATH = "/api/auth/"
# Longer values are not ours (token_urlsafe(32) gives 43 characters); they are refused without hashing.
MAX_SECRET_LENGTH = 128


class NotRemembered(exceptions.APIException):
    """401 from the resume endpoint; the view deletes the cookies with it, so the browser stops asking."""

    status_code = status.HTTP_401_UNAUTHORIZED
    default_detail = "This browser is not kept signed in (or no longer): please log in."
    default_code = "not_remembered"


class CsrfFailed(exceptions.PermissionDenied):
    default_code = "csrf_failed"


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def remember(user: User) -> tuple[str, datetime]:
    """A new remember token for `user`: the secret (for the cookie, never stored) and when it expires."""
    now = timezone.now()
    RememberToken.objects.filter(user=user, expires_at__lte=now).delete()  # tidy up while we are here
    secret = secrets.token_urlsafe(32)
    expires = now + timedelta(days=settings.REMEMBER_DAYS)
    RememberToken.objects.create(user=user, digest=_digest(secret), expires_at=expires)
    return secret, expires


def remembered_user(secret: str) -> User | None:
    """The active user whose unexpired remember token `secret` is, or None. An expired token is deleted."""
    if not secret or len(secret) > MAX_SECRET_LENGTH:
        return None
    token = RememberToken.objects.select_related("user").filter(digest=_digest(secret)).first()
    if token is None:
        return None
    now = timezone.now()
    if token.expires_at <= now:
        token.delete()
        return None
    if not token.user.is_active:
        return None
    RememberToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def forget(secret: str) -> None:
    """Revoke the remember token behind `secret`; whoever holds a secret may always give it up."""
    if secret and len(secret) <= MAX_SECRET_LENGTH:
        RememberToken.objects.filter(digest=_digest(secret)).delete()


def enforce_csrf(request: Request) -> None:
    """Django's CSRF check (token cookie echoed in a header, and the Origin) on a request a cookie authenticates.

    DRF views are exempt from the middleware's check because header tokens need none; this runs the same check
    by hand, as DRF's SessionAuthentication does, and answers in the API's error shape.
    """
    check = CSRFCheck(lambda _request: None)  # type: ignore[arg-type, return-value]
    check.process_request(request._request)
    reason = check.process_view(request._request, None, (), {})  # type: ignore[arg-type]
    if reason:
        raise CsrfFailed(
            f"Refused: this request did not come from Parley's own pages (CSRF check: {reason}) "
            "Reload the page and try again."
        )


def ensure_csrf_cookie(request: Request) -> str:
    """The CSRF token for this browser; the response sets the `csrftoken` cookie if it is missing."""
    return get_token(request._request)


def _secure(request: Request) -> bool:
    return bool(settings.REMEMBER_COOKIE_SECURE or request.is_secure())


def set_cookies(response: HttpResponseBase, request: Request, secret: str, expires: datetime) -> None:
    max_age = max(0, round((expires - timezone.now()).total_seconds()))
    secure = _secure(request)
    response.set_cookie(
        COOKIE, secret, max_age=max_age, path=COOKIE_PATH, secure=secure, httponly=True, samesite="Strict"
    )
    response.set_cookie(HINT_COOKIE, "1", max_age=max_age, path="/", secure=secure, samesite="Strict")


def delete_cookies(response: HttpResponseBase, request: Request) -> None:
    secure = _secure(request)
    for name, path, httponly in ((COOKIE, COOKIE_PATH, True), (HINT_COOKIE, "/", False)):
        response.set_cookie(
            name,
            "",
            max_age=0,
            expires="Thu, 01 Jan 1970 00:00:00 GMT",
            path=path,
            secure=secure,
            httponly=httponly,
            samesite="Strict",
        )


def present(request: Request) -> bool:
    """Whether this browser sent either cookie."""
    return COOKIE in request.COOKIES or HINT_COOKIE in request.COOKIES


def end(request: Request, response: HttpResponseBase) -> None:
    """This browser is no longer kept signed in: revoke its token (if any) and delete the cookies."""
    if present(request):
        forget(request.COOKIES.get(COOKIE, ""))
        delete_cookies(response, request)
