"""Account endpoints under /api/auth/: sign-up, login, logout, logout-all, current user, password change, and the
"keep me signed in" pair (resume, csrf; see accounts/remember.py)."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.db import IntegrityError, transaction
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import remember, services
from accounts.models import User
from accounts.serializers import (
    CsrfSerializer,
    LoginSerializer,
    PasswordChangeSerializer,
    SessionSerializer,
    SignupSerializer,
    UserSerializer,
)
from accounts.throttles import (
    AddressPasswordChangeThrottle,
    LoginThrottle,
    PasswordChangeThrottle,
    ResumeThrottle,
    SignupThrottle,
)


class InvalidCredentials(exceptions.APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_detail = "The e-mail or password is incorrect."
    default_code = "invalid_credentials"


class SignupView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (SignupThrottle,)

    @extend_schema(request=SignupSerializer, responses={201: SessionSerializer}, summary="Create an account")
    def post(self, request: Request) -> Response:
        serializer = SignupSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            with transaction.atomic():
                user = User.objects.create_user(
                    serializer.validated_data["email"], serializer.validated_data["password"]
                )
                session = services.open_session(user)
        except IntegrityError:  # two sign-ups with one address raced past validate_email
            raise exceptions.ValidationError(
                {"email": ["An account with this e-mail already exists."]}, code="duplicate"
            ) from None
        return Response(SessionSerializer(session).data, status=status.HTTP_201_CREATED)


class LoginView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (LoginThrottle,)

    @extend_schema(
        request=LoginSerializer, responses={200: SessionSerializer}, summary="Log in on this device"
    )
    def post(self, request: Request) -> Response:
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = authenticate(
            request,
            email=serializer.validated_data["email"],
            password=serializer.validated_data["password"],
        )
        if user is None:
            raise InvalidCredentials()
        response = Response(SessionSerializer(services.open_session(user)).data)
        # A login decides what this browser remembers: an earlier "keep me signed in" (perhaps of another
        # account) ends here, and a new one starts only when asked for.
        remember.end(request, response)
        if serializer.validated_data.get("remember", False):
            secret, expires = remember.remember(user)
            remember.set_cookies(response, request, secret, expires)
            remember.ensure_csrf_cookie(request)  # the resume request echoes it
        return response


class ResumeView(APIView):
    """A new tab of a browser kept signed in trades the HttpOnly cookie for its own tab token.

    The only endpoint the API authenticates by a cookie, hence the CSRF check. No authentication class: the
    throttle counts every attempt before the cookie is looked at, and the cookie is read here.
    """

    permission_classes = (AllowAny,)
    authentication_classes = ()
    throttle_classes = (ResumeThrottle,)

    @extend_schema(
        request=None,
        responses={200: SessionSerializer},
        summary="Keep me signed in: a new tab's token, for the browser's remember cookie (needs X-CSRFToken)",
        description=(
            "Authenticated by the HttpOnly `parley_remember` cookie a login with `remember: true` set, not by a "
            "token. Send the `csrftoken` cookie's value (or GET /api/auth/csrf/) as `X-CSRFToken`. 401, with the "
            "cookies deleted, when the cookie is missing, unknown, revoked or expired; 403 when the CSRF check "
            "fails."
        ),
    )
    def post(self, request: Request) -> Response:
        secret = request.COOKIES.get(remember.COOKIE, "")
        if not secret:
            raise remember.NotRemembered()
        remember.enforce_csrf(request)
        user = remember.remembered_user(secret)
        if user is None:
            raise remember.NotRemembered()
        return Response(SessionSerializer(services.open_session(user)).data)

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)
        if isinstance(exc, remember.NotRemembered):
            response["WWW-Authenticate"] = "Token"
            remember.delete_cookies(response, self.request)  # type: ignore[arg-type]
        return response


class CsrfView(APIView):
    permission_classes = (AllowAny,)
    authentication_classes = ()

    @extend_schema(
        responses={200: CsrfSerializer},
        summary="The CSRF token (also set as the csrftoken cookie) the resume request sends as X-CSRFToken",
    )
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": remember.ensure_csrf_cookie(request)})


class LogoutView(APIView):
    @extend_schema(
        request=None,
        responses={204: None},
        summary="Log out this device (revokes its token, and the browser's keep-me-signed-in cookie)",
    )
    def post(self, request: Request) -> Response:
        request.auth.delete()
        response = Response(status=status.HTTP_204_NO_CONTENT)
        remember.end(request, response)
        return response


class LogoutAllView(APIView):
    @extend_schema(request=None, responses={204: None}, summary="Log out every device (revokes all tokens)")
    def post(self, request: Request) -> Response:
        services.close_all_sessions(request.user)
        response = Response(status=status.HTTP_204_NO_CONTENT)
        remember.end(request, response)
        return response


class MeView(APIView):
    @extend_schema(responses={200: UserSerializer}, summary="The current user")
    def get(self, request: Request) -> Response:
        return Response(UserSerializer(request.user).data)

    @extend_schema(request=UserSerializer, responses={200: UserSerializer}, summary="Change the display name")
    def patch(self, request: Request) -> Response:
        serializer = UserSerializer(request.user, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(serializer.data)


class PasswordChangeView(APIView):
    throttle_classes = (PasswordChangeThrottle, AddressPasswordChangeThrottle)

    @extend_schema(
        request=PasswordChangeSerializer,
        responses={200: SessionSerializer},
        summary="Change the password; every other device is logged out and this one gets a new token",
    )
    def post(self, request: Request) -> Response:
        serializer = PasswordChangeSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        user = request.user
        with transaction.atomic():
            user.set_password(serializer.validated_data["new_password"])
            user.save(update_fields=["password"])
            services.close_all_sessions(user)
            session = services.open_session(user)
        response = Response(SessionSerializer(session).data)
        remember.end(request, response)  # every remember token is revoked; this browser's cookies go too
        return response
